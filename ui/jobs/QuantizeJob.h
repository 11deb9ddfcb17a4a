#pragma once
// Quantization on a worker thread, with progress and cancel: calibrate + build the QDQ model + per-layer
// accuracy analysis (Quantize dialog), or rebuild with per-layer precision overrides from an existing
// calibration and re-analyse (Accuracy view's Re-evaluate: interactive tuning without recalibrating).
#include <QFutureWatcher>
#include <QString>

#include <atomic>
#include <map>
#include <memory>

#include "jobs/Job.h"
#include "npuwb/Preprocessing.h"
#include "npuwb/Quantizer.h"
#include "npuwb/Report.h"

namespace npuwb::ui {

struct QuantizeRequest {
    std::shared_ptr<const Model> floatModel;
    QString dataset;  // dataset.txt or a folder of images
    imageio::PreprocessingSet preprocessing;
    quant::QuantizeOptions options;
    size_t accuracySamples = 4;  // samples the per-layer analysis averages over (0: all)
};

/// What a quantization produced; kept so the model can be re-evaluated with other per-layer precisions.
struct QuantizeOutcome {
    QuantizeRequest request;
    /// The float model calibration ran (prepared: folds, fusions, opset): its value names key the calibration.
    std::shared_ptr<const Model> preparedFloat;
    std::shared_ptr<const Model> quantModel;
    quant::Calibration calibration;
    std::map<std::string, quant::Precision> precisions;
    std::optional<quant::HybridResult> hybrid;
    AccuracySection accuracy;
};

class QuantizeJob : public Job {
    Q_OBJECT
public:
    explicit QuantizeJob(QObject* parent = nullptr);
    /// Cancels and waits: the worker must not outlive what it reports to.
    ~QuantizeJob() override;
    /// Ignored while a job is in flight.
    void start(const QuantizeRequest& request);
    /// Rebuilds the QDQ model of `previous` with these per-node precisions and re-runs the analysis.
    void reevaluate(std::shared_ptr<const QuantizeOutcome> previous, const std::map<std::string, quant::Precision>& precisions);

signals:
    /// phase: "range" | "histogram" | "sensitivity" | "hybrid" | "accuracy"
    void progress(const QString& phase, int done, int total);
    void finished(std::shared_ptr<const QuantizeOutcome> outcome);
    void cancelled();
    void failed(const QString& message);

private:
    struct Result {
        std::shared_ptr<const QuantizeOutcome> outcome;
        JobFailure failure;
    };
    template <class Work> void launch(Work work);
    void onFinished();

    QFutureWatcher<Result> watcher_;
};

}  // namespace npuwb::ui
