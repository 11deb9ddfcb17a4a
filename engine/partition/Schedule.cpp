#include "partition/Schedule.h"

#include <algorithm>
#include <queue>
#include <tuple>

#include "npuwb/Error.h"

namespace npuwb::partition {

namespace {

/// One piece of a frame's chain: a hand-off or a step's compute.
struct Piece {
    std::string name;
    std::string kind;  // stage | transfer
    int lane = 0;
    double us = 0;
};

std::vector<Piece> flatten(const ChainSchedule& s) {
    std::vector<Piece> pieces;
    for (const ChainStep& step : s.steps) {
        if (step.handoffLane >= 0)
            pieces.push_back({.name = "to " + step.name, .kind = "transfer", .lane = step.handoffLane, .us = step.handoffUs});
        pieces.push_back({.name = step.name, .kind = "stage", .lane = step.lane, .us = step.us});
    }
    return pieces;
}

}  // namespace

SimulatedSchedule simulate(const ChainSchedule& s, bool withTrace) {
    if (s.frames < 1) failInput("a schedule needs at least one frame");
    if (s.steps.empty()) failInput("a schedule needs at least one step");
    const std::vector<Piece> pieces = flatten(s);
    const int inFlight = std::max(1, s.maxInFlight);
    // Events in time order: a piece of a frame becomes ready, or a lane finishes the piece it ran. All events of
    // one instant are applied before idle lanes pick their next piece (the oldest frame waiting).
    enum Kind : int { Ready = 0, Finished = 1 };
    using Event = std::tuple<double, int, int, size_t>;  // time, kind, frame, piece
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
    using Waiting = std::tuple<int, size_t, double>;  // frame, piece, ready time
    std::vector<std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>>> waiting(s.lanes.size());
    std::vector<bool> busy(s.lanes.size(), false);
    std::vector<double> admitted(size_t(s.frames), 0.0), latency;
    for (int f = 0; f < std::min(inFlight, s.frames); ++f) events.push({0.0, Ready, f, 0});
    int nextFrame = std::min(inFlight, s.frames);
    SimulatedSchedule out;
    out.trace.name = s.name;
    out.trace.source = "predicted";
    out.trace.lanes = s.lanes;
    double makespan = 0;
    while (!events.empty()) {
        const double now = std::get<0>(events.top());
        while (!events.empty() && std::get<0>(events.top()) == now) {
            auto [t, kind, frame, index] = events.top();
            events.pop();
            const Piece& piece = pieces[index];
            if (kind == Ready) {
                waiting[size_t(piece.lane)].push({frame, index, t});
                continue;
            }
            busy[size_t(piece.lane)] = false;
            if (index + 1 < pieces.size()) {
                events.push({now, Ready, frame, index + 1});
                continue;
            }
            latency.push_back(now - admitted[size_t(frame)]);
            makespan = std::max(makespan, now);
            if (nextFrame < s.frames) {
                admitted[size_t(nextFrame)] = now;
                events.push({now, Ready, nextFrame++, 0});
            }
        }
        for (size_t lane = 0; lane < s.lanes.size(); ++lane) {
            if (busy[lane] || waiting[lane].empty()) continue;
            auto [frame, index, readyAt] = waiting[lane].top();
            waiting[lane].pop();
            const Piece& piece = pieces[index];
            busy[lane] = true;
            events.push({now + piece.us, Finished, frame, index});
            if (!withTrace) continue;
            TraceEvent ev;
            ev.lane = s.lanes[lane];
            ev.name = piece.name;
            ev.kind = piece.kind;
            ev.frame = frame;
            ev.startUs = now;
            ev.endUs = now + piece.us;
            ev.readyUs = readyAt;
            out.trace.events.push_back(std::move(ev));
        }
    }
    std::sort(latency.begin(), latency.end());
    out.figures.makespanUs = makespan;
    out.figures.framesPerSecond = makespan > 0 ? s.frames * 1e6 / makespan : 0;
    out.figures.latencyUs = latency[latency.size() / 2];
    return out;
}

ChainSchedule singleUnitSchedule(const WorkGraph& work, int unit, double modelUs, int frames) {
    ChainSchedule s;
    s.name = "single";
    s.lanes = {work.units[size_t(unit)]};
    s.steps.push_back({.name = "whole model on " + work.units[size_t(unit)], .lane = 0, .us = modelUs});
    s.maxInFlight = 1;
    s.frames = frames;
    return s;
}

ChainSchedule stageChainSchedule(const WorkGraph& work, const StagePlan& plan, const std::vector<double>& stageUs,
                                 const std::string& name, int maxInFlight, int frames) {
    ChainSchedule s;
    s.name = name;
    s.maxInFlight = maxInFlight;
    s.frames = frames;
    // Lanes: the units the plan uses (in profile order), then the links it crosses.
    std::vector<int> laneOfUnit(work.units.size(), -1);
    for (size_t u = 0; u < work.units.size(); ++u)
        for (const Stage& st : plan.stages)
            if (st.unit == int(u) && laneOfUnit[u] < 0) {
                laneOfUnit[u] = int(s.lanes.size());
                s.lanes.push_back(work.units[u]);
            }
    std::map<std::pair<int, int>, int> laneOfLink;
    for (const auto& [link, load] : plan.linkLoadUs) {
        laneOfLink[link] = int(s.lanes.size());
        s.lanes.push_back(linkName(work, link));
    }
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        const Stage& st = plan.stages[i];
        ChainStep step;
        step.name = stageName(work, plan, i);
        step.lane = laneOfUnit[size_t(st.unit)];
        step.us = stageUs.at(i);
        if (i > 0) {
            int prev = plan.stages[i - 1].unit;
            step.handoffLane = laneOfLink.at({std::min(prev, st.unit), std::max(prev, st.unit)});
            step.handoffUs = st.handoffUs;
        }
        s.steps.push_back(std::move(step));
    }
    return s;
}

std::string stageName(const WorkGraph& work, const StagePlan& plan, size_t stage) {
    const Stage& st = plan.stages[stage];
    std::string name = "s";
    name.append(std::to_string(stage)).append(" ").append(work.units[size_t(st.unit)]).append(": ");
    if (st.nodes.empty()) return name + "(empty)";
    name += work.nodes[size_t(st.nodes.front())].name;
    if (st.nodes.size() > 1) name.append("..").append(work.nodes[size_t(st.nodes.back())].name);
    return name;
}

}  // namespace npuwb::partition
