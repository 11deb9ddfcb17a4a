#include "views/timeline/TimelineView.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>
#include <optional>

#include "core/LayerNameDelegate.h"
#include "core/OnnxOnlyAction.h"
#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "jobs/PartitionJob.h"
#include "models/Format.h"
#include "models/InputShapes.h"
#include "models/LayerFilter.h"
#include "models/LayerSelection.h"
#include "models/OpTypeColors.h"
#include "models/PartitionTableModel.h"
#include "npuwb/DeviceProfile.h"
#include "views/timeline/GanttChart.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(TimelineView, "timeline", QT_TRANSLATE_NOOP("views", "T&imeline"), Qt::ALT | Qt::Key_6, 60);

namespace {

const QString kAllSchedules = QStringLiteral("all");
const QStringList kScheduleOrder = {QStringLiteral("single"), QStringLiteral("serial"), QStringLiteral("pipelined")};

std::optional<Trace> findTrace(const Report& report, const std::string& schedule, const std::string& source) {
    for (const Trace& t : report.traces)
        if (t.name == schedule && t.source == source) return t;
    return std::nullopt;
}

QString fps(double value) { return QString::number(value, 'f', value < 10 ? 2 : 1); }

// The plan in one line and the schedules as a small table: what the CLI prints, at a glance.
QString summaryOf(const Report& report) {
    const PartitionSection& p = *report.partition;
    int64_t cutBytes = 0;
    for (const PartitionCut& c : p.cuts) cutBytes += c.bytes;
    QStringList stages;
    for (const PartitionStage& s : p.stages)
        stages << QStringLiteral("<span style='background:%1'>&nbsp;s%2&nbsp;</span> %3, %4 nodes, %5")
                      .arg(PartitionTableModel::stageColor(s.id).lighter(150).name())
                      .arg(s.id)
                      .arg(QString::fromStdString(s.unit).toHtmlEscaped())
                      .arg(s.nodes.size())
                      .arg(formatMicros(s.predictedUs));
    // The input shapes it was planned for lead: per-frame bytes and times mean nothing without them.
    QString text = TimelineView::tr("<b>%1</b> (%2) · %8: %3 stage(s): %4 · %5 cut tensor(s), %6 per frame · %7 per "
                                    "hand-off")
                       .arg(QString::fromStdString(p.device).toHtmlEscaped(), QString::fromStdString(p.strategy))
                       .arg(p.stages.size())
                       .arg(stages.join(QStringLiteral(" · ")))
                       .arg(p.cuts.size())
                       .arg(formatBytes(cutBytes), formatMicros(p.syncUs), inputShapesText(report.model).toHtmlEscaped());
    text += QStringLiteral("<table cellspacing='0' cellpadding='2'><tr><th align='left'>%1</th><th align='left'>%2</th>"
                           "<th align='right'>%3</th><th align='right'>%4</th><th align='right'>%5</th>"
                           "<th align='right'>%6</th><th align='right'>%7</th></tr>")
                .arg(TimelineView::tr("Schedule"), TimelineView::tr("Units"), TimelineView::tr("Frames"),
                     TimelineView::tr("Predicted fps"), TimelineView::tr("Measured fps"),
                     TimelineView::tr("Measured / predicted"), TimelineView::tr("Latency pred. / meas."));
    for (const ScheduleResult& s : p.schedules) {
        QStringList units;
        for (const std::string& u : s.units) units << QString::fromStdString(u);
        const bool measured = s.measured.has_value();
        text += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2&nbsp;&nbsp;</td><td align='right'>%3</td>"
                               "<td align='right'>%4</td><td align='right'>%5</td><td align='right'>%6</td>"
                               "<td align='right'>&nbsp;&nbsp;%7</td></tr>")
                    .arg(QString::fromStdString(s.schedule), units.join(QStringLiteral(", ")).toHtmlEscaped())
                    .arg(s.frames)
                    .arg(fps(s.predicted.framesPerSecond),
                         measured ? QStringLiteral("<b>%1</b>").arg(fps(s.measured->framesPerSecond)) : QStringLiteral("–"),
                         measured && s.predicted.framesPerSecond > 0
                             ? QString::number(s.measured->framesPerSecond / s.predicted.framesPerSecond, 'f', 2)
                             : QStringLiteral("–"),
                         formatMicros(s.predicted.latencyUs) + QStringLiteral(" / ") +
                             (measured ? formatMicros(s.measured->latencyUs) : QStringLiteral("–")));
    }
    return text + QStringLiteral("</table>");
}

