#pragma once
// What the Timeline draws for a run (not a partition): the "contexts" trace of a run with several contexts or a
// batch (one lane per context, one bar per batch slice, as measured), else the layers of a single run laid end to
// end in execution order on one lane. The profiler records each layer's duration (the median over the runs), not
// when it started, so that lane's start times are the sum of the earlier layers' medians, and its title says so.
#include <QString>

#include <optional>

#include "npuwb/Report.h"

namespace npuwb::ui {

struct RunTimeline {
    Trace trace;
    QString title;  // what the lanes are and where the times come from
};

/// The timeline a run report offers, nullopt when it has neither a contexts trace nor timed layers.
std::optional<RunTimeline> runTimelineOf(const Report& report);

}  // namespace npuwb::ui
