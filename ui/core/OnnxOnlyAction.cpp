#include "core/OnnxOnlyAction.h"

#include <QAction>
#include <QCoreApplication>

#include "core/Workbench.h"

namespace npuwb::ui {

namespace {
// The tips the action had before a compiled model replaced them (kept on the action itself, so no registry).
constexpr const char* kToolTip = "npuwbOnnxToolTip";
constexpr const char* kStatusTip = "npuwbOnnxStatusTip";

/// "&Quantize…" -> "Quantize".
QString plainText(QString text) {
    return text.remove(QLatin1Char('&')).remove(QChar(0x2026)).remove(QStringLiteral("...")).trimmed();
}
}  // namespace

QString onnxOnlyReason() {
    return QCoreApplication::translate("OnnxOnlyAction", "needs an ONNX model; .rknn files run as compiled");
}

void enableOnnxAction(QAction* action, const Workbench& workbench, bool ready) {
    const QString name = plainText(action->text());
    if (!action->property(kToolTip).isValid()) {
        // Without a tool tip of its own an action shows its text as one; keep "none" then, not a copy of the text.
        const QString own = action->toolTip();
        action->setProperty(kToolTip, plainText(own) == name ? QString() : own);
        action->setProperty(kStatusTip, action->statusTip());
    }
    const bool compiled = workbench.hasCompiledModel();
    action->setEnabled(ready && !compiled);
    const QString toolTip = action->property(kToolTip).toString();
    const QString statusTip = action->property(kStatusTip).toString();
    if (!compiled) {
        action->setToolTip(toolTip);
        action->setStatusTip(statusTip);
        return;
    }
    const QString why = QCoreApplication::translate("OnnxOnlyAction", "%1: %2").arg(name, onnxOnlyReason());
    action->setStatusTip(why);
    action->setToolTip(toolTip.isEmpty() ? why : toolTip + QLatin1Char('\n') + why);
}

}  // namespace npuwb::ui
