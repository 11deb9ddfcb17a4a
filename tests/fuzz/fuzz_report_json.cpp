// libFuzzer target: report JSON (the documented schema) through the file reader users call (loadReport), and a
// report that reads is written and read again without error.
#include "FuzzSupport.h"
#include "npuwb/Error.h"
#include "npuwb/Report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npuwb::Report report;
    try {
        report = npuwb::loadReport(npuwb::fuzz::scratchFile("report.json", data, size));
    } catch (const npuwb::Error&) {
        return 0;
    }
    const std::string again = npuwb::fuzz::scratchFolder() + "/again.json";
    npuwb::saveReport(report, again);
    (void)npuwb::loadReport(again);  // must not throw
    return 0;
}
