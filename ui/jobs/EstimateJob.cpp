#include "jobs/EstimateJob.h"

#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "chips/ChipProfile.h"
#include "perfmodel/CostModel.h"
#include "perfmodel/LayerPlanner.h"
#include "perfmodel/LayerShapes.h"

namespace npuwb::ui {

namespace {

QString nodeName(const Node& node) {
    // As the cost model names its rows, so an estimate row and its first covered node agree.
    return QString::fromStdString(node.name.empty() ? (node.outputs.empty() ? node.opType : node.outputs[0])
                                                    : node.name);
}

std::shared_ptr<const EstimateResult> estimate(const Model& model, const TargetOptions& target) {
    const ChipProfile chip = findChipProfile(target.chip.toStdString());
    EstimateOptions options;
    options.dtype = target.dtype.toStdString();
    options.cores = target.cores;
    auto result = std::make_shared<EstimateResult>();
    result->target = target;
    result->report = estimateModel(model, chip, options);
    // The report names only each layer's anchor node; the plan (the same one estimateModel made) knows the
    // nodes fused into it, so selecting a fused layer can highlight all of them.
    const std::vector<NodeShapes> shapes = resolveLayerShapes(model, options.symbolicDimValue);
    const std::vector<PlannedLayer> plan = planLayers(shapes, model.graph, chip, options.dtype);
    for (size_t i = 0; i < result->report.layers.size(); ++i) {
        QStringList names;
        if (plan.size() == result->report.layers.size())
            for (const NodeShapes* n : plan[i].nodes) names << nodeName(*n->node);
        if (names.isEmpty()) names << QString::fromStdString(result->report.layers[i].fullName);
        result->layerNodes.push_back(names);
    }
    return result;
}

}  // namespace

EstimateJob::EstimateJob(QObject* parent) : QObject(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &EstimateJob::onFinished);
}

EstimateJob::~EstimateJob() {
    watcher_.waitForFinished();
}

void EstimateJob::start(std::shared_ptr<const Model> model, const TargetOptions& target) {
    if (isRunning()) return;
    running_ = true;
    watcher_.setFuture(QtConcurrent::run([model = std::move(model), target]() {
        Outcome outcome;  // everything is caught here: no exception may cross into Qt's machinery
        try {
            outcome.result = estimate(*model, target);
        } catch (const std::exception& e) {
            outcome.error = QString::fromStdString(e.what());
        } catch (...) {
            outcome.error = QStringLiteral("unknown error");
        }
        return outcome;
    }));
}

void EstimateJob::onFinished() {
    running_ = false;  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.result)
        emit finished(outcome.result);
    else
        emit failed(outcome.error);
}

}  // namespace npuwb::ui
