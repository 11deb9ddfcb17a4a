#pragma once
// JSON of the report's optional timeline and partition sections (resources/schema/report.schema.json,
// `traces` and `partition`), kept apart from Report.cpp so each section reads on its own.
#include <vector>

#include <nlohmann/json.hpp>

#include "npuwb/Report.h"

namespace npuwb {

nlohmann::json tracesJson(const std::vector<Trace>& traces);
std::vector<Trace> tracesFrom(const nlohmann::json& j);

nlohmann::json partitionJson(const PartitionSection& partition);
PartitionSection partitionFrom(const nlohmann::json& j);

}  // namespace npuwb
