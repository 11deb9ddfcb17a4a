#include "jobs/ProfileJob.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/Error.h"
#include "npuwb/Session.h"

namespace npuwb::ui {

ProfileJob::ProfileJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &ProfileJob::onFinished);
}

ProfileJob::~ProfileJob() {
    cancel_ = true;
    watcher_.waitForFinished();
}

void ProfileJob::cancel() {
    if (isRunning()) cancel_ = true;
}

void ProfileJob::start(std::shared_ptr<const Model> model, const RunOptions& options) {
    if (isRunning()) return;
    setRunning(true);
    cancel_ = false;
    ProfileControl control;
    control.cancel = &cancel_;
    // Called on the worker: post to the GUI thread instead of touching any widget from here. The destructor
    // waits for the worker, so `this` outlives every call.
    control.progress = [this](const std::string& phase, int done, int total) {
        QMetaObject::invokeMethod(
            this, [this, phase = QString::fromStdString(phase), done, total] { emit progress(phase, done, total); },
            Qt::QueuedConnection);
    };
    watcher_.setFuture(QtConcurrent::run([model = std::move(model), options = RunOptions(options), control]() mutable {
        Outcome outcome;
        try {
            std::string warning;
            options.executor.backend = usableBackendName(options.executor.backend, warning);
            outcome.warning = QString::fromStdString(warning);
            outcome.report = std::make_shared<const Report>(profileModel(model, options, control));
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::Cancelled)
                outcome.cancelled = true;
            else
                outcome.error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            outcome.error = QString::fromStdString(e.what());
        } catch (...) {
            outcome.error = QStringLiteral("unknown error");
        }
        return outcome;
    }));
}

void ProfileJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.report)
        emit finished(outcome.report, outcome.warning);
    else if (outcome.cancelled)
        emit cancelled();
    else
        emit failed(outcome.error);
}

}  // namespace npuwb::ui
