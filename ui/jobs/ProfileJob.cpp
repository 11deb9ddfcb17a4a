#include "jobs/ProfileJob.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/ContextProfile.h"
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"

namespace npuwb::ui {

ProfileJob::ProfileJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &ProfileJob::onFinished);
}

ProfileJob::~ProfileJob() {
    requestCancel();
    watcher_.waitForFinished();
}

void ProfileJob::start(std::shared_ptr<const Model> model, const RunOptions& options,
                       std::optional<ModelRunOptions> contexts) {
    if (isRunning()) return;
    setRunning(true);
    ProfileControl control;
    control.cancel = cancelFlag();
    // Called on the worker: post to the GUI thread instead of touching any widget from here. The destructor
    // waits for the worker, so `this` outlives every call.
    control.progress = [this](const std::string& phase, int done, int total) {
        QMetaObject::invokeMethod(
            this, [this, phase = QString::fromStdString(phase), done, total] { emit progress(phase, done, total); },
            Qt::QueuedConnection);
    };
    watcher_.setFuture(QtConcurrent::run([model = std::move(model), options = RunOptions(options), control,
                                          contexts = std::move(contexts)]() mutable {
        Outcome outcome;
        outcome.failure = catchFailure([&] {  // no exception may cross into Qt's machinery
            std::string warning;
            options.executor.backend = usableBackendName(options.executor.backend, warning);
            outcome.warning = QString::fromStdString(warning);
            // Symbolic dims fixed: the report's inputs, MACs and shapes are those of the sizes run.
            if (!options.inputShapes.empty())
                model = std::make_shared<const Model>(withInputShapes(*model, options.inputShapes));
            outcome.report = std::make_shared<const Report>(
                contexts ? profileContexts(model, options.executor, *contexts, control) : profileModel(model, options, control));
        });
        return outcome;
    }));
}

void ProfileJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.report)
        emit finished(outcome.report, outcome.warning);
    else if (outcome.failure.cancelled)
        emit cancelled();
    else
        emit failed(outcome.failure.error);
}

}  // namespace npuwb::ui
