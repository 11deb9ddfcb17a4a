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
            const ChipProfile chip = findChipProfile(target.chip.toStdString());
            advisor::AdviseOptions options;
            options.dtype = target.dtype.toStdString();
            options.cores = target.cores;
            options.inputShapes = shapes;  // passes are measured on the model as Apply rewrites it, as opened
            advisor::Advice advice = advisor::adviseWithEstimate(*model, chip, options);
            outcome.findings = std::make_shared<const std::vector<advisor::Finding>>(std::move(advice.findings));
            outcome.allPasses = std::move(advice.allPasses);
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
        emit finished(outcome.findings, outcome.allPasses);
    else
        emit failed(outcome.error);
}

}  // namespace npuwb::ui
