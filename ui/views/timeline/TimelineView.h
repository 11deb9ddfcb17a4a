#pragma once
// The Timeline tab: heterogeneous partitioning with pipelining, as `npuwb-cli partition`. Pick a device profile
// (resources/devices), the schedules and the frames, press Partition (F8): a worker plans the split, predicts the
// schedules and, when every unit runs on this machine, executes them on pinned worker pools. Shown: the figures of
// every schedule (frames/s predicted and measured), the chosen schedule's predicted and measured timelines as a
// Gantt chart on one time axis, and the placement table (node -> unit, stage, why). Clicking a node or a bar
// selects it (a stage: all its nodes) everywhere; the view follows the shared selection. The report saves as JSON
// (File > Save Partition Report), as `npuwb-cli partition --json` writes it.
#include <QStringList>

#include <memory>

#include "core/WorkbenchView.h"
#include "npuwb/Report.h"
#include "views/timeline/RunTimeline.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace npuwb::ui {

class GanttChart;
class PartitionJob;
class PartitionTableModel;

class TimelineView : public WorkbenchView {
    Q_OBJECT
public:
    TimelineView(Workbench& workbench, QWidget* parent);

    QList<ViewAction> viewActions() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;
    /// `npuwb MODEL --view timeline`: partitions with the remembered device, schedules and frames.
    bool startFromCommandLine() override;

    /// The controls (tests set them as a user would).
    QComboBox* deviceBox() const { return device_; }
    QComboBox* scheduleBox() const { return schedule_; }
    QSpinBox* framesBox() const { return frames_; }
    /// Which executed schedule's timelines the chart shows.
    QComboBox* shownScheduleBox() const { return shown_; }
    /// The run timeline on offer (views/timeline/RunTimeline.h), nullopt when the last report has none.
    const std::optional<RunTimeline>& runTimeline() const { return runTimeline_; }
    QAction* partitionAction() const { return partitionAction_; }
    QAction* cancelAction() const { return cancelAction_; }
    QAction* saveAction() const { return saveAction_; }
    PartitionJob* job() const { return job_; }
    GanttChart* chart() const { return chart_; }
    PartitionTableModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLabel* summaryLabel() const { return summary_; }
    QLabel* hoverLabel() const { return hover_; }
    QLabel* legendLabel() const { return legend_; }
    const Report* report() const { return report_.get(); }

public slots:
    /// Partitions the current model with the chosen settings (ignored without a model or while busy).
    void startPartition();
    void showReport(std::shared_ptr<const Report> report);
    /// The workbench's last run: offered as "last run" in "Timeline of" (contexts lanes, or its layers in order).
    void showRunReport();
    /// Writes the shown partition report (JSON, as `npuwb-cli partition --json`); false (and a message) on failure.
    bool saveReportTo(const QString& path);
    void highlightNodes(const QStringList& names);

signals:
    void nodesClicked(const QStringList& names);
    void partitionShown(std::shared_ptr<const Report> report);

private:
    void partition();  // startPartition once the input shapes are known
    void clear(const QString& hint);
    void showSchedule();
    void onStageClicked(int64_t stage);
    void updateActions();

    PartitionJob* job_;
    QAction* partitionAction_;
    QAction* cancelAction_;
    QAction* saveAction_;
    void fillShown();

    std::shared_ptr<const Report> report_;
    std::optional<RunTimeline> runTimeline_;
    QComboBox* device_;
    QComboBox* schedule_;
    QSpinBox* frames_;
    QComboBox* shown_;
    QLabel* summary_;
    QLabel* legend_;  // the last run's op type colours
    GanttChart* chart_;
    PartitionTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLabel* hover_;
};

}  // namespace npuwb::ui
