#include "report/TraceJson.h"

namespace npuwb {

using nlohmann::json;

namespace {

json figuresJson(const ScheduleFigures& f) {
    return {{"makespanUs", f.makespanUs}, {"framesPerSecond", f.framesPerSecond}, {"latencyUs", f.latencyUs}};
}

ScheduleFigures figuresFrom(const json& j) {
    ScheduleFigures f;
    f.makespanUs = j.at("makespanUs").get<double>();
    f.framesPerSecond = j.at("framesPerSecond").get<double>();
    f.latencyUs = j.value("latencyUs", 0.0);
    return f;
}

}  // namespace

json tracesJson(const std::vector<Trace>& traces) {
    json out = json::array();
    for (const Trace& t : traces) {
        json events = json::array();
        for (const TraceEvent& e : t.events) {
            json ev = {{"lane", e.lane},   {"name", e.name},         {"kind", e.kind},
                       {"frame", e.frame}, {"startUs", e.startUs}, {"endUs", e.endUs}};
            if (e.readyUs) ev["readyUs"] = *e.readyUs;
            events.push_back(std::move(ev));
        }
        out.push_back({{"name", t.name}, {"source", t.source}, {"lanes", t.lanes}, {"events", std::move(events)}});
    }
    return out;
}

std::vector<Trace> tracesFrom(const json& j) {
    std::vector<Trace> out;
    for (const json& t : j) {
        Trace trace;
        trace.name = t.at("name").get<std::string>();
        trace.source = t.value("source", "");
        trace.lanes = t.value("lanes", std::vector<std::string>{});
        for (const json& e : t.at("events")) {
            TraceEvent ev;
            ev.lane = e.at("lane").get<std::string>();
            ev.name = e.at("name").get<std::string>();
            ev.kind = e.value("kind", "stage");
            ev.frame = e.value("frame", int64_t(0));
            ev.startUs = e.at("startUs").get<double>();
            ev.endUs = e.at("endUs").get<double>();
            if (e.contains("readyUs") && !e.at("readyUs").is_null()) ev.readyUs = e.at("readyUs").get<double>();
            trace.events.push_back(std::move(ev));
        }
        out.push_back(std::move(trace));
    }
    return out;
}

json partitionJson(const PartitionSection& p) {
    json units = json::array();
    for (const auto& u : p.units)
        units.push_back({{"name", u.name}, {"kind", u.kind}, {"description", u.description},
                         {"costSource", u.costSource}, {"loadUs", u.loadUs}, {"stageOverheadUs", u.stageOverheadUs}});
    json assignments = json::array();
    for (const auto& a : p.assignments)
        assignments.push_back({{"node", a.node}, {"opType", a.opType}, {"opClass", a.opClass}, {"unit", a.unit},
                               {"step", a.step}, {"reason", a.reason}, {"costUs", a.costUs}});
    json stages = json::array();
    for (const auto& s : p.stages)
        stages.push_back({{"id", s.id}, {"name", s.name}, {"unit", s.unit}, {"nodes", s.nodes}, {"inputs", s.inputs},
                          {"outputs", s.outputs}, {"predictedUs", s.predictedUs}});
    json cuts = json::array();
    for (const auto& c : p.cuts)
        cuts.push_back({{"tensor", c.tensor}, {"bytes", c.bytes}, {"fromUnit", c.fromUnit}, {"toUnit", c.toUnit},
                        {"fromStage", c.fromStage}, {"toStage", c.toStage}, {"transferUs", c.transferUs}});
    json schedules = json::array();
    for (const auto& s : p.schedules)
        schedules.push_back({{"schedule", s.schedule}, {"units", s.units}, {"frames", s.frames},
                             {"predicted", figuresJson(s.predicted)},
                             {"measured", s.measured ? figuresJson(*s.measured) : json(nullptr)}});
    return {{"device", p.device},     {"deviceProfile", p.deviceProfile}, {"strategy", p.strategy},
            {"units", units},         {"assignments", assignments},       {"stages", stages},
            {"cuts", cuts},           {"syncUs", p.syncUs},               {"schedules", schedules},
            {"notes", p.notes}};
}

PartitionSection partitionFrom(const json& j) {
    PartitionSection p;
    p.device = j.at("device").get<std::string>();
    p.deviceProfile = j.value("deviceProfile", "");
    p.strategy = j.value("strategy", "");
    for (const json& u : j.at("units"))
        p.units.push_back({.name = u.at("name").get<std::string>(), .kind = u.value("kind", ""),
                           .description = u.value("description", ""), .costSource = u.value("costSource", ""),
                           .loadUs = u.value("loadUs", 0.0), .stageOverheadUs = u.value("stageOverheadUs", 0.0)});
    for (const json& a : j.at("assignments")) {
        PartitionAssignment row;
        row.node = a.at("node").get<std::string>();
        row.opType = a.value("opType", "");
        row.opClass = a.value("opClass", "");
        row.unit = a.at("unit").get<std::string>();
        row.step = a.value("step", "");
        row.reason = a.value("reason", "");
        row.costUs = a.value("costUs", std::map<std::string, double>{});
        p.assignments.push_back(std::move(row));
    }
    for (const json& s : j.at("stages")) {
        PartitionStage stage;
        stage.id = s.at("id").get<int64_t>();
        stage.name = s.value("name", "");
        stage.unit = s.at("unit").get<std::string>();
        stage.nodes = s.value("nodes", std::vector<std::string>{});
        stage.inputs = s.value("inputs", std::vector<std::string>{});
        stage.outputs = s.value("outputs", std::vector<std::string>{});
        stage.predictedUs = s.value("predictedUs", 0.0);
        p.stages.push_back(std::move(stage));
    }
    for (const json& c : j.at("cuts")) {
        PartitionCut cut;
        cut.tensor = c.at("tensor").get<std::string>();
        cut.bytes = c.value("bytes", int64_t(0));
        cut.fromUnit = c.value("fromUnit", "");
        cut.toUnit = c.value("toUnit", "");
        cut.fromStage = c.value("fromStage", int64_t(0));
        cut.toStage = c.value("toStage", int64_t(0));
        cut.transferUs = c.value("transferUs", 0.0);
        p.cuts.push_back(std::move(cut));
    }
    p.syncUs = j.value("syncUs", 0.0);
    for (const json& s : j.at("schedules")) {
        ScheduleResult r;
        r.schedule = s.at("schedule").get<std::string>();
        r.units = s.value("units", std::vector<std::string>{});
        r.frames = s.value("frames", int64_t(0));
        r.predicted = figuresFrom(s.at("predicted"));
        if (s.contains("measured") && !s.at("measured").is_null()) r.measured = figuresFrom(s.at("measured"));
        p.schedules.push_back(std::move(r));
    }
    p.notes = j.value("notes", std::vector<std::string>{});
    return p;
}

}  // namespace npuwb
