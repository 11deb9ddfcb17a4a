#pragma once
// A matmul benchmark sweep (npuwb::runMatmulBench) on a worker thread, with progress per point and Cancel: the
// sweep runs kernels for seconds, which must not block the GUI.
#include <QFutureWatcher>
#include <QString>

#include <atomic>
#include <memory>

#include "jobs/Job.h"
#include "npuwb/MatmulBench.h"

namespace npuwb::ui {

class MatmulBenchJob : public Job {
    Q_OBJECT
public:
    explicit MatmulBenchJob(QObject* parent = nullptr);
    /// Cancels and waits: the worker must not outlive what it reports to.
    ~MatmulBenchJob() override;
    /// Ignored while a sweep is in flight. The chip is looked up by name on the worker.
    void start(const QString& chip, const MatmulBenchOptions& options);

signals:
    void progress(int done, int total);
    void finished(std::shared_ptr<const MatmulBenchResult> result);
    void cancelled();
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const MatmulBenchResult> result;
        JobFailure failure;
    };
    void onFinished();

    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
