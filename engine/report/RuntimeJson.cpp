#include "report/RuntimeJson.h"

namespace npuwb {

using nlohmann::json;

json runtimeJson(const RuntimeSection& r) {
    json contexts = json::array();
    for (const RuntimeContext& c : r.contexts)
        contexts.push_back({{"index", c.index},
                            {"coreMask", c.coreMask},
                            {"internalBytes", c.internalBytes},
                            {"slicesPerPass", c.slicesPerPass}});
    json out = {{"runtime", r.runtime},         {"library", r.library},
                {"apiVersion", r.apiVersion},   {"driverVersion", r.driverVersion},
                {"timing", r.timing},           {"layerTiming", r.layerTiming},
                {"batch", r.batch},             {"contexts", std::move(contexts)},
                {"weightBytes", r.weightBytes}, {"totalBytes", r.totalBytes},
                {"samplesPerSecond", r.samplesPerSecond}, {"notes", r.notes}};
    if (r.perfRunMedianUs) out["perfRunMedianUs"] = *r.perfRunMedianUs;
    return out;
}

RuntimeSection runtimeFrom(const json& j) {
    RuntimeSection r;
    r.runtime = j.at("runtime").get<std::string>();
    r.library = j.value("library", "");
    r.apiVersion = j.value("apiVersion", "");
    r.driverVersion = j.value("driverVersion", "");
    r.timing = j.value("timing", "");
    r.layerTiming = j.value("layerTiming", "");
    r.batch = j.value("batch", int64_t{1});
    for (const json& c : j.value("contexts", json::array())) {
        RuntimeContext context;
        context.index = c.at("index").get<int64_t>();
        context.coreMask = c.value("coreMask", "auto");
        context.internalBytes = c.value("internalBytes", int64_t{0});
        context.slicesPerPass = c.value("slicesPerPass", int64_t{0});
        r.contexts.push_back(std::move(context));
    }
    r.weightBytes = j.value("weightBytes", int64_t{0});
    r.totalBytes = j.value("totalBytes", int64_t{0});
    r.samplesPerSecond = j.value("samplesPerSecond", 0.0);
    if (j.contains("perfRunMedianUs") && !j.at("perfRunMedianUs").is_null())
        r.perfRunMedianUs = j.at("perfRunMedianUs").get<double>();
    r.notes = j.value("notes", std::vector<std::string>{});
    return r;
}

}  // namespace npuwb
