// libFuzzer target: .npy bytes through the parser, and a parsed array written back and read again unchanged.
#include <cstring>

#include "FuzzSupport.h"
#include "npuwb/Error.h"
#include "npuwb/Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npuwb::fuzz::limitMemory();
    npuwb::Tensor t;
    try {
        t = npuwb::parseNpy(npuwb::fuzz::bytesOf(data, size), "fuzz.npy");
    } catch (const npuwb::Error&) {
        return 0;
    }
    std::string again;
    try {
        again = npuwb::serializeNpy(t);
    } catch (const npuwb::Error&) {
        return 0;  // a type .npy can hold but we do not write
    }
    npuwb::Tensor back = npuwb::parseNpy(again, "round-trip.npy");
    if (back.shape() != t.shape() || back.dtype() != t.dtype() || back.byteSize() != t.byteSize() ||
        (t.byteSize() && std::memcmp(back.raw(), t.raw(), t.byteSize()) != 0))
        __builtin_trap();  // the round trip changed the array
    return 0;
}
