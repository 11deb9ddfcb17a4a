#pragma once
// Profiles a model locally on a worker thread. The backend is resolved and loaded there ("auto": the fastest
// plugin found), so a slow plugin load never blocks the GUI. Progress reaches the GUI as queued signals; Cancel sets
// an atomic flag the engine checks between nodes, so even a long single run stops promptly.
#include <QFutureWatcher>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

#include "jobs/Job.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"
#include "npuwb/Profiler.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::ui {

class ProfileJob : public Job {
    Q_OBJECT
public:
    explicit ProfileJob(QObject* parent = nullptr);
    /// Cancels and waits for a run in flight (the worker reports to this object).
    ~ProfileJob() override;
    /// Ignored while a run is in flight. With `contexts`, the model runs as that many concurrent execution contexts
    /// over its batch slices (profileContexts: multi-context multi-batch on the CPU); progress then counts passes.
    void start(std::shared_ptr<const Model> model, const RunOptions& options,
               std::optional<ModelRunOptions> contexts = std::nullopt);

signals:
    /// phase is "warm-up" or "run"; done/total count runs within the phase.
    void progress(const QString& phase, int done, int total);
    /// The report names the backend that ran and its threads; `warning` says why a requested backend could not
    /// load (the run then used the reference kernels), else it is empty.
    void finished(std::shared_ptr<const Report> report, const QString& warning);
    void cancelled();
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const Report> report;
        QString warning;
        JobFailure failure;
    };
    void onFinished();

    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
