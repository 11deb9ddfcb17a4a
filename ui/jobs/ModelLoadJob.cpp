#include "jobs/ModelLoadJob.h"

#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/Error.h"
#include "npuwb/LayerIds.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ModelRuntimes.h"

namespace npuwb::ui {

namespace {

// Layer rows from the IR alone, so the table is useful before the first run. Shapes come from ONNX shape
// inference; unknown dims show as -1 ("?").
std::vector<LayerRow> staticLayerRows(const Model& model) {
    const Graph& graph = model.graph;
    auto shapeOf = [&](const std::string& name, bool* known) {
        std::vector<int64_t> shape;
        if (const Tensor* init = graph.initializers.count(name) ? &graph.initializers.at(name) : nullptr)
            return std::vector<int64_t>(init->shape().begin(), init->shape().end());
        const ValueInfo* info = graph.findValueInfo(name);
        if (!info || !info->type.shape) {
            *known = false;
            return shape;
        }
        for (const Dim& d : *info->type.shape) {
            shape.push_back(d.known() ? d.value : -1);
            *known = *known && d.known();
        }
        return shape;
    };
    std::vector<LayerRow> rows;
    LayerIds ids(graph);
    for (size_t index : graph.topologicalOrder()) {
        const Node& node = graph.nodes[index];
        LayerRow row;
        row.fullName = node.layerName();  // as profiles name it, so a run's rows replace these by name
        row.id = ids.idOf(row.fullName);
        row.opType = node.opType;
        bool known = true;
        for (const auto& in : node.inputs)
            if (!in.empty()) row.inputShapes.push_back(shapeOf(in, &known));
        for (const auto& out : node.outputs)
            if (!out.empty()) row.outputShapes.push_back(shapeOf(out, &known));
        if (!node.outputs.empty())
            if (const ValueInfo* info = graph.findValueInfo(node.outputs.front()))
                row.dataType = std::string(dtypeName(info->type.dtype));
        if (known) row.macs = nodeMacs(node, row.inputShapes, row.outputShapes);
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

ModelLoadJob::ModelLoadJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &ModelLoadJob::onFinished);
}

ModelLoadJob::~ModelLoadJob() {
    watcher_.waitForFinished();
}

void ModelLoadJob::start(const QString& path) {
    if (isRunning()) return;
    setRunning(true);
    path_ = path;
    watcher_.setFuture(QtConcurrent::run(&ModelLoadJob::load, path));
}

std::shared_ptr<const LoadedModel> ModelLoadJob::describe(const QString& path, std::shared_ptr<const Model> model) {
    auto loaded = std::make_shared<LoadedModel>();
    loaded->path = path;
    loaded->summary = summarizeModel(*model);
    // Where the recorded shapes stop (Shape/Gather chains), ONNX's inference for the declared input shapes
    // usually goes on: milliseconds, so opening stays quick. A reference run is left to the views that need one.
    if (!loaded->summary.uncountedNodes.empty() && inputsWithSymbolicDims(*model).empty())
        loaded->summary =
            summarizeModel(*model, learnShapes(*model, ShapeLearningOptions{.allowReferenceRun = false}));
    loaded->layers = staticLayerRows(*model);
    loaded->model = std::move(model);
    return loaded;
}

std::shared_ptr<const LoadedModel> ModelLoadJob::describeCompiled(const QString& path, const QString& runtime) {
    const QFileInfo info(path);
    if (!info.isFile()) failInput(path.toStdString() + ": no such file");
    auto loaded = std::make_shared<LoadedModel>();
    loaded->path = path;
    loaded->runtime = runtime;
    loaded->model = std::make_shared<const Model>();
    loaded->summary.path = path.toStdString();
    loaded->summary.name = info.completeBaseName().toStdString();
    loaded->summary.producer = tr("compiled %1 model, runs on the board's %2 runtime")
                                   .arg(info.suffix().toUpper(), runtime)
                                   .toStdString();
    return loaded;
}

ModelLoadJob::Outcome ModelLoadJob::load(const QString& path) {
    // Runs on a pool thread: everything is caught here so no exception crosses into Qt's machinery.
    Outcome outcome;
    try {
        if (const std::string runtime = modelRuntimeForFile(path.toStdString()); !runtime.empty()) {
            outcome.model = describeCompiled(path, QString::fromStdString(runtime));
            return outcome;
        }
        outcome.model = describe(path, std::make_shared<const Model>(loadModel(path.toStdString())));
    } catch (const std::exception& e) {
        outcome.error = QString::fromStdString(e.what());
    } catch (...) {
        outcome.error = tr("unknown error");
    }
    return outcome;
}

void ModelLoadJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.model)
        emit loaded(outcome.model);
    else
        emit failed(path_, outcome.error);
}

}  // namespace npuwb::ui
