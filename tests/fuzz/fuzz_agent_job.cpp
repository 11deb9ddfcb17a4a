// libFuzzer target: the board agent's job (one JSON object on its stdin, app/agent/README.md) through its parser.
#include "FuzzSupport.h"
#include "Job.h"
#include "npuwb/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        (void)npuwb::agent::parseJob(npuwb::fuzz::bytesOf(data, size), "fuzz job");
    } catch (const npuwb::Error&) {
    }
    return 0;
}
