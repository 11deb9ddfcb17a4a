// libFuzzer target: report JSON (the documented schema) read back, and a report that reads is written and read
// again without error.
#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "npuwb/Error.h"
#include "npuwb/Report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    nlohmann::json j = nlohmann::json::parse(npuwb::fuzz::bytesOf(data, size), nullptr, false);
    if (j.is_discarded()) return 0;
    npuwb::Report report;
    try {
        report = npuwb::reportFromJson(j);
    } catch (const npuwb::Error&) {
        return 0;
    }
    (void)npuwb::reportFromJson(nlohmann::json::parse(npuwb::reportToString(report)));  // must not throw
    return 0;
}
