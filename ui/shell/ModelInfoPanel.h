#pragma once
// The "Model" panel: file facts, inputs/outputs with shapes, totals and the op histogram of the open model, and the
// last run's timing, backend and memory (ModelInfoModel), following the workbench.
#include <QTreeView>

namespace npuwb::ui {

class ModelInfoModel;
class Workbench;

class ModelInfoPanel : public QTreeView {
    Q_OBJECT
public:
    ModelInfoPanel(Workbench& workbench, QWidget* parent);

    ModelInfoModel* infoModel() const { return model_; }
    /// Wide enough for "float32 [1,3,480,480]" beside its key: the width the dock starts with.
    QSize sizeHint() const override;

private:
    ModelInfoModel* model_;
};

}  // namespace npuwb::ui
