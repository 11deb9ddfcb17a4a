// libFuzzer target: chip profile JSON (resources/chips) through the profile reader.
#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    nlohmann::json j = nlohmann::json::parse(npuwb::fuzz::bytesOf(data, size), nullptr, false);
    if (j.is_discarded()) return 0;
    try {
        (void)npuwb::chipProfileFromJson(j, "fuzz.json");
    } catch (const npuwb::Error&) {
    }
    return 0;
}