QString chartHint() {
    return TimelineView::tr("A bar is one stage of one frame (its number), grey a hand-off, hatched the time a frame "
                            "waited for the lane. Hover a bar for its times; click it to select the stage's nodes.");
}

QString titleOf(const QString& source, const ScheduleResult* s, const std::optional<Trace>& trace) {
    if (!s) return source;
    const ScheduleFigures* figures = source == TimelineView::tr("Predicted") ? &s->predicted
                                                                             : (s->measured ? &*s->measured : nullptr);
    if (!figures || !trace)
        return TimelineView::tr("%1 · %2: not executed (a unit of the device has no local executor)")
            .arg(source, QString::fromStdString(s->schedule));
    return TimelineView::tr("%1 · %2 · %3 frames in %4 · %5 frames/s · latency %6")
        .arg(source, QString::fromStdString(s->schedule))
        .arg(s->frames)
        .arg(formatMicros(figures->makespanUs), fps(figures->framesPerSecond), formatMicros(figures->latencyUs));
}

}  // namespace

TimelineView::TimelineView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), job_(new PartitionJob(this)),
      partitionAction_(new QAction(tr("&Partition on Device"), this)),
      cancelAction_(new QAction(tr("Cancel Partition"), this)),
      saveAction_(new QAction(tr("Save &Partition Report…"), this)), device_(new QComboBox(this)),
      schedule_(new QComboBox(this)), frames_(new QSpinBox(this)), shown_(new QComboBox(this)),
      summary_(new QLabel(this)), legend_(new QLabel(this)), chart_(new GanttChart(this)), model_(new PartitionTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)), table_(new QTableView(this)), hover_(new QLabel(this)) {
    device_->setObjectName(QStringLiteral("timelineDevice"));
    for (const std::string& name : availableDeviceProfiles()) device_->addItem(QString::fromStdString(name));
    device_->setCurrentText(PartitionRequest{}.device);
    device_->setToolTip(tr("Device profile (resources/devices): its units, what each op costs on them, and how "
                           "to run them on this machine"));
    schedule_->setObjectName(QStringLiteral("timelineSchedule"));
    schedule_->addItem(tr("all three"), kAllSchedules);
    schedule_->addItem(tr("pipelined"), QStringLiteral("pipelined"));
    schedule_->addItem(tr("serial"), QStringLiteral("serial"));
    schedule_->addItem(tr("single unit"), QStringLiteral("single"));
    schedule_->setToolTip(tr("Single unit, serial heterogeneous (one frame in flight), or pipelined (stage N of one "
                             "frame beside stage N-1 of the next)"));
    frames_->setObjectName(QStringLiteral("timelineFrames"));
    frames_->setRange(1, 10000);
    frames_->setValue(PartitionRequest{}.frames);
    frames_->setToolTip(tr("Frames per schedule, predicted and measured"));
    shown_->setObjectName(QStringLiteral("timelineShown"));
    shown_->setToolTip(tr("The schedule whose timelines the chart shows"));
    shown_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (QComboBox* box : {device_, schedule_}) box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    legend_->setObjectName(QStringLiteral("timelineLegend"));
    legend_->setTextFormat(Qt::RichText);
    legend_->setWordWrap(true);  // wraps between entries, never drops one
    legend_->hide();
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hover_->setObjectName(QStringLiteral("timelineHover"));
    hover_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    partitionAction_->setShortcut(Qt::Key_F8);
    partitionAction_->setToolTip(tr("Split the model over the device's units, predict the schedules and, when the "
                                    "units run here, execute them and measure (F8)"));
    connect(partitionAction_, &QAction::triggered, this, &TimelineView::startPartition);
    cancelAction_->setToolTip(tr("Stop the partition run"));
    connect(cancelAction_, &QAction::triggered, job_, &PartitionJob::cancel);
    saveAction_->setToolTip(tr("Save the partition, its schedules and timelines as JSON (as npuwb-cli partition --json)"));
    connect(saveAction_, &QAction::triggered, this, [this] {
        const QString model = this->workbench().hasModel() ? this->workbench().loadedModel()->path : QString();
        const QString suggested = model.isEmpty() ? QString() : model.left(model.lastIndexOf(QLatin1Char('.'))) +
                                                                    QStringLiteral(".partition.json");
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Partition Report"), suggested,
                                                          tr("JSON reports (*.json)"));
        if (!path.isEmpty()) saveReportTo(path);
    });
    auto* run = new QToolButton(this);
    run->setDefaultAction(partitionAction_);
    run->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* cancel = new QToolButton(this);
    cancel->setDefaultAction(cancelAction_);
    cancel->setText(tr("Cancel"));

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(PartitionTableModel::SortRole);
    table_->setObjectName(QStringLiteral("partitionTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(PartitionTableModel::OrderColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(PartitionTableModel::ReasonColumn, QHeaderView::Stretch);
    // The reason gets the room; a long node name shows in full in its tooltip and when widened.
    table_->horizontalHeader()->setSectionResizeMode(PartitionTableModel::NodeColumn, QHeaderView::Interactive);
    table_->setColumnWidth(PartitionTableModel::NodeColumn, 240);
    table_->setItemDelegateForColumn(PartitionTableModel::NodeColumn, new LayerNameDelegate(table_));
    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int row = proxy_->mapToSource(index).row();
        if (row >= 0) emit nodesClicked({model_->index(row, PartitionTableModel::NodeColumn).data().toString()});
    });

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Device:"), this));
    controls->addWidget(device_);
    controls->addWidget(new QLabel(tr("Schedules:"), this));
    controls->addWidget(schedule_);
    controls->addWidget(new QLabel(tr("Frames:"), this));
    controls->addWidget(frames_);
    controls->addWidget(run);
    controls->addWidget(cancel);
    controls->addStretch(1);
    controls->addWidget(new QLabel(tr("Timeline of:"), this));
    controls->addWidget(shown_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("timelineSplitter"));
    splitter->addWidget(chart_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(summary_);
    layout->addWidget(legend_);
    layout->addWidget(splitter, 1);
    layout->addWidget(hover_);

    connect(shown_, &QComboBox::currentIndexChanged, this, &TimelineView::showSchedule);
    connect(chart_, &GanttChart::hovered, hover_, [this](const QString& text) {
        hover_->setText(text.isEmpty() ? chartHint() : text);
    });
    connect(chart_, &GanttChart::stageClicked, this, &TimelineView::onStageClicked);
    connect(chart_, &GanttChart::eventClicked, this, [this](const QString& name, const QString& kind) {
        if (kind == QLatin1String("kernel")) emit nodesClicked({name});  // a layer of the run timeline
    });
    connect(&workbench, &Workbench::reportChanged, this, &TimelineView::showRunReport);
    connect(workbench.layerFilter(), &LayerFilter::changed, this, [this] {  // greys the other layers' kernel bars
        if (runTimeline_ && shown_->currentData().toString() == QLatin1String("run")) showSchedule();
    });
    LayerSelection* selection = workbench.selection();
    connect(this, &TimelineView::nodesClicked, selection, &LayerSelection::selectNodes);
    connect(selection, &LayerSelection::nodesSelected, this, &TimelineView::highlightNodes);

    workbench.trackJob(job_);
    connect(job_, &PartitionJob::progress, this, [this](const QString& phase, int done, int total) {
        this->workbench().showProgress(done, std::max(total, 1), phase + QStringLiteral(" %v/%m"));
    });
    connect(job_, &PartitionJob::finished, this, [this](std::shared_ptr<const Report> report) {
        this->workbench().hideProgress();
        showReport(std::move(report));
    });
    connect(job_, &PartitionJob::cancelled, this, [this] {
        this->workbench().hideProgress();
        this->workbench().setStatus(tr("Partition cancelled"));
    });
    connect(job_, &PartitionJob::failed, this, [this](const QString& message) {
        this->workbench().hideProgress();
        this->workbench().reportError(tr("Partition failed"), message);
    });
    connect(job_, &PartitionJob::runningChanged, this, &TimelineView::updateActions);
    connect(&workbench, &Workbench::stateChanged, this, &TimelineView::updateActions);
    connect(&workbench, &Workbench::modelLoaded, this, [this] {
        clear(this->workbench().hasCompiledModel()
                  ? tr("Partition %1 (open the ONNX model it was converted from)").arg(onnxOnlyReason())
                  : tr("Pick a device and press Partition (F8)"));
    });
    connect(&workbench, &Workbench::modelChanged, this, [this] {
        clear(tr("The model changed: press Partition (F8) again"));
    });
    clear(tr("Open a model, pick a device and press Partition (F8)"));
    updateActions();
}

