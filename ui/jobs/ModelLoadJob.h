#pragma once
// Opens a model on a worker thread: ONNX import, shape inference and the summary can take seconds for big
// models, and the GUI thread must never block.
#include <QFutureWatcher>
#include <QString>

#include <memory>
#include <vector>

#include "jobs/Job.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

namespace npuwb::ui {

/// Everything the GUI shows about a model before it runs.
struct LoadedModel {
    QString path;
    /// Non-empty for a compiled model (.rknn): the runtime plugin that runs it (on a board, through the agent).
    /// Such a model has no graph here (`model` is empty, `layers` too): its inputs, outputs and layers are what the
    /// board's runtime reports once it ran.
    QString runtime;
    std::shared_ptr<const Model> model;
    ModelSummary summary;
    std::vector<LayerRow> layers;  // static rows in execution order (no times yet)
};

class ModelLoadJob : public Job {
    Q_OBJECT
public:
    explicit ModelLoadJob(QObject* parent = nullptr);
    /// Waits for a load in flight: the worker must not outlive the object it reports to.
    ~ModelLoadJob() override;
    /// Ignored while a load is running (the window disables Open meanwhile).
    void start(const QString& path);
    /// A compiled model: the file's facts only (see LoadedModel::runtime).
    static std::shared_ptr<const LoadedModel> describeCompiled(const QString& path, const QString& runtime);
    /// Summary and static layer rows of a model already in memory (e.g. after a pass rewrote it); throws on
    /// models the summary cannot handle. Safe on any thread.
    static std::shared_ptr<const LoadedModel> describe(const QString& path, std::shared_ptr<const Model> model);

signals:
    void loaded(std::shared_ptr<const LoadedModel> model);
    void failed(const QString& path, const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const LoadedModel> model;
        QString error;
    };
    static Outcome load(const QString& path);
    void onFinished();

    QString path_;
    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
