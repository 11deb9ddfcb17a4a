#include "views/timeline/RunTimeline.h"

#include <QObject>

#include <algorithm>

#include "models/Format.h"
#include "models/LayerFilter.h"
#include "models/OpTypeColors.h"

namespace npuwb::ui {

namespace {
std::map<std::string, QColor> opColours(const Report& report) {
    std::map<std::string, QColor> colours;
    for (const LayerRow& row : report.layers) colours[row.fullName] = opTypeColor(QString::fromStdString(row.opType));
    return colours;
}

// "Conv ×20", most bars first, for the op types of the layers that have a bar in `trace`.
std::vector<std::pair<QString, QColor>> opLegend(const Report& report, const Trace& trace) {
    std::map<std::string, const LayerRow*> rowOf;
    for (const LayerRow& row : report.layers) rowOf.emplace(row.fullName, &row);
    std::map<QString, int> bars;
    for (const TraceEvent& e : trace.events)
        if (const auto row = rowOf.find(e.name); row != rowOf.end()) ++bars[QString::fromStdString(row->second->opType)];
    std::vector<std::pair<int, QString>> byCount;
    for (const auto& [op, count] : bars) byCount.emplace_back(-count, op);
    std::sort(byCount.begin(), byCount.end());
    std::vector<std::pair<QString, QColor>> legend;
    for (const auto& [negative, op] : byCount)
        legend.emplace_back(QStringLiteral("%1\u00a0×%2").arg(op).arg(-negative), opTypeColor(op));
    return legend;
}

// One lane per place a layer ran (CPU, NPU, a fallback) when there are several: a hybrid run shows where time went.
void lanesByTarget(const Report& report, Trace& trace) {
    std::map<std::string, std::string> targetOf;
    std::vector<std::string> targets;
    for (const LayerRow& row : report.layers) {
        if (row.target.empty()) continue;
        targetOf[row.fullName] = row.target;
        if (std::find(targets.begin(), targets.end(), row.target) == targets.end()) targets.push_back(row.target);
    }
    if (targets.size() < 2) return;
    std::vector<std::string> lanes;
    for (TraceEvent& e : trace.events) {
        if (const auto t = targetOf.find(e.name); t != targetOf.end()) e.lane = e.lane + " · " + t->second;
        if (std::find(lanes.begin(), lanes.end(), e.lane) == lanes.end()) lanes.push_back(e.lane);
    }
    trace.lanes = lanes;
}
}  // namespace

std::map<std::string, QColor> filteredColours(const RunTimeline& timeline, const Report& report,
                                              const LayerFilter& filter) {
    std::map<std::string, QColor> colours = timeline.colours;
    if (!filter.isActive()) return colours;
    for (const LayerRow& row : report.layers)
        if (!filter.matches(QString::fromStdString(row.opType), QString::fromStdString(row.target),
                            QString::fromStdString(row.fullName), row.timeUs))
            if (auto it = colours.find(row.fullName); it != colours.end()) it->second = QColor(0xdd, 0xdd, 0xdd);
    return colours;
}

std::optional<RunTimeline> runTimelineOf(const Report& report) {
    if (report.kind != "profile") return std::nullopt;
    for (const Trace& t : report.traces)
        if (t.name == "contexts" && !t.events.empty()) {
            double endUs = 0;
            for (const TraceEvent& e : t.events) endUs = std::max(endUs, e.endUs);
            const int64_t batch = report.runtime ? report.runtime->batch : 0;
            return RunTimeline{t, QObject::tr("Measured · %1 context(s)%2 · one bar per batch slice run (its pass "
                                              "number) · %3 in all")
                                      .arg(t.lanes.size())
                                      .arg(batch > 0 ? QObject::tr(", batch %1").arg(batch) : QString())
                                      .arg(formatMicros(endUs)),
                               {}, {}};
        }
    for (const Trace& t : report.traces)  // the profiler's measured start and end of every kernel
        if (t.name == "kernels" && t.source == "measured" && !t.events.empty()) {
            double endUs = 0;
            for (const TraceEvent& e : t.events) endUs = std::max(endUs, e.endUs);
            Trace byTarget = t;
            lanesByTarget(report, byTarget);
            return RunTimeline{byTarget,
                               QObject::tr("Measured · the last timed run's %1 kernels, each from its start to its "
                                           "end, coloured by op type (%2 thread(s)) · %3 in all")
                                   .arg(t.events.size())
                                   .arg(report.environment.threads)
                                   .arg(formatMicros(endUs)),
                               opColours(report), opLegend(report, byTarget)};
        }
    // Older reports (and board runs) have per-layer durations only.
    std::vector<const LayerRow*> rows;
    for (const LayerRow& row : report.layers)
        if (row.timeUs > 0) rows.push_back(&row);
    if (rows.empty()) return std::nullopt;
    std::sort(rows.begin(), rows.end(), [](const LayerRow* a, const LayerRow* b) { return a->id < b->id; });
    RunTimeline timeline;
    timeline.trace.name = "kernels";
    timeline.trace.source = "measured";
    const std::string lane = report.environment.backend + " · " + std::to_string(report.environment.threads) +
                             " thread(s)";
    timeline.trace.lanes = {lane};
    double at = 0;
    for (const LayerRow* row : rows) {
        TraceEvent e;
        e.lane = lane;
        e.name = row->fullName;
        e.kind = "kernel";
        e.startUs = at;
        e.endUs = at + row->timeUs;
        at = e.endUs;
        timeline.trace.events.push_back(std::move(e));
    }
    lanesByTarget(report, timeline.trace);
    timeline.colours = opColours(report);
    timeline.legend = opLegend(report, timeline.trace);
    timeline.title = QObject::tr("Single run · %1 layers in execution order, %2 in all · start times are the sum of "
                                 "the earlier layers' median times (the profiler records durations, not starts)")
                         .arg(rows.size())
                         .arg(formatMicros(at));
    return timeline;
}

}  // namespace npuwb::ui
