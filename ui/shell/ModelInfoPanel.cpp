#include "shell/ModelInfoPanel.h"

#include <QHeaderView>

#include "core/Workbench.h"
#include "models/InputShapes.h"
#include "models/ModelInfoModel.h"

namespace npuwb::ui {

ModelInfoPanel::ModelInfoPanel(Workbench& workbench, QWidget* parent)
    : QTreeView(parent), model_(new ModelInfoModel(this)) {
    setObjectName(QStringLiteral("modelInfo"));
    setModel(model_);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // "float32 [p2o.DynamicDimension.0,3,...]" is wider than the panel: keep both ends, the tooltip has it all.
    setTextElideMode(Qt::ElideMiddle);
    // A compiled model's inputs and outputs come from the board's runtime: its report of this very file.
    auto runtimeReport = [&workbench]() -> const Report* {
        const auto loaded = workbench.loadedModel();
        const Report* report = workbench.lastReport();
        return loaded && report && QString::fromStdString(report->model.path) == loaded->path ? report : nullptr;
    };
    auto showModel = [this, &workbench, runtimeReport] {
        const auto loaded = workbench.loadedModel();
        if (!loaded->runtime.isEmpty())
            model_->setCompiledModel(loaded->summary, loaded->runtime, runtimeReport());
        else if (const auto shaped = workbench.shapedModel())  // symbolic dims resolved at the chosen sizes
            model_->setSummary(shaped->summary, inputShapesText(shaped->inputShapes));
        else
            model_->setSummary(loaded->summary);
        expandAll();
    };
    connect(&workbench, &Workbench::modelLoaded, this, showModel);
    connect(&workbench, &Workbench::modelChanged, this, showModel);
    connect(&workbench, &Workbench::shapesResolved, this, [this, &workbench, showModel] {
        showModel();
        if (const Report* report = workbench.lastReport()) model_->setRunResult(*report, false);
        expandAll();
    });
    connect(&workbench, &Workbench::reportChanged, this, [this, &workbench, showModel, runtimeReport] {
        const auto loaded = workbench.loadedModel();
        const bool compiled = loaded && !loaded->runtime.isEmpty() && runtimeReport();
        if (compiled) showModel();  // the inputs and outputs the runtime reported
        model_->setRunResult(*workbench.lastReport(), compiled);
        expandAll();
    });
}

QSize ModelInfoPanel::sizeHint() const {
    return {fontMetrics().averageCharWidth() * 50, QTreeView::sizeHint().height()};
}

}  // namespace npuwb::ui
