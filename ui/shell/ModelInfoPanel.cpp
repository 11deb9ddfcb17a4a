#include "shell/ModelInfoPanel.h"

#include <QHeaderView>

#include "core/Workbench.h"
#include "models/ModelInfoModel.h"

namespace npuwb::ui {

ModelInfoPanel::ModelInfoPanel(Workbench& workbench, QWidget* parent)
    : QTreeView(parent), model_(new ModelInfoModel(this)) {
    setObjectName(QStringLiteral("modelInfo"));
    setModel(model_);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto showModel = [this, &workbench] {
        model_->setSummary(workbench.loadedModel()->summary);
        expandAll();
    };
    connect(&workbench, &Workbench::modelLoaded, this, showModel);
    connect(&workbench, &Workbench::modelChanged, this, showModel);
    connect(&workbench, &Workbench::reportChanged, this, [this, &workbench] {
        model_->setRunResult(*workbench.lastReport());
        expandAll();
    });
}

}  // namespace npuwb::ui
