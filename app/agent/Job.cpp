#include "Job.h"

#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb::agent {

using nlohmann::json;

namespace {

int intField(const json& j, const char* key, int fallback, int minimum, const std::string& source) {
    if (!j.contains(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < minimum || v.get<int64_t>() > 1'000'000'000)
        failInput("job " + source + ": '" + key + "' must be an integer of at least " + std::to_string(minimum) +
                  ", got " + v.dump());
    return v.get<int>();
}

}  // namespace

Job parseJob(const std::string& text, const std::string& source) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers too large
        failInput("job " + source + " is not valid JSON: " + e.what());
    }
    if (!j.is_object()) failInput("job " + source + " must be a JSON object");
    static const char* const known[] = {"model", "backend", "runs", "warmup", "threads", "seed", "inputShapes",
                                        "telemetryIntervalMs"};
    for (const auto& [key, value] : j.items())
        if (std::find(std::begin(known), std::end(known), key) == std::end(known))
            failInput("job " + source + ": unknown field '" + key + "'");
    Job job;
    if (!j.contains("model") || !j.at("model").is_string() || j.at("model").get<std::string>().empty())
        failInput("job " + source + ": 'model' (the model file path) is missing or not a string");
    job.model = j.at("model").get<std::string>();
    if (j.contains("backend")) {
        if (!j.at("backend").is_string()) failInput("job " + source + ": 'backend' must be a string");
        job.backend = j.at("backend").get<std::string>();
    }
    job.runs = intField(j, "runs", job.runs, 1, source);
    job.warmup = intField(j, "warmup", job.warmup, 0, source);
    job.threads = intField(j, "threads", job.threads, 0, source);
    job.telemetryIntervalMs = intField(j, "telemetryIntervalMs", job.telemetryIntervalMs, 0, source);
    if (j.contains("seed")) {
        if (!j.at("seed").is_number_unsigned()) failInput("job " + source + ": 'seed' must be a non-negative integer");
        job.seed = j.at("seed").get<uint64_t>();
    }
    if (j.contains("inputShapes")) {
        const json& shapes = j.at("inputShapes");
        if (!shapes.is_object()) failInput("job " + source + ": 'inputShapes' must be an object {input: [dims]}");
        for (const auto& [name, dims] : shapes.items()) {
            Shape shape;
            bool ok = dims.is_array();
            for (const auto& d : ok ? dims : json::array()) {
                ok = ok && d.is_number_integer() && d.get<int64_t>() >= 0;
                if (ok) shape.push_back(d.get<int64_t>());
            }
            if (!ok) failInput("job " + source + ": inputShapes['" + name + "'] must be a list of non-negative integers");
            job.inputShapes[name] = shape;
        }
    }
    return job;
}

Job loadJob(const std::string& path) {
    if (path == "-") {
        std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        return parseJob(text, "(stdin)");
    }
    return parseJob(readFile(path), "'" + path + "'");
}

}  // namespace npuwb::agent
