#pragma once
// Profiles a model locally on a worker thread. Progress reaches the GUI as queued signals; Cancel sets an
// atomic flag the engine checks between nodes, so even a long single run stops promptly.
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"
#include "npuwb/Profiler.h"

namespace npuwb::ui {

class ProfileJob : public QObject {
    Q_OBJECT
public:
    explicit ProfileJob(QObject* parent = nullptr);
    /// Cancels and waits for a run in flight (the worker reports to this object).
    ~ProfileJob() override;

    /// True from start() until the result signal: the worker may be done before its result is delivered.
    bool isRunning() const { return running_; }
    /// Ignored while a run is in flight.
    void start(std::shared_ptr<const Model> model, const RunOptions& options);

public slots:
    void cancel();

signals:
    /// phase is "warm-up" or "run"; done/total count runs within the phase.
    void progress(const QString& phase, int done, int total);
    void finished(std::shared_ptr<const Report> report);
    void cancelled();
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const Report> report;
        bool cancelled = false;
        QString error;
    };
    void onFinished();

    std::atomic<bool> cancel_{false};
    QFutureWatcher<Outcome> watcher_;
    bool running_ = false;
};

}  // namespace npuwb::ui
