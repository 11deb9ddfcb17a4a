#include "jobs/QuantizeJob.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/DatasetSampleSource.h"
#include "npuwb/Accuracy.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

QuantizeJob::QuantizeJob(QObject* parent) : Job(parent) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &QuantizeJob::onFinished);
}

QuantizeJob::~QuantizeJob() {
    requestCancel();
    watcher_.waitForFinished();
}

namespace {

AccuracySection analyze(const QuantizeRequest& request, const Model& preparedFloat, const Model& quantModel,
                        const quant::SampleSource& samples, const std::atomic<bool>& cancel,
                        const std::function<void(size_t, size_t)>& progress) {
    quant::AccuracyOptions options;
    options.executor = request.options.executor;
    options.maxSamples = request.accuracySamples;
    quant::AccuracyControl control;
    control.cancel = &cancel;
    control.progress = progress;
    AccuracySection section = quant::analyzeAccuracy(preparedFloat, quantModel, samples, options, control);
    section.floatModel = request.floatModel->sourcePath;
    section.scheme = std::string(quant::schemeName(request.options.scheme));
    return section;
}

}  // namespace

template <class Work> void QuantizeJob::launch(Work work) {
    setRunning(true);
    // Progress crosses threads as queued calls; QPointer drops them if the job is gone.
    QPointer<QuantizeJob> self(this);
    auto report = [self](const QString& phase, size_t done, size_t total) {
        QMetaObject::invokeMethod(self, [self, phase, done, total] {
            if (self) emit self->progress(phase, static_cast<int>(done), static_cast<int>(total));
        }, Qt::QueuedConnection);
    };
    watcher_.setFuture(QtConcurrent::run([work = std::move(work), report, this]() {
        Result result;
        result.failure = catchFailure([&] { result.outcome = work(report); });  // nothing may throw into Qt
        if (cancelRequested()) result.failure.cancelled = true;
        return result;
    }));
}

void QuantizeJob::start(const QuantizeRequest& request) {
    if (isRunning()) return;
    launch([request, this](const auto& report) {
        const auto samples = imageio::makeSampleSource(request.dataset.toStdString(),
                                                       imageio::modelFeedInputs(*request.floatModel),
                                                       request.preprocessing);
        quant::QuantizeControl control;
        control.cancel = cancelFlag();
        control.progress = [&](const std::string& phase, size_t done, size_t total) {
            report(QString::fromStdString(phase), done, total);
        };
        quant::QuantizeResult result = quant::quantizeModel(*request.floatModel, *samples, request.options, control);
        auto outcome = std::make_shared<QuantizeOutcome>();
        outcome->request = request;
        outcome->calibration = std::move(result.calibration);
        outcome->precisions = std::move(result.precisions);
        outcome->hybrid = std::move(result.hybrid);
        outcome->preparedFloat = std::make_shared<const Model>(std::move(result.floatModel));
        outcome->quantModel = std::make_shared<const Model>(std::move(result.model));
        outcome->accuracy = analyze(request, *outcome->preparedFloat, *outcome->quantModel, *samples, *cancelFlag(),
                                    [&](size_t d, size_t t) { report(QStringLiteral("accuracy"), d, t); });
        return std::shared_ptr<const QuantizeOutcome>(outcome);
    });
}

void QuantizeJob::reevaluate(std::shared_ptr<const QuantizeOutcome> previous,
                             const std::map<std::string, quant::Precision>& precisions) {
    if (isRunning() || !previous) return;
    launch([previous, precisions, this](const auto& report) {
        const QuantizeRequest& request = previous->request;
        const auto samples = imageio::makeSampleSource(request.dataset.toStdString(),
                                                       imageio::modelFeedInputs(*request.floatModel),
                                                       request.preprocessing);
        auto outcome = std::make_shared<QuantizeOutcome>(*previous);
        outcome->precisions = previous->precisions;
        for (const auto& [node, precision] : precisions) outcome->precisions[node] = precision;
        outcome->quantModel = std::make_shared<const Model>(
            quant::buildQdqModel(*previous->preparedFloat, previous->calibration, request.options, outcome->precisions));
        outcome->accuracy = analyze(request, *outcome->preparedFloat, *outcome->quantModel, *samples, *cancelFlag(),
                                    [&](size_t d, size_t t) { report(QStringLiteral("accuracy"), d, t); });
        return std::shared_ptr<const QuantizeOutcome>(outcome);
    });
}

void QuantizeJob::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Result result = watcher_.result();
    if (result.failure.cancelled)
        emit cancelled();
    else if (result.outcome)
        emit finished(result.outcome);
    else
        emit failed(result.failure.error);
}

}  // namespace npuwb::ui
