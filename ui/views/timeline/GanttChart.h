#pragma once
// Predicted and measured timelines of one schedule as a Gantt chart, one above the other on a shared time axis:
// lanes (units, and in the prediction the links between them) as rows, one bar per stage and frame coloured by
// stage (the partition table's colours), transfers grey, and under each bar a hatched strip for the time its frame
// waited for the lane (readyUs to startUs). Hovering a bar shows its name, frame, start and end; clicking one
// emits its stage; highlightStage outlines every bar of a stage.
#include <QColor>
#include <QPoint>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "npuwb/Report.h"

class QCustomPlot;
class QCPAxisRect;
class QCPTextElement;
class QMouseEvent;

namespace npuwb::ui {

class GanttPlottable;

class GanttChart : public QWidget {
    Q_OBJECT
public:
    enum class Source { Predicted, Measured };

    explicit GanttChart(QWidget* parent = nullptr);

    /// Shows a schedule's timelines (either may be absent: "not executed"); `partition` names and colours the
    /// stages. Titles say what each timeline is.
    void setTimelines(const std::optional<Trace>& predicted, const std::optional<Trace>& measured,
                      const PartitionSection& partition, const QString& predictedTitle, const QString& measuredTitle);
    void clear(const QString& hint);
    /// A run's own timeline (views/timeline/RunTimeline.h) alone, in the measured rows under `title`; `colours`
    /// fills bars by name (a kernel: its layer's op type colour).
    void setRunTimeline(const Trace& trace, const QString& title, std::map<std::string, QColor> colours = {});
    /// The fill of the run timeline's bars called `name` (a kernel: its layer's full name).
    QColor runBarColour(const std::string& name) const;

    QCustomPlot* plot() const { return plot_; }
    const Trace& timeline(Source source) const;
    QCPAxisRect* axisRect(Source source) const;
    /// The bar under a point of the plot (widget coordinates), or nullptr.
    const TraceEvent* eventAt(const QPoint& pos, Source* source = nullptr) const;
    /// Plot coordinates of the middle of a bar: what a mouse would point at.
    QPoint centreOf(Source source, const TraceEvent& event) const;
    /// One line: name, kind, lane, frame, start, end, duration and wait.
    static QString describe(const TraceEvent& event);
    /// Stage id of an event (its name is a stage's name), -1 for a transfer or the single schedule's whole model.
    int64_t stageOf(const TraceEvent& event) const;
    int64_t highlightedStage() const { return highlighted_; }
    /// The bar name outlined in a run timeline (a layer), empty when none.
    QString highlightedName() const { return highlightedName_; }

public slots:
    void highlightStage(int64_t stage);
    /// Outlines the run timeline's bars of this name (a layer selected elsewhere); empty: none.
    void highlightName(const QString& name);

signals:
    void stageClicked(int64_t stage);
    /// Any bar clicked: its name and kind ("kernel" bars are layers).
    void eventClicked(const QString& name, const QString& kind);
    /// The text of the bar under the mouse (empty when none).
    void hovered(const QString& text);

private:
    void onMouseMove(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);

    QCustomPlot* plot_;
    QCPTextElement* predictedTitle_;
    QCPTextElement* measuredTitle_;
    GanttPlottable* predicted_;
    GanttPlottable* measured_;
    std::map<std::string, int64_t> stageOfName_;
    int64_t highlighted_ = -1;
    QString highlightedName_;
    QPoint pressPos_;
};

}  // namespace npuwb::ui
