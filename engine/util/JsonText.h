// Parsing JSON text for the formats the engine reads (reports, chip and device profiles, agent jobs, precision maps):
// nlohmann's parser plus one limit. A number with a magnitude beyond 2^53 is refused while parsing: no field of
// ours holds one, and reading such a floating-point number into an integer field is undefined behaviour.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace npuwb {

/// Throws nlohmann::json::exception (parse_error, or out_of_range for a number beyond the limit), which the readers
/// wrap into an error naming their file.
nlohmann::json parseJsonText(const std::string& text);

}  // namespace npuwb
