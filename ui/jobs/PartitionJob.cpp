#include "jobs/PartitionJob.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/DeviceProfile.h"
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Partition.h"

namespace npuwb::ui {

PartitionJob::PartitionJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &PartitionJob::onFinished);
}

PartitionJob::~PartitionJob() {
    requestCancel();
    watcher_.waitForFinished();
}

void PartitionJob::start(std::shared_ptr<const Model> model, const PartitionRequest& request) {
    if (isRunning() || !model) return;
    setRunning(true);
    // Progress crosses threads as queued calls; QPointer drops them if the job is gone.
    QPointer<PartitionJob> self(this);
    auto report = [self](const std::string& phase, int done, int total) {
        QMetaObject::invokeMethod(self, [self, phase = QString::fromStdString(phase), done, total] {
            if (self) emit self->progress(phase, done, total);
        }, Qt::QueuedConnection);
    };
    watcher_.setFuture(QtConcurrent::run([this, model = std::move(model), request, report]() mutable {
        Outcome outcome;
        outcome.failure = catchFailure([&] {  // no exception may cross into Qt's machinery
            const DeviceProfile device = findDeviceProfile(request.device.toStdString());
            // Symbolic dims fixed as `npuwb-cli partition --input-shape` does: the same model, the same figures.
            if (!request.inputShapes.empty())
                model = std::make_shared<const Model>(withInputShapes(*model, request.inputShapes));
            PartitionOptions options;
            options.schedules.clear();
            for (const QString& schedule : request.schedules) options.schedules.push_back(schedule.toStdString());
            options.frames = request.frames;
            PartitionControl control;
            control.progress = report;
            control.cancel = cancelFlag();
            outcome.report = std::make_shared<const Report>(partitionModel(model, device, options, control));
        });
        if (cancelRequested() && !outcome.report) outcome.failure.cancelled = true;
        return outcome;
    }));
}

void PartitionJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.failure.cancelled)
        emit cancelled();
    else if (outcome.report)
        emit finished(outcome.report);
    else
        emit failed(outcome.failure.error);
}

}  // namespace npuwb::ui