QList<ViewAction> TimelineView::viewActions() const {
    return {{.action = partitionAction_, .menu = MenuSlot::Run},
            {.action = cancelAction_, .menu = MenuSlot::Run},
            {.action = saveAction_, .menu = MenuSlot::File}};
}

void TimelineView::saveSettings(QSettings& settings) const {
    settings.setValue(QStringLiteral("device"), device_->currentText());
    settings.setValue(QStringLiteral("schedule"), schedule_->currentData().toString());
    settings.setValue(QStringLiteral("frames"), frames_->value());
}

void TimelineView::restoreSettings(QSettings& settings) {
    if (const int i = device_->findText(settings.value(QStringLiteral("device")).toString()); i >= 0)
        device_->setCurrentIndex(i);
    if (const int i = schedule_->findData(settings.value(QStringLiteral("schedule")).toString()); i >= 0)
        schedule_->setCurrentIndex(i);
    frames_->setValue(settings.value(QStringLiteral("frames"), frames_->value()).toInt());
}

bool TimelineView::startFromCommandLine() {
    startPartition();
    return job_->isRunning();
}

void TimelineView::updateActions() {
    enableOnnxAction(partitionAction_, workbench(), workbench().hasModel() && !workbench().isBusy() && device_->count() > 0);
    cancelAction_->setEnabled(job_->isRunning());
    saveAction_->setEnabled(report_ != nullptr);
}

