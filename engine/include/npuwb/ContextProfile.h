#pragma once
// Multi-batch with several contexts on the CPU backends: an ONNX model run as `contexts` execution
// contexts at once, as the NPU runtime runs a .rknn with rknn_dup_context. Context 0 is a Session; the others are
// its Session::newContext() copies, which compile their own plans (own activation arena, own threads) on the same
// backend instance and so share the weights it packed. Each pass spreads `batch` slices (one model run each)
// round-robin over the contexts; each context runs on its own thread, pinned to the CPUs of its core mask.
#include <memory>
#include <vector>

#include "npuwb/Profiler.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb {

/// The CPUs a core mask pins a context's threads to on this machine: "k" -> CPU k, "0_1" -> CPUs 0 and 1, "0_1_2"
/// -> CPUs 0 to 2, "all" -> every CPU this process may use, "auto" -> none (no pinning: the scheduler decides).
/// Throws InvalidInput naming the mask and the usable CPUs when it names a CPU this process may not use.
std::vector<int> cpusOfCoreMask(NpuCoreMask mask);

/// Runs `options.warmup` + `options.runs` passes and returns a Report of kind "profile" with its runtime section
/// (contexts, each one's core mask, scratch memory and slices per pass; the weights once; throughput) and a
/// "contexts" trace (one lane per context, one bar per slice). Layer rows, when `options.perLayer`, come from a
/// separate single-context profile of slice 0 before the contexts start. Inputs: `options.inputFiles` (a .npy with
/// the input's shape, used for every slice, or `batch` slices of it stacked on axis 0), seeded uniform random values
/// otherwise. `executor.threads` (0: the physical cores) is split evenly among the contexts. `control.progress`
/// counts passes; `control.cancel` is checked between passes (Error(Cancelled)).
Report profileContexts(std::shared_ptr<const Model> model, const ExecutorOptions& executor,
                       const ModelRunOptions& options, const ProfileControl& control = {});

}  // namespace npuwb
