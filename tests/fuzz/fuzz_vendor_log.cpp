// libFuzzer target: text through the RKNN perf-log parser (eval_perf tables, RKNN_LOG_LEVEL=4 perf detail) and
// the report made from it.
#include "FuzzSupport.h"
#include "npuwb/Error.h"
#include "npuwb/VendorPerfLog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        npuwb::VendorPerfLog log = npuwb::parseRknnPerfLog(npuwb::fuzz::bytesOf(data, size), "fuzz.txt");
        (void)npuwb::reportFromRknnPerfLog(log, "fuzz.txt");
    } catch (const npuwb::Error&) {
    }
    return 0;
}