bool TimelineView::saveReportTo(const QString& path) {
    if (!report_) return false;
    try {
        saveReport(*report_, path.toStdString());  // atomic: a failed write leaves any old file intact
    } catch (const std::exception& e) {
        workbench().reportError(tr("Cannot save the partition report"), QString::fromStdString(e.what()));
        return false;
    }
    workbench().showMessage(tr("Partition report saved to %1").arg(path));
    return true;
}

void TimelineView::startPartition() {
    // A compiled model has no graph to split.
    if (!workbench().hasOnnxModel() || workbench().isBusy() || job_->isRunning()) return;
    workbench().afterInputShapes([this] {  // symbolic input dims: asks for sizes first, as a run does
        if (workbench().hasOnnxModel() && !workbench().isBusy() && !job_->isRunning()) partition();
    });
}

void TimelineView::partition() {
    PartitionRequest request;
    request.inputShapes = workbench().inputShapes();
    request.device = device_->currentText();
    const QString schedule = schedule_->currentData().toString();
    if (schedule != kAllSchedules) request.schedules = {schedule};
    request.frames = frames_->value();
    workbench().showProgress(0, 0);
    workbench().setStatus(request.inputShapes.empty()
                              ? tr("Partitioning on %1 …").arg(request.device)
                              : tr("Partitioning on %1 at %2 …").arg(request.device, inputShapesText(request.inputShapes)));
    job_->start(workbench().currentModel(), request);
}

void TimelineView::clear(const QString& hint) {
    report_.reset();
    runTimeline_.reset();
    summary_->setText(hint);
    model_->setPartition({});
    const QSignalBlocker block(shown_);
    shown_->clear();
    chart_->clear(hint);
    hover_->clear();
    updateActions();
}

