#pragma once
// Runs the board-less cost model (npuwb::estimateModel) for a chip on a worker thread, like ProfileJob: the
// estimate resolves shapes and may run the reference kernels once, which must not block the GUI.
#include <QFutureWatcher>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <vector>

#include "jobs/Job.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

namespace npuwb::ui {

/// What the Estimate view needs from a chip, dtype and core count.
struct TargetOptions {
    QString chip = QStringLiteral("rk3588");
    QString dtype = QStringLiteral("int8");  // "int8" | "fp16"
    int cores = 1;
};

/// An estimate and, per estimated layer (same order as report.layers), the ONNX nodes it covers: a fused
/// layer (Conv+Relu, Conv+Add, ...) covers several.
struct EstimateResult {
    TargetOptions target;
    Report report;
    std::vector<QStringList> layerNodes;
};

class EstimateJob : public Job {
    Q_OBJECT
public:
    explicit EstimateJob(QObject* parent = nullptr);
    /// Waits for the worker: it must not outlive the object it reports to.
    ~EstimateJob() override;
    /// Ignored while an estimate is in flight.
    /// `shapes`: sizes for symbolic input dims (the model is reshaped on the worker); empty: as declared.
    void start(std::shared_ptr<const Model> model, const TargetOptions& target,
               const std::map<std::string, Shape>& shapes = {});

signals:
    void finished(std::shared_ptr<const EstimateResult> result);
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const EstimateResult> result;
        QString error;
    };
    void onFinished();

    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
