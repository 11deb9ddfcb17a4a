#pragma once
// What the Timeline draws for a run (not a partition): the "contexts" trace of a run with several contexts or a
// batch (one lane per context, one bar per batch slice, as measured); else the "kernels" trace of a single run (the
// profiler's measured start and end of every kernel of the last timed run, a lane for the backend's kernels and one
// for reference fallbacks); else, for reports without it (board runs, imported logs), the layers laid end to end in
// execution order, start times being the sum of the earlier layers' median durations, as the title says.
#include <QColor>
#include <QString>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <optional>

#include "npuwb/Report.h"

namespace npuwb::ui {

struct RunTimeline {
    Trace trace;
    QString title;  // what the lanes are and where the times come from
    std::map<std::string, QColor> colours;  // kernel bars: their layer's op type colour (models/OpTypeColors)
    /// What the colours mean: every op type with a bar, with its colour and bar count (empty: bars are not layers).
    std::vector<std::pair<QString, QColor>> legend;
};

class LayerFilter;

/// `timeline`'s bar colours with the layers `filter` rejects in light grey (the shared filter; a contexts trace's
/// bars are not layers and keep theirs).
std::map<std::string, QColor> filteredColours(const RunTimeline& timeline, const Report& report,
                                              const LayerFilter& filter);

/// The timeline a run report offers, nullopt when it has neither a contexts trace nor timed layers.
std::optional<RunTimeline> runTimelineOf(const Report& report);

}  // namespace npuwb::ui
