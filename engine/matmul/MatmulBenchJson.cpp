// The matmul bench's JSON: the result (`npuwb-cli matmul-bench --json`, and a board's answer to a matmul job) and
// the sweep's options (a board job's "matmul"). Fields: engine/matmul/README.md.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "npuwb/Error.h"
#include "npuwb/MatmulBench.h"

namespace npuwb {

namespace {

using nlohmann::json;

constexpr int kSchemaVersion = 2;

/// j[key] as T, or `fallback` when absent; InvalidInput naming the field when it has another type.
template <class T>
T read(const json& j, const char* key, const T& fallback, const std::string& source) {
    if (!j.contains(key)) return fallback;
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        failInput(source + ": field '" + key + "' has the wrong type (" + j.at(key).dump() + ")");
    }
}

void requireAtLeast(int64_t value, int64_t minimum, const char* key, const std::string& source) {
    if (value < minimum)
        failInput(source + ": field '" + key + "' must be at least " + std::to_string(minimum) + " (got " +
                  std::to_string(value) + ")");
}

NpuCoreMask coreMaskField(const json& j, const std::string& source) {
    const std::string name = read<std::string>(j, "coreMask", "auto", source);
    NpuCoreMask mask = NpuCoreMask::Auto;
    if (!parseCoreMask(name, mask))
        failInput(source + ": field 'coreMask' must be auto, 0, 1, 2, 0_1, 0_1_2 or all (got '" + name + "')");
    return mask;
}

std::vector<int64_t> sizesField(const json& j, const char* key, const std::vector<int64_t>& fallback,
                                const std::string& source) {
    std::vector<int64_t> sizes = read<std::vector<int64_t>>(j, key, fallback, source);
    if (sizes.empty()) failInput(source + ": field '" + key + "' needs at least one size");
    for (int64_t v : sizes) requireAtLeast(v, 1, key, source);
    return sizes;
}

}  // namespace

json matmulBenchJson(const MatmulBenchResult& r) {
    const MatmulTypeInfo& info = matmulTypeInfo(r.type);
    json points = json::array();
    for (const auto& p : r.points) {
        const double flops = 2.0 * double(p.M) * double(p.K) * double(p.N);
        points.push_back({{"M", p.M},
                          {"K", p.K},
                          {"N", p.N},
                          {"medianUs", p.medianUs},
                          {"minUs", p.minUs},
                          {"gops", p.gops},
                          {"bToNativeUs", p.bToNativeUs},
                          {"acToNativeUs", p.acToNativeUs},
                          {"backend", p.backend},
                          {"fallbackReason", p.fallbackReason},
                          {"predictedOverMeasured", p.medianUs > 0 ? p.estimate.timeUs / p.medianUs : 0.0},
                          {"nativeLayouts", {{"A", p.aLayout}, {"B", p.bLayout}, {"C", p.cLayout}}},
                          {"estimate",
                           {{"timeUs", p.estimate.timeUs},
                            {"gops", p.estimate.timeUs > 0 ? flops / p.estimate.timeUs / 1e3 : 0.0},
                            {"npuCycles", p.estimate.npuCycles},
                            {"ddrCycles", p.estimate.ddrCycles},
                            {"paddedMacs", p.estimate.paddedMacs},
                            {"bytesMoved", p.estimate.bytesMoved},
                            {"macUsagePercent", p.estimate.macUsagePercent}}}});
    }
    return {{"schema", "npuwb-matmul-bench"},
            {"schemaVersion", kSchemaVersion},
            {"chip", r.chip},
            {"type", info.name},
            {"vendorType", info.vendorName},
            {"typeNumber", int(r.type)},
            {"bLayout", matmulLayoutName(r.bLayout)},
            {"acLayout", matmulLayoutName(r.acLayout)},
            {"measuredOn", r.measuredOn},
            {"threads", r.threads},
            {"npuCores", r.npuCores},
            {"coreMask", coreMaskName(r.coreMask)},
            {"peakGops", r.peakGops},
            {"points", points}};
}

