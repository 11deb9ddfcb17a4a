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
                               {}};
        }
    for (const Trace& t : report.traces)  // the profiler's measured start and end of every kernel
        if (t.name == "kernels" && t.source == "measured" && !t.events.empty()) {
            double endUs = 0;
            for (const TraceEvent& e : t.events) endUs = std::max(endUs, e.endUs);
            return RunTimeline{t,
                               QObject::tr("Measured · the last timed run's %1 kernels, each from its start to its "
                                           "end, coloured by op type (%2 thread(s)) · %3 in all")
                                   .arg(t.events.size())
                                   .arg(report.environment.threads)
                                   .arg(formatMicros(endUs)),
                               opColours(report)};
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
    timeline.colours = opColours(report);
    timeline.title = QObject::tr("Single run · %1 layers in execution order, %2 in all · start times are the sum of "
                                 "the earlier layers' median times (the profiler records durations, not starts)")
                         .arg(rows.size())
                         .arg(formatMicros(at));
    return timeline;
}

}  // namespace npuwb::ui
