// libFuzzer target: chip profile JSON (resources/chips) through the file reader (loadChipProfile).
#include "FuzzSupport.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        (void)npuwb::loadChipProfile(npuwb::fuzz::scratchFile("chip.json", data, size));
    } catch (const npuwb::Error&) {
    }
    return 0;
}
