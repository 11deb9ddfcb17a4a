// libFuzzer target: ONNX bytes through import (with the spec check), the static summary, layer-shape learning
// (estimation's one bounded reference run) and one reference run on generated inputs, under a 256 MB memory
// budget, a 2 s time limit and a loop-iteration cap. ONNX's own shape inference is left out as in
// fuzz_onnx_import (a forked child; too slow per input and invisible to coverage).
#include <chrono>
#include <memory>

#include "FuzzSupport.h"
#include "npuwb/CostModel.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npuwb::fuzz::limitMemory();
    try {
        auto model = std::make_shared<npuwb::Model>(npuwb::loadModelFromBytes(
            npuwb::fuzz::bytesOf(data, size), "/nonexistent", "fuzz.onnx",
            npuwb::ImportOptions{.inferShapes = false, .foldConstants = true}));
        npuwb::summarizeModel(*model);
        npuwb::RunLimitsScope limits(npuwb::RunLimits{
            .deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2),
            .timeoutSeconds = 2,
            .maxLoopIterations = 1000,
            .loopCapReason = "the fuzzer caps loops"});
        npuwb::Session session(model);
        auto inputs = npuwb::makeInputs(session, 1);
        session.runTensors(inputs);
    } catch (const npuwb::Error&) {
    }
    return 0;
}