void TimelineView::showReport(std::shared_ptr<const Report> report) {
    if (!report || !report->partition) return;
    report_ = std::move(report);
    const PartitionSection& p = *report_->partition;
    model_->setPartition(p);
    summary_->setText(summaryOf(*report_));
    {
        fillShown();
        // Pipelining is what this view is for: show it when it ran.
        const QSignalBlocker block(shown_);
        shown_->setCurrentIndex(std::max(0, shown_->findText(QStringLiteral("pipelined"))));
    }
    showSchedule();
    highlightNodes(workbench().selection()->selectedNodes());
    hover_->setText(chartHint());
    updateActions();
    workbench().setStatus(tr("Partitioned on %1: %2 stage(s), %3 schedule(s)")
                              .arg(QString::fromStdString(p.device))
                              .arg(p.stages.size())
                              .arg(p.schedules.size()));
    bringToFront();
    emit partitionShown(report_);
    emit resultShown();
}

void TimelineView::fillShown() {
    const QSignalBlocker block(shown_);
    shown_->clear();
    if (report_)
        for (const QString& name : kScheduleOrder)
            for (const ScheduleResult& s : report_->partition->schedules)
                if (s.schedule == name.toStdString()) shown_->addItem(name);
    if (runTimeline_) shown_->addItem(tr("last run"), QStringLiteral("run"));
}

void TimelineView::showRunReport() {
    const Report* report = workbench().lastReport();
    runTimeline_ = report ? runTimelineOf(*report) : std::nullopt;
    fillShown();
    if (!runTimeline_) {
        showSchedule();
        return;
    }
    {
        const QSignalBlocker block(shown_);
        shown_->setCurrentIndex(shown_->findData(QStringLiteral("run")));
    }
    if (!report_)
        summary_->setText(tr("<b>Last run</b> of %1 · %2, %3 thread(s) · %4 · Partition (F8) adds its schedules here")
                              .arg(QFileInfo(QString::fromStdString(report->model.path)).fileName().toHtmlEscaped(),
                                   QString::fromStdString(report->environment.backend).toHtmlEscaped())
                              .arg(report->environment.threads)
                              .arg(inputShapesText(report->model).toHtmlEscaped()));
    showSchedule();
}

void TimelineView::showSchedule() {
    if (runTimeline_ && shown_->currentData().toString() == QLatin1String("run")) {
        const Report* run = workbench().lastReport();
        chart_->setRunTimeline(runTimeline_->trace, runTimeline_->title,
                               run ? filteredColours(*runTimeline_, *run, *workbench().layerFilter())
                                   : runTimeline_->colours);
        table_->hide();  // the placement table is the partition's
        hover_->setText(tr("Hover a bar for its times; click a layer's bar to select it everywhere."));
        const QString legend = colourLegendHtml(runTimeline_->legend);
        legend_->setText(legend.isEmpty() ? QString() : tr("<b>Op type</b>:") + legend);
        legend_->setVisible(!legend.isEmpty());
        return;
    }
    legend_->hide();
    table_->show();
    if (!report_) return;
    const std::string name = shown_->currentText().toStdString();
    const ScheduleResult* schedule = nullptr;
    for (const ScheduleResult& s : report_->partition->schedules)
        if (s.schedule == name) schedule = &s;
    const std::optional<Trace> predicted = findTrace(*report_, name, "predicted");
    const std::optional<Trace> measured = findTrace(*report_, name, "measured");
    chart_->setTimelines(predicted, measured, *report_->partition, titleOf(tr("Predicted"), schedule, predicted),
                         titleOf(tr("Measured"), schedule, measured));
}

void TimelineView::highlightNodes(const QStringList& names) {
    chart_->highlightName(names.value(0));  // a run timeline's layer; no bar has a node's name otherwise
    for (const QString& name : names) {
        const int row = model_->rowOfNode(name);
        if (row < 0) continue;
        const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
        table_->selectRow(index.row());
        table_->scrollTo(index);
        chart_->highlightStage(model_->stageOfRow(row));
        return;
    }
    table_->clearSelection();
    chart_->highlightStage(-1);
}

void TimelineView::onStageClicked(int64_t stage) {
    if (!report_ || stage < 0) return;
    for (const PartitionStage& s : report_->partition->stages) {
        if (s.id != stage) continue;
        QStringList nodes;
        for (const std::string& node : s.nodes) nodes << QString::fromStdString(node);
        emit nodesClicked(nodes);
    }
}

}  // namespace npuwb::ui
