#include "jobs/MatmulBenchJob.h"

#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

MatmulBenchJob::MatmulBenchJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &MatmulBenchJob::onFinished);
}

MatmulBenchJob::~MatmulBenchJob() {
    requestCancel();
    watcher_.waitForFinished();
}

void MatmulBenchJob::start(const QString& chip, const MatmulBenchOptions& options) {
    if (isRunning()) return;
    setRunning(true);
    QPointer<MatmulBenchJob> self(this);
    watcher_.setFuture(QtConcurrent::run([this, self, chipName = chip.toStdString(), options]() {
        Outcome outcome;
        outcome.failure = catchFailure([&] {  // no exception may cross into Qt's machinery
            const ChipProfile profile = findChipProfile(chipName);
            auto progress = [this, self](size_t done, size_t total) {
                QMetaObject::invokeMethod(self, [self, done, total] {
                    if (self) emit self->progress(static_cast<int>(done), static_cast<int>(total));
                    });
                    return !cancelRequested();
                };
                outcome.result = std::make_shared<MatmulBenchResult>(runMatmulBench(profile, options, progress));
        });
        return outcome;
    }));
}

void MatmulBenchJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.result)
        emit finished(outcome.result);
    else if (outcome.failure.cancelled)
        emit cancelled();
    else
        emit failed(outcome.failure.error);
}

}  // namespace npuwb::ui
