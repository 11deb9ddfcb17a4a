#pragma once
// Resolves a model's symbolic dims for the input shapes the user chose, on a worker: ONNX shape inference for the
// concrete sizes (milliseconds); after a run, for shapes only a run finds (a Resize whose sizes the graph computes),
// one run of the reference kernels. The model panel's MACs and inputs, and the Graph view's value shapes,
// then show "[1,3,480,480]" instead of "[?,3,?,?]". A request made while one is in flight replaces the queued one.
#include <QFutureWatcher>

#include <memory>
#include <optional>

#include "jobs/Job.h"
#include "models/InputShapes.h"
#include "npuwb/Report.h"
#include "npuwb/ShapeLearning.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::ui {

/// A model seen at given input shapes.
struct ShapedModel {
    std::shared_ptr<const Model> model;  // the version these shapes are of
    InputShapeMap inputShapes;
    bool ran = false;  // a reference run found the shapes inference could not
    LearnedShapes shapes;
    /// The summary at these shapes: MACs counted, inputs and outputs with their concrete dims.
    ModelSummary summary;
};

/// The summary of `model` with the shapes `shapes` learned: MACs from them, and every input or output they know
/// shown with its concrete dims. Safe on any thread.
ModelSummary summaryAtShapes(const Model& model, const LearnedShapes& shapes);

class ShapesJob : public Job {
    Q_OBJECT
public:
    explicit ShapesJob(QObject* parent = nullptr);
    /// Waits for the worker: it must not outlive the object it reports to.
    ~ShapesJob() override;
    /// Starts now, or after the request in flight (replacing any request still waiting). `allowRun`: where inference
    /// stops, run the model once on the reference kernels (the user just ran it: work was expected).
    void start(std::shared_ptr<const Model> model, const InputShapeMap& inputShapes, bool allowRun = false);

signals:
    void resolved(std::shared_ptr<const ShapedModel> shaped);
    /// The shapes do not fit the model (the message names the node or input).
    void failed(const QString& message);

private:
    struct Request {
        std::shared_ptr<const Model> model;
        InputShapeMap inputShapes;
        bool allowRun = false;
    };
    struct Outcome {
        std::shared_ptr<const ShapedModel> shaped;
        QString error;
    };
    static Outcome resolve(const Request& request);
    void onFinished();

    std::optional<Request> waiting_;
    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
