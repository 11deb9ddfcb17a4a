#pragma once
// Runs the advisor (npuwb::advisor::advise: the cost-model estimate plus every rule) on a worker thread.
#include <QFutureWatcher>
#include <QString>

#include <map>
#include <memory>
#include <vector>

#include "jobs/Job.h"
#include "npuwb/Advisor.h"
#include "jobs/EstimateJob.h"

namespace npuwb::ui {

class AdviseJob : public Job {
    Q_OBJECT
public:
    explicit AdviseJob(QObject* parent = nullptr);
    /// Waits for the worker: it must not outlive the object it reports to.
    ~AdviseJob() override;
    /// Ignored while advice is being computed.
    /// `shapes`: sizes for symbolic input dims (the model is reshaped on the worker); empty: as declared.
    void start(std::shared_ptr<const Model> model, const TargetOptions& target,
               const std::map<std::string, Shape>& shapes = {});

signals:
    /// `allPasses`: what applying every fixing pass together gives (single gains overlap and are never summed).
    void finished(std::shared_ptr<const std::vector<advisor::Finding>> findings, const advisor::PassesGain& allPasses);
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const std::vector<advisor::Finding>> findings;
        advisor::PassesGain allPasses;
        QString error;
    };
    void onFinished();

    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
