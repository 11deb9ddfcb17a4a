#pragma once
// JSON of the report's optional `runtime` section (resources/schema/report.schema.json): how a whole-model runtime
// ran the model, kept apart from Report.cpp like the other optional sections.
#include <nlohmann/json.hpp>

#include "npuwb/Report.h"

namespace npuwb {

nlohmann::json runtimeJson(const RuntimeSection& runtime);
RuntimeSection runtimeFrom(const nlohmann::json& j);

}  // namespace npuwb
