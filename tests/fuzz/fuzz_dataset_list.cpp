// libFuzzer target: a calibration list (dataset.txt: one sample per line, a model's inputs separated by spaces,
// paths relative to the list) read by NpySampleSource for a two-input model, then every sample it lists loaded.
// The list lives in a private temporary folder beside two real .npy files the list may name.
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/Npy.h"
#include "npuwb/NpySampleSource.h"

namespace {
const std::string& folder() {
    static const std::string dir = [] {
        const std::string d = npuwb::fuzz::scratchFolder();
        npuwb::writeNpy(d + "/a.npy", npuwb::Tensor::fromVector<float>({1, 2}, {1.0f, 2.0f}));
        npuwb::writeNpy(d + "/b.npy", npuwb::Tensor::fromVector<int64_t>({3}, {1, 2, 3}));
        return d;
    }();
    return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npuwb::fuzz::limitMemory();
    const std::string list = folder() + "/dataset.txt";
    npuwb::writeFileAtomically(list, npuwb::fuzz::bytesOf(data, size));
    try {
        npuwb::quant::NpySampleSource source(list, std::vector<std::string>{"x", "y"});
        for (size_t i = 0; i < source.size(); ++i) (void)source.load(i);
        (void)source.contentHash();
    } catch (const npuwb::Error&) {
    }
    return 0;
}
