#include "jobs/EstimateJob.h"

#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
#include "npuwb/ModelIO.h"

namespace npuwb::ui {

namespace {

std::shared_ptr<const EstimateResult> estimate(const Model& model, const TargetOptions& target) {
    const ChipProfile chip = findChipProfile(target.chip.toStdString());
    EstimateOptions options;
    options.dtype = target.dtype.toStdString();
    options.cores = target.cores;
    auto result = std::make_shared<EstimateResult>();
    result->target = target;
    result->report = estimateModel(model, chip, options);
    // Selecting a fused layer highlights every node it covers.
    for (const LayerRow& row : result->report.layers) {
        QStringList names{QString::fromStdString(row.fullName)};
        for (const std::string& fused : row.fusedNodes) names << QString::fromStdString(fused);
        result->layerNodes.push_back(names);
    }
    return result;
}

}  // namespace

EstimateJob::EstimateJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &EstimateJob::onFinished);
}

EstimateJob::~EstimateJob() {
    watcher_.waitForFinished();
}

void EstimateJob::start(std::shared_ptr<const Model> model, const TargetOptions& target,
                        const std::map<std::string, Shape>& shapes) {
    if (isRunning()) return;
    setRunning(true);
    watcher_.setFuture(QtConcurrent::run([model = std::move(model), target, shapes]() mutable {
        Outcome outcome;  // everything is caught here: no exception may cross into Qt's machinery
        try {
            // Symbolic dims fixed as `npuwb-cli estimate --input-shape` does: the same model, the same figures.
            if (!shapes.empty()) model = std::make_shared<const Model>(withInputShapes(*model, shapes));
            outcome.result = estimate(*model, target);
        } catch (const std::exception& e) {
            outcome.error = QString::fromStdString(e.what());
        } catch (...) {
            outcome.error = QStringLiteral("unknown error");
        }
        return outcome;
    }));
}

void EstimateJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.result)
        emit finished(outcome.result);
    else
        emit failed(outcome.error);
}

}  // namespace npuwb::ui
