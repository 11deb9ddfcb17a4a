// libFuzzer target: arbitrary bytes through ONNX import, model validation and the static summary.
// Any crash, sanitizer report or hang is a finding; npuwb::Error is the expected outcome for bad bytes.
// ONNX's shape inference is left out: it runs in a forked child (onnx/IsolatedShapeInference.h), which is crash-proof
// by construction but too slow to fork per input and invisible to the fuzzer's coverage.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "npuwb/ModelSummary.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        auto model = std::make_shared<npuwb::Model>(
            npuwb::loadModelFromBytes(std::string(reinterpret_cast<const char*>(data), size), "/nonexistent", "fuzz.onnx",
                                      npuwb::ImportOptions{.inferShapes = false, .foldConstants = true}));
        npuwb::summarizeModel(*model);
        npuwb::Session session(model);
        (void)session.executionOrder();
    } catch (const npuwb::Error&) {
    }
    return 0;
}
