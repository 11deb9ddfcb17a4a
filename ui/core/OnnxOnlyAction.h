#pragma once
// Actions that need the ONNX graph (estimate, advise, apply a fix, quantize, partition, save the model, convert to
// RKNN): a compiled model (.rknn) has none here, as it runs whole on a board's runtime. While one is open these
// actions are disabled and their tool tip and status tip say why; an ONNX model brings the usual tips back.
#include <QString>

class QAction;

namespace npuwb::ui {

class Workbench;

/// Why such an action is unavailable for a compiled model.
QString onnxOnlyReason();

/// Enables `action` when `ready` and the open model is not a compiled one; a compiled model disables it and puts
/// "<action>: <reason>" in its status tip and under its tool tip.
void enableOnnxAction(QAction* action, const Workbench& workbench, bool ready);

}  // namespace npuwb::ui
