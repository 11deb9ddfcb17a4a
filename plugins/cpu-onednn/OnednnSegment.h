#pragma once
// A oneDNN segment: the kernels (primitives, reorders, zero-copy views) of consecutive graph nodes, built once
// for fixed shapes. Values inside keep the layouts oneDNN picks (format_tag::any); reorders are added only where
// a consumer needs another layout and at the segment's outputs.
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include <oneapi/dnnl/dnnl.hpp>

#include "OnednnWeightCache.h"
#include "npuwb/sdk/Backend.h"

namespace npuwb::onednn {

/// A node that could not be built; the backend falls it back to the reference kernels and rebuilds.
struct NodeBuildError : std::runtime_error {
    size_t nodeIndex;
    NodeBuildError(size_t index, const std::string& why) : std::runtime_error(why), nodeIndex(index) {}
};

struct Kernel {
    std::function<void(dnnl::stream&)> run;
    std::vector<std::string> nodes;  // ONNX nodes it covers (for profiling)
    bool timed = true;               // zero-copy views take no time worth a clock read
    /// Touches so few bytes that waking the other threads costs more than the work: runs on the calling thread.
    bool serial = false;
};

/// Below this many bytes of arguments a primitive runs on one thread (a chain of tiny ops otherwise spends its time
/// in OpenMP fork/join and spinning workers).
inline constexpr size_t kSerialKernelBytes = 64 * 1024;

class OnednnSegment : public PreparedSegment {
public:
    OnednnSegment(dnnl::engine engine, int threads) : engine_(std::move(engine)), stream_(engine_), threads_(threads) {}
    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs, const RunHooks& hooks) override;
    int64_t scratchBytes() const override { return arenaBytes; }

    dnnl::engine engine_;
    dnnl::stream stream_;
    int threads_;
    std::vector<Kernel> kernels;
    std::vector<dnnl::memory> inputMemories;   // plain, handles set per run
    std::vector<DType> inputTypes, outputTypes;  // float32, or uint8/int8 where a quantized value crosses the boundary
    std::vector<dnnl::memory> outputMemories;  // the caller's tensor of each output (handle set per run)
    std::vector<Shape> outputShapes;
    std::unique_ptr<std::byte[]> arena;  // every activation buffer, at planned offsets
    int64_t arenaBytes = 0;
    ConstantHolders constants;  // the packed constants it reads, shared through the backend's WeightCache
    ValueObserver* values = nullptr;  // this run's (RunHooks::values), for the observing kernels
    std::mutex runMutex_;
};

/// Builds one segment: `nodes` (graph indices, consecutive in execution order), with `inputs`/`outputs` the
/// boundary values. Throws NodeBuildError for a node oneDNN cannot take.
std::unique_ptr<OnednnSegment> buildSegment(const GraphQuery& query, const std::vector<size_t>& nodes,
                                            const std::vector<std::string>& inputs,
                                            const std::vector<std::string>& outputs,
                                            const std::map<std::string, int>& consumerCount,
                                            const dnnl::engine& engine, int threads, WeightCache& weights);

}  // namespace npuwb::onednn
