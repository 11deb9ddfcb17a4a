// Parsing JSON text for the formats the engine reads (reports, chip and device profiles, agent jobs, precision maps):
// nlohmann's parser plus one limit. A float with a magnitude beyond 2^53 (and, for reports, an integer) is refused
// while parsing: no field of ours holds one, and reading such a floating-point number into an integer field is
// undefined behaviour.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace npuwb {

/// Throws nlohmann::json::exception (parse_error, or out_of_range for a number beyond the limit), which the readers
/// wrap into an error naming their file.
/// How large an integer may be: `Any` keeps 64-bit integers exact (seeds on the wire); `Exact53` refuses them beyond
/// 2^53 like floats, for documents whose numbers may land in floating-point fields (reports).
enum class JsonIntegers { Any, Exact53 };
nlohmann::json parseJsonText(const std::string& text, JsonIntegers integers = JsonIntegers::Any);

}  // namespace npuwb
