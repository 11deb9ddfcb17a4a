#include "jobs/ShapesJob.h"

#include <QtConcurrent/QtConcurrentRun>

#include "npuwb/ModelSummary.h"

namespace npuwb::ui {

ModelSummary summaryAtShapes(const Model& model, const LearnedShapes& shapes) {
    ModelSummary summary = summarizeModel(model, shapes);
    for (auto* tensors : {&summary.inputs, &summary.outputs})
        for (TensorDesc& tensor : *tensors)
            if (const Shape* known = shapes.find(tensor.name)) {
                tensor.shape.clear();
                for (const int64_t dim : *known) tensor.shape.push_back(std::to_string(dim));
            }
    return summary;
}

ShapesJob::ShapesJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &ShapesJob::onFinished);
}

ShapesJob::~ShapesJob() {
    watcher_.waitForFinished();
}

void ShapesJob::start(std::shared_ptr<const Model> model, const InputShapeMap& inputShapes, bool allowRun) {
    Request request{std::move(model), inputShapes, allowRun};
    if (isRunning()) {
        waiting_ = std::move(request);
        return;
    }
    setRunning(true);
    watcher_.setFuture(QtConcurrent::run(&ShapesJob::resolve, std::move(request)));
}

ShapesJob::Outcome ShapesJob::resolve(const Request& request) {
    Outcome outcome;
    const JobFailure failure = catchFailure([&] {
        auto shaped = std::make_shared<ShapedModel>();
        shaped->model = request.model;
        shaped->inputShapes = request.inputShapes;
        // Inference first: a reference run of a big model takes seconds, worth it only after the user ran it.
        shaped->shapes = learnShapes(
            *request.model, ShapeLearningOptions{.inputShapes = request.inputShapes, .allowReferenceRun = false});
        if (request.allowRun && !shaped->shapes.unresolved.empty()) {
            shaped->shapes = learnShapes(*request.model, ShapeLearningOptions{.inputShapes = request.inputShapes});
            shaped->ran = true;
        }
        shaped->summary = summaryAtShapes(*request.model, shaped->shapes);
        outcome.shaped = std::move(shaped);
    });
    outcome.error = failure.error;
    return outcome;
}

void ShapesJob::onFinished() {
    setRunning(false);
    const Outcome outcome = watcher_.result();
    if (waiting_) {  // the shapes changed meanwhile: this result is already stale
        Request next = std::move(*waiting_);
        waiting_.reset();
        start(std::move(next.model), next.inputShapes, next.allowRun);
        return;
    }
    if (outcome.shaped)
        emit resolved(outcome.shaped);
    else
        emit failed(outcome.error);
}

}  // namespace npuwb::ui
