#pragma once
// Heterogeneous partitioning on a worker thread (npuwb::partitionModel): load the device profile, plan the split,
// predict the schedules and, when every unit has a local executor, run them on the pinned worker pools. Planning
// calibrates costs by running the model, so all of it is heavy: progress reaches the GUI as queued signals, and
// Cancel sets the atomic flag the engine checks between stages and frames.
#include <QFutureWatcher>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>

#include "jobs/Job.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

namespace npuwb::ui {

struct PartitionRequest {
    QString device = QStringLiteral("local-2core");  // a profile name (resources/devices) or a .json path
    QStringList schedules = {QStringLiteral("single"), QStringLiteral("serial"), QStringLiteral("pipelined")};
    int frames = 10;  // few enough that every bar of the Gantt chart is readable
    /// The sizes the user chose for symbolic input dims (Workbench::inputShapes), as every job uses them.
    std::map<std::string, Shape> inputShapes;
};

class PartitionJob : public Job {
    Q_OBJECT
public:
    explicit PartitionJob(QObject* parent = nullptr);
    /// Cancels and waits: the worker must not outlive the object it reports to.
    ~PartitionJob() override;
    /// Ignored while a partition is in flight.
    void start(std::shared_ptr<const Model> model, const PartitionRequest& request);

signals:
    /// phase: "costs", "plan", "calibrate", "single", "serial", "pipelined"
    void progress(const QString& phase, int done, int total);
    /// A report of kind "partition": the plan, the schedules' figures and their predicted and measured timelines.
    void finished(std::shared_ptr<const Report> report);
    void cancelled();
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const Report> report;
        JobFailure failure;
    };
    void onFinished();

    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
