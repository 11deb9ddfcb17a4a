#include "util/JsonText.h"

#include <cmath>
#include <cstdint>

namespace npuwb {

nlohmann::json parseJsonText(const std::string& text, JsonIntegers integers) {
    constexpr double kLargestExactInteger = 9007199254740992.0;  // 2^53
    constexpr uint64_t kLargestExactUnsigned = uint64_t{1} << 53;
    return nlohmann::json::parse(text, [integers](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (event != nlohmann::json::parse_event_t::value) return true;
        bool tooLarge = false;
        if (parsed.is_number_float())
            tooLarge = !(std::fabs(parsed.get<double>()) <= kLargestExactInteger);
        else if (integers == JsonIntegers::Any)
            tooLarge = false;
        else if (parsed.is_number_unsigned())
            tooLarge = parsed.get<uint64_t>() > kLargestExactUnsigned;
        else if (parsed.is_number_integer())
            tooLarge = parsed.get<int64_t>() < -static_cast<int64_t>(kLargestExactUnsigned);
        if (tooLarge)
            throw nlohmann::json::out_of_range::create(
                406, "number " + parsed.dump() + " is larger than any field holds (2^53)", nullptr);
        return true;
    });
}

}  // namespace npuwb