MatmulBenchResult matmulBenchResultFromJson(const json& j, const std::string& source) {
    if (!j.is_object() || read<std::string>(j, "schema", "", source) != "npuwb-matmul-bench")
        failInput(source + " is no matmul-bench result (\"schema\": \"npuwb-matmul-bench\")");
    if (const int version = read<int>(j, "schemaVersion", 0, source); version != kSchemaVersion)
        failInput(source + ": matmul-bench schemaVersion " + std::to_string(version) + ", this build reads " +
                  std::to_string(kSchemaVersion));
    MatmulBenchResult r;
    r.chip = read<std::string>(j, "chip", "", source);
    r.type = parseMatmulType(read<std::string>(j, "type", "", source));
    r.bLayout = parseMatmulLayout(read<std::string>(j, "bLayout", "native", source));
    r.acLayout = parseMatmulLayout(read<std::string>(j, "acLayout", "norm", source));
    r.measuredOn = read<std::string>(j, "measuredOn", "cpu", source);
    r.threads = read<int>(j, "threads", 0, source);
    r.npuCores = read<int64_t>(j, "npuCores", 1, source);
    r.coreMask = coreMaskField(j, source);
    r.peakGops = read<double>(j, "peakGops", 0, source);
    const json points = read<json>(j, "points", json::array(), source);
    if (!points.is_array()) failInput(source + ": field 'points' must be a list");
    for (const json& p : points) {
        const std::string where = source + " point " + std::to_string(r.points.size());
        if (!p.is_object()) failInput(where + " is not an object");
        MatmulBenchPoint q;
        q.M = read<int64_t>(p, "M", 0, where);
        q.K = read<int64_t>(p, "K", 0, where);
        q.N = read<int64_t>(p, "N", 0, where);
        q.medianUs = read<double>(p, "medianUs", 0, where);
        q.minUs = read<double>(p, "minUs", 0, where);
        q.gops = read<double>(p, "gops", 0, where);
        q.bToNativeUs = read<double>(p, "bToNativeUs", 0, where);
        q.acToNativeUs = read<double>(p, "acToNativeUs", 0, where);
        q.backend = read<std::string>(p, "backend", "", where);
        q.fallbackReason = read<std::string>(p, "fallbackReason", "", where);
        const json layouts = read<json>(p, "nativeLayouts", json::object(), where);
        q.aLayout = read<std::string>(layouts, "A", "", where + " nativeLayouts");
        q.bLayout = read<std::string>(layouts, "B", "", where + " nativeLayouts");
        q.cLayout = read<std::string>(layouts, "C", "", where + " nativeLayouts");
        const json e = read<json>(p, "estimate", json::object(), where);
        const std::string estimate = where + " estimate";
        q.estimate.timeUs = read<double>(e, "timeUs", 0, estimate);
        q.estimate.npuCycles = read<double>(e, "npuCycles", 0, estimate);
        q.estimate.ddrCycles = read<double>(e, "ddrCycles", 0, estimate);
        q.estimate.paddedMacs = read<int64_t>(e, "paddedMacs", 0, estimate);
        q.estimate.bytesMoved = read<int64_t>(e, "bytesMoved", 0, estimate);
        q.estimate.macUsagePercent = read<double>(e, "macUsagePercent", 0, estimate);
        q.estimate.peakGops = r.peakGops;
        r.points.push_back(q);
    }
    return r;
}

json matmulBenchOptionsJson(const MatmulBenchOptions& o) {
    return {{"type", matmulTypeInfo(o.type).name},
            {"bLayout", matmulLayoutName(o.bLayout)},
            {"acLayout", matmulLayoutName(o.acLayout)},
            {"M", o.mValues},
            {"K", o.kValues},
            {"N", o.nValues},
            {"runs", o.runs},
            {"warmup", o.warmup},
            {"npuCores", o.npuCores},
            {"coreMask", coreMaskName(o.coreMask)},
            {"seed", o.seed}};
}

MatmulBenchOptions matmulBenchOptionsFromJson(const json& j, const std::string& source) {
    if (!j.is_object()) failInput(source + " must be an object");
    static const std::vector<std::string> known = {"type", "bLayout", "acLayout", "M", "K", "N",
                                                   "runs", "warmup", "npuCores", "coreMask", "seed"};
    for (const auto& [key, value] : j.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            failInput(source + ": unknown field '" + key + "'");
    MatmulBenchOptions o;
    if (j.contains("type")) o.type = parseMatmulType(read<std::string>(j, "type", "", source));
    o.bLayout = parseMatmulLayout(read<std::string>(j, "bLayout", "native", source));
    o.acLayout = parseMatmulLayout(read<std::string>(j, "acLayout", "norm", source));
    o.mValues = sizesField(j, "M", o.mValues, source);
    o.kValues = sizesField(j, "K", o.kValues, source);
    o.nValues = sizesField(j, "N", o.nValues, source);
    o.runs = read<int>(j, "runs", o.runs, source);
    requireAtLeast(o.runs, 1, "runs", source);
    o.warmup = read<int>(j, "warmup", o.warmup, source);
    requireAtLeast(o.warmup, 0, "warmup", source);
    o.npuCores = read<int64_t>(j, "npuCores", o.npuCores, source);
    requireAtLeast(o.npuCores, 1, "npuCores", source);
    o.coreMask = coreMaskField(j, source);
    o.seed = read<uint64_t>(j, "seed", o.seed, source);
    return o;
}

}  // namespace npuwb
