#include "util/JsonText.h"

#include <cmath>

namespace npuwb {

nlohmann::json parseJsonText(const std::string& text) {
    constexpr double kLargestExactInteger = 9007199254740992.0;  // 2^53
    return nlohmann::json::parse(text, [](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (event == nlohmann::json::parse_event_t::value && parsed.is_number_float() &&
            !(std::fabs(parsed.get<double>()) <= kLargestExactInteger))
            throw nlohmann::json::out_of_range::create(
                406, "number " + parsed.dump() + " is larger than any field holds (2^53)", nullptr);
        return true;
    });
}

}  // namespace npuwb
