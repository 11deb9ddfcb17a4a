#include "jobs/AdviseJob.h"

#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"

namespace npuwb::ui {

AdviseJob::AdviseJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &AdviseJob::onFinished);
}

AdviseJob::~AdviseJob() {
    watcher_.waitForFinished();
}

void AdviseJob::start(std::shared_ptr<const Model> model, const TargetOptions& target,
                      const std::map<std::string, Shape>& shapes) {
    if (isRunning()) return;
    setRunning(true);
    watcher_.setFuture(QtConcurrent::run([model = std::move(model), target, shapes]() mutable {
        Outcome outcome;  // everything is caught here: no exception may cross into Qt's machinery
        try {
            if (!shapes.empty()) model = std::make_shared<const Model>(withInputShapes(*model, shapes));
            const ChipProfile chip = findChipProfile(target.chip.toStdString());
            advisor::AdviseOptions options;
            options.dtype = target.dtype.toStdString();
            options.cores = target.cores;
            outcome.findings = std::make_shared<const std::vector<advisor::Finding>>(
                advisor::advise(*model, chip, options));
        } catch (const std::exception& e) {
            outcome.error = QString::fromStdString(e.what());
        } catch (...) {
            outcome.error = QStringLiteral("unknown error");
        }
        return outcome;
    }));
}

void AdviseJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.findings)
        emit finished(outcome.findings);
    else
        emit failed(outcome.error);
}

}  // namespace npuwb::ui
