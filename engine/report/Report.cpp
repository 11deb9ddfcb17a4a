#include "npuwb/Report.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "report/RuntimeJson.h"
#include "report/TraceJson.h"
#include "util/JsonText.h"

namespace npuwb {

using nlohmann::json;

namespace {

json tensorDescJson(const TensorDesc& t) { return {{"name", t.name}, {"dataType", t.dataType}, {"shape", t.shape}}; }
TensorDesc tensorDescFrom(const json& j) {
    return {j.at("name").get<std::string>(), j.at("dataType").get<std::string>(),
            j.at("shape").get<std::vector<std::string>>()};
}
template <class T> json optionalJson(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }
template <class T> std::optional<T> optionalFrom(const json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return j.at(key).get<T>();
}

json accuracyJson(const AccuracySection& a) {
    json layers = json::array();
    for (const auto& l : a.layers)
        layers.push_back({{"id", l.id}, {"fullName", l.fullName}, {"opType", l.opType}, {"value", l.value},
                          {"precision", l.precision}, {"entireCosine", l.entireCosine},
                          {"entireEuclidean", l.entireEuclidean}, {"singleCosine", optionalJson(l.singleCosine)},
                          {"singleEuclidean", optionalJson(l.singleEuclidean)}, {"floatMin", l.floatMin},
                          {"floatMax", l.floatMax}, {"scale", optionalJson(l.scale)},
                          {"zeroPoint", optionalJson(l.zeroPoint)}, {"saturationRate", l.saturationRate},
                          {"entireSnrDb", optionalJson(l.entireSnrDb)}, {"singleSnrDb", optionalJson(l.singleSnrDb)},
                          {"lowSnr", l.lowSnr}});
    json outputs = json::array();
    for (const auto& o : a.outputs)
        outputs.push_back({{"name", o.name}, {"cosine", o.cosine}, {"euclidean", o.euclidean},
                           {"worstCosine", o.worstCosine}, {"worstCosineSample", o.worstCosineSample},
                           {"snrDb", o.snrDb}, {"worstSnrDb", o.worstSnrDb}, {"worstSnrSample", o.worstSnrSample},
                           {"samples", o.samples}});
    return {{"floatModel", a.floatModel}, {"quantModel", a.quantModel}, {"scheme", a.scheme},
            {"samples", a.samples},       {"snrThresholdDb", a.snrThresholdDb},
            {"layers", layers},           {"outputs", outputs}};
}

AccuracySection accuracyFrom(const json& j) {
    AccuracySection a;
    a.floatModel = j.value("floatModel", "");
    a.quantModel = j.value("quantModel", "");
    a.scheme = j.value("scheme", "");
    a.samples = j.value("samples", int64_t(0));
    a.snrThresholdDb = j.value("snrThresholdDb", 10.0);
    for (const auto& l : j.at("layers")) {
        AccuracyLayer row;
        row.id = l.at("id").get<int64_t>();
        row.fullName = l.at("fullName").get<std::string>();
        row.opType = l.value("opType", "");
        row.value = l.value("value", "");
        row.precision = l.value("precision", "");
        row.entireCosine = l.at("entireCosine").get<double>();
        row.entireEuclidean = l.value("entireEuclidean", 0.0);
        row.singleCosine = optionalFrom<double>(l, "singleCosine");
        row.singleEuclidean = optionalFrom<double>(l, "singleEuclidean");
        row.floatMin = l.value("floatMin", 0.0);
        row.floatMax = l.value("floatMax", 0.0);
        row.scale = optionalFrom<double>(l, "scale");
        row.zeroPoint = optionalFrom<int64_t>(l, "zeroPoint");
        row.saturationRate = l.value("saturationRate", 0.0);
        row.entireSnrDb = optionalFrom<double>(l, "entireSnrDb");
        row.singleSnrDb = optionalFrom<double>(l, "singleSnrDb");
        row.lowSnr = l.value("lowSnr", false);
        a.layers.push_back(std::move(row));
    }
    for (const auto& o : j.value("outputs", json::array())) {
        AccuracyOutput row;
        row.name = o.at("name").get<std::string>();
        row.cosine = o.at("cosine").get<double>();
        row.euclidean = o.value("euclidean", 0.0);
        row.worstCosine = o.value("worstCosine", row.cosine);  // older reports: the mean is all there is
        row.worstCosineSample = o.value("worstCosineSample", int64_t(0));
        row.snrDb = o.value("snrDb", 0.0);
        row.worstSnrDb = o.value("worstSnrDb", row.snrDb);
        row.worstSnrSample = o.value("worstSnrSample", int64_t(0));
        row.samples = o.value("samples", a.samples);
        a.outputs.push_back(row);
    }
    return a;
}

/// The optional fields a board agent fills: environment arch/kernel/npuDriver/clocks and the run's time breakdown;
/// and the load average any measured run records.
void addBoardFields(json& out, const Report& r) {
    json& env = out["environment"];
    const Environment& e = r.environment;
    if (!e.arch.empty()) env["arch"] = e.arch;
    if (!e.kernel.empty()) env["kernel"] = e.kernel;
    if (e.npuDriver) env["npuDriver"] = *e.npuDriver;
    if (e.loadAverage) env["loadAverage"] = *e.loadAverage;
    if (e.clocks)
        env["clocks"] = {{"cpuFreqKHz", e.clocks->cpuFreqKHz}, {"npuFreqHz", optionalJson(e.clocks->npuFreqHz)},
                         {"ddrFreqHz", optionalJson(e.clocks->ddrFreqHz)}, {"governors", e.clocks->governors}};
    if (!r.run.estimateBasis.empty()) out["run"]["estimateBasis"] = r.run.estimateBasis;
    if (const auto& b = r.run.breakdown)
        out["run"]["breakdownUs"] = {{"preProcess", b->preProcessUs}, {"inputCopy", b->inputCopyUs},
                                     {"inference", b->inferenceUs}, {"outputCopy", b->outputCopyUs},
                                     {"postProcess", optionalJson(b->postProcessUs)}};
}

void readBoardFields(const json& j, Report& r) {
    const json& e = j.at("environment");
    r.environment.arch = e.value("arch", "");
    r.environment.kernel = e.value("kernel", "");
    r.environment.npuDriver = optionalFrom<std::string>(e, "npuDriver");
    r.environment.loadAverage = optionalFrom<double>(e, "loadAverage");
    if (e.contains("clocks") && e.at("clocks").is_object()) {
        const json& c = e.at("clocks");
        BoardClocks clocks;
        clocks.cpuFreqKHz = c.value("cpuFreqKHz", std::vector<int64_t>{});
        clocks.npuFreqHz = optionalFrom<int64_t>(c, "npuFreqHz");
        clocks.ddrFreqHz = optionalFrom<int64_t>(c, "ddrFreqHz");
        clocks.governors = c.value("governors", std::map<std::string, std::string>{});
        r.environment.clocks = clocks;
    }
    const json& run = j.at("run");
    if (run.contains("breakdownUs") && run.at("breakdownUs").is_object()) {
        const json& b = run.at("breakdownUs");
        r.run.breakdown = TimeBreakdown{b.at("preProcess").get<double>(), b.at("inputCopy").get<double>(),
                                        b.at("inference").get<double>(), b.at("outputCopy").get<double>(),
                                        optionalFrom<double>(b, "postProcess")};
    }
}

}  // namespace

json toJson(const Report& r) {
    json model = {{"path", r.model.path},
                  {"name", r.model.name},
                  {"producer", r.model.producer},
                  {"irVersion", r.model.irVersion},
                  {"opset", r.model.opset},
                  {"inputs", json::array()},
                  {"outputs", json::array()},
                  {"nodeCount", r.model.nodeCount},
                  {"parameterCount", r.model.parameterCount},
                  {"weightBytes", r.model.weightBytes},
                  {"macs", r.model.macs},
                  {"opHistogram", r.model.opHistogram},
                  {"shapesSource", r.model.shapesSource}};
    if (!r.model.uncountedNodes.empty()) model["uncountedNodes"] = r.model.uncountedNodes;
    for (const auto& t : r.model.inputs) model["inputs"].push_back(tensorDescJson(t));
    for (const auto& t : r.model.outputs) model["outputs"].push_back(tensorDescJson(t));

    json layers = json::array();
    for (const auto& l : r.layers) {
        layers.push_back({{"id", l.id},
                          {"fullName", l.fullName},
                          {"opType", l.opType},
                          {"dataType", l.dataType},
                          {"target", l.target},
                          {"inputShape", l.inputShapes},
                          {"outputShape", l.outputShapes},
                          {"macs", l.macs},
                          {"bytesRead", l.bytesRead},
                          {"bytesWritten", l.bytesWritten},
                          {"rwKB", l.rwKB()},
                          {"timeUs", l.timeUs},
                          {"timeUsMin", l.timeUsMin},
                          {"timePercent", l.timePercent},
                          {"cycles", {{"ddr", optionalJson(l.cyclesDdr)}, {"npu", optionalJson(l.cyclesNpu)},
                                      {"total", optionalJson(l.cyclesTotal)}}},
                          {"macUsagePercent", optionalJson(l.macUsagePercent)}});
        if (!l.fusedNodes.empty()) layers.back()["fusedNodes"] = l.fusedNodes;
        if (!l.fusedInto.empty()) layers.back()["fusedInto"] = l.fusedInto;
    }
    json tensors = json::array();
    for (const auto& t : r.memory.tensors)
        tensors.push_back({{"name", t.name}, {"bytes", t.bytes}, {"offset", t.offset}, {"firstStep", t.firstStep},
                           {"lastStep", t.lastStep}});
    json suggestions = json::array();
    for (const auto& s : r.suggestions)
        suggestions.push_back({{"rule", s.rule}, {"hazard", s.hazard}, {"mitigation", s.mitigation}, {"nodes", s.nodes},
                               {"estimatedGainUs", s.estimatedGainUs}, {"pass", s.pass}});
    json fallbacks = json::array();
    for (const auto& f : r.fallbacks) fallbacks.push_back({{"node", f.node}, {"opType", f.opType}, {"reason", f.reason}});
    json out = {{"schema", "npuwb.report"},
            {"schemaVersion", kReportSchemaVersion},
            {"kind", r.kind},
            {"tool", {{"name", r.tool}, {"version", r.toolVersion}}},
            {"createdAt", r.createdAt},
            {"model", model},
            {"environment", {{"host", r.environment.host}, {"os", r.environment.os}, {"cpu", r.environment.cpu},
                             {"cores", r.environment.cores}, {"threads", r.environment.threads},
                             {"backend", r.environment.backend}, {"device", r.environment.device}}},
            {"run", {{"runs", r.run.runs}, {"warmup", r.run.warmup}, {"medianUs", r.run.medianUs}, {"minUs", r.run.minUs},
                     {"meanUs", r.run.meanUs}, {"maxUs", r.run.maxUs}, {"samplesUs", r.run.samplesUs},
                     {"sessionCreateUs", r.run.sessionCreateUs}}},
            {"layers", layers},
            {"memory", {{"weightBytes", r.memory.weightBytes}, {"ioBytes", r.memory.ioBytes},
                        {"arenaBytes", r.memory.arenaBytes}, {"lowerBoundBytes", r.memory.lowerBoundBytes},
                        {"peakRssBytes", r.memory.peakRssBytes}, {"tensors", tensors}}},
            {"suggestions", suggestions},
            {"fallbacks", fallbacks}};
    if (!r.removedLayers.empty()) {
        json removed = json::array();
        for (const auto& l : r.removedLayers)
            removed.push_back({{"id", l.id}, {"fullName", l.fullName}, {"opType", l.opType}, {"removedBy", l.removedBy}});
        out["removedLayers"] = std::move(removed);
    }
    addBoardFields(out, r);
    if (r.accuracy) out["accuracy"] = accuracyJson(*r.accuracy);
    if (r.partition) out["partition"] = partitionJson(*r.partition);
    if (!r.traces.empty()) out["traces"] = tracesJson(r.traces);
    if (r.runtime) out["runtime"] = runtimeJson(*r.runtime);
    return out;
}

Report reportFromJson(const json& j) {
    try {
        if (j.value("schema", "") != "npuwb.report") failInput("not an NPU Workbench report (field 'schema')");
        const int64_t version = j.at("schemaVersion").get<int64_t>();
        if (version > kReportSchemaVersion)
            failInput("report schema version " + std::to_string(version) + " is newer than this program understands (" +
                      std::to_string(kReportSchemaVersion) + ")");
        Report r;
        r.kind = j.at("kind").get<std::string>();
        r.tool = j.at("tool").at("name").get<std::string>();
        r.toolVersion = j.at("tool").at("version").get<std::string>();
        r.createdAt = j.value("createdAt", "");
        const json& m = j.at("model");
        r.model.path = m.at("path").get<std::string>();
        r.model.name = m.at("name").get<std::string>();
        r.model.producer = m.value("producer", "");
        r.model.irVersion = m.value("irVersion", int64_t(0));
        r.model.opset = m.value("opset", int64_t(0));
        for (const auto& t : m.at("inputs")) r.model.inputs.push_back(tensorDescFrom(t));
        for (const auto& t : m.at("outputs")) r.model.outputs.push_back(tensorDescFrom(t));
        r.model.nodeCount = m.at("nodeCount").get<int64_t>();
        r.model.parameterCount = m.at("parameterCount").get<int64_t>();
        r.model.weightBytes = m.at("weightBytes").get<int64_t>();
        r.model.macs = m.at("macs").get<int64_t>();
        r.model.opHistogram = m.at("opHistogram").get<std::map<std::string, int64_t>>();
        r.model.shapesSource = m.value("shapesSource", "model");
        if (m.contains("uncountedNodes"))
            r.model.uncountedNodes = m.at("uncountedNodes").get<std::vector<std::string>>();
        const json& e = j.at("environment");
        r.environment.host = e.value("host", "");
        r.environment.os = e.value("os", "");
        r.environment.cpu = e.value("cpu", "");
        r.environment.cores = e.value("cores", int64_t(0));
        r.environment.threads = e.value("threads", int64_t(1));
        r.environment.backend = e.value("backend", "");
        r.environment.device = e.value("device", "");
        const json& run = j.at("run");
        r.run.runs = run.at("runs").get<int64_t>();
        r.run.warmup = run.at("warmup").get<int64_t>();
        r.run.medianUs = run.at("medianUs").get<double>();
        r.run.minUs = run.at("minUs").get<double>();
        r.run.meanUs = run.value("meanUs", 0.0);
        r.run.maxUs = run.value("maxUs", 0.0);
        r.run.samplesUs = run.value("samplesUs", std::vector<double>{});
        r.run.sessionCreateUs = run.value("sessionCreateUs", 0.0);
        r.run.estimateBasis = run.value("estimateBasis", "");
        for (const auto& l : j.at("layers")) {
            LayerRow row;
            row.id = l.at("id").get<int64_t>();
            row.fullName = l.at("fullName").get<std::string>();
            row.opType = l.at("opType").get<std::string>();
            row.dataType = l.value("dataType", "");
            row.target = l.value("target", "CPU");
            row.inputShapes = l.value("inputShape", std::vector<std::vector<int64_t>>{});
            row.outputShapes = l.value("outputShape", std::vector<std::vector<int64_t>>{});
            row.macs = l.value("macs", int64_t(0));
            row.bytesRead = l.value("bytesRead", int64_t(0));
            row.bytesWritten = l.value("bytesWritten", int64_t(0));
            row.timeUs = l.at("timeUs").get<double>();
            row.timeUsMin = l.value("timeUsMin", row.timeUs);
            row.timePercent = l.value("timePercent", 0.0);
            if (l.contains("cycles")) {
                row.cyclesDdr = optionalFrom<int64_t>(l.at("cycles"), "ddr");
                row.cyclesNpu = optionalFrom<int64_t>(l.at("cycles"), "npu");
                row.cyclesTotal = optionalFrom<int64_t>(l.at("cycles"), "total");
            }
            row.macUsagePercent = optionalFrom<double>(l, "macUsagePercent");
            row.fusedNodes = l.value("fusedNodes", std::vector<std::string>{});
            row.fusedInto = l.value("fusedInto", std::string());
            r.layers.push_back(std::move(row));
        }
        const json& mem = j.at("memory");
        r.memory.weightBytes = mem.at("weightBytes").get<int64_t>();
        r.memory.ioBytes = mem.at("ioBytes").get<int64_t>();
        r.memory.arenaBytes = mem.at("arenaBytes").get<int64_t>();
        r.memory.lowerBoundBytes = mem.at("lowerBoundBytes").get<int64_t>();
        r.memory.peakRssBytes = mem.value("peakRssBytes", int64_t(0));
        for (const auto& t : mem.value("tensors", json::array()))
            r.memory.tensors.push_back({t.at("name").get<std::string>(), t.at("bytes").get<int64_t>(),
                                        t.at("offset").get<int64_t>(), t.at("firstStep").get<int64_t>(),
                                        t.at("lastStep").get<int64_t>()});
        for (const auto& s : j.value("suggestions", json::array()))
            r.suggestions.push_back({s.at("rule").get<std::string>(), s.value("hazard", ""), s.value("mitigation", ""),
                                     s.value("nodes", std::vector<std::string>{}), s.value("estimatedGainUs", 0.0),
                                     s.value("pass", "")});
        // Optional: reports written before backends existed have no fallback list.
        for (const auto& f : j.value("fallbacks", json::array()))
            r.fallbacks.push_back({f.at("node").get<std::string>(), f.value("opType", ""), f.value("reason", "")});
        for (const auto& l : j.value("removedLayers", json::array()))
            r.removedLayers.push_back({l.at("id").get<int64_t>(), l.at("fullName").get<std::string>(),
                                       l.value("opType", ""), l.value("removedBy", "")});
        readBoardFields(j, r);
        if (j.contains("accuracy") && !j.at("accuracy").is_null()) r.accuracy = accuracyFrom(j.at("accuracy"));
        if (j.contains("partition") && !j.at("partition").is_null()) r.partition = partitionFrom(j.at("partition"));
        if (j.contains("traces")) r.traces = tracesFrom(j.at("traces"));
        if (j.contains("runtime") && !j.at("runtime").is_null()) r.runtime = runtimeFrom(j.at("runtime"));
        return r;
    } catch (const json::exception& e) {
        failInput(std::string("invalid report: ") + e.what());
    }
}

std::string reportToString(const Report& report) { return toJson(report).dump(2) + "\n"; }

Report loadReport(const std::string& path) {
    json j;
    try {
        // Exact53: an integer read into a time field would be written back as a float beyond 2^53.
        j = parseJsonText(readFile(path), JsonIntegers::Exact53);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers too large
        failInput(path + ": not valid JSON: " + e.what());
    }
    try {
        return reportFromJson(j);
    } catch (const Error& e) {
        failInput(path + ": " + e.what());
    }
}

void saveReport(const Report& report, const std::string& path) { writeFileAtomically(path, reportToString(report)); }

Report newReport(const std::string& kind) {
    Report report;
    report.kind = kind;
#ifdef NPUWB_VERSION
    report.toolVersion = NPUWB_VERSION;
#endif
    report.createdAt = utcTimestamp();
    return report;
}

void setRunSamples(RunStats& run, std::vector<double> samplesUs) {
    run.runs = static_cast<int64_t>(samplesUs.size());
    run.samplesUs = samplesUs;
    if (samplesUs.empty()) return;
    std::sort(samplesUs.begin(), samplesUs.end());
    run.medianUs = samplesUs[samplesUs.size() / 2];
    run.minUs = samplesUs.front();
    run.maxUs = samplesUs.back();
    double sum = 0;
    for (double s : samplesUs) sum += s;
    run.meanUs = sum / static_cast<double>(samplesUs.size());
}

std::string utcTimestamp() {
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

bool macsUnknown(const ModelSummary& summary) {
    if (summary.macs != 0) return false;
    if (!summary.uncountedNodes.empty()) return true;
    for (const auto& t : summary.inputs)
        for (const auto& d : t.shape)
            if (d.empty() || !std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; })) return true;
    return false;
}

}  // namespace npuwb
