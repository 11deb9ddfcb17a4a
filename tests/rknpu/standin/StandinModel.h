#pragma once
// What the stand-in keeps per loaded model (shared by every context made from it with rknn_dup_context) and per
// context (its own session, buffers and last-run figures). Engine public API only.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "StandinContainer.h"
#include "StandinZeroCopy.h"
#include "npuwb/Session.h"
#include "standin_rknn_api.h"

namespace npuwb::standin {

/// One model input or output as the container presents it: the ONNX value's type and shape, the batch dim scaled.
struct IoDesc {
    std::string name;
    DType dtype = DType::F32;
    Shape itemShape;   // the ONNX model's shape (one batch item)
    Shape shape;       // as reported: dim 0 times the container's batch
    int64_t itemElements = 0;
    size_t itemBytes = 0;
};

/// The loaded model: graph and initializers (the weights), allocated once per rknn_init.
struct LoadedModel {
    std::shared_ptr<const Model> model;
    std::string targetPlatform;
    int64_t batch = 1;
    int64_t npuCores = 1;  // from the chip profile of the target platform
    uint32_t inputWidthAlign = kDefaultInputWidthAlign;  // native input rows (StandinZeroCopy.h)
    std::vector<IoDesc> inputs, outputs;
    uint64_t weightBytes = 0;    // initializer bytes
    uint64_t internalBytes = 0;  // intermediate values of one run (no reuse assumed), per context
};

/// Loads a container's model; throws npuwb::Error naming `label`.
std::shared_ptr<const LoadedModel> loadModel(const std::string& containerBytes, const std::string& label);

/// Per-layer times of the last rknn_run, from the engine's execution observer.
class LayerTimes;

struct Context {
    std::shared_ptr<const LoadedModel> loaded;
    uint32_t flags = 0;
    std::unique_ptr<Session> session;
    std::unique_ptr<LayerTimes> layerTimes;  // only with RKNN_FLAG_COLLECT_PERF_MASK
    int coreMask = RKNN_NPU_CORE_AUTO;
    int batchCoreNum = 1;

    std::mutex mutex;  // one call at a time per context; different contexts run concurrently
    std::vector<std::optional<Tensor>> inputs;  // all batch items, the model's dtype and NCHW order
    std::vector<Tensor> outputs;                // of the last run, all batch items
    std::vector<std::unique_ptr<std::vector<char>>> heldOutputs;  // buffers given out by rknn_outputs_get
    std::vector<std::optional<IoBinding>> inputMems, outputMems;  // rknn_set_io_mem: read at / written after each run
    int memsCreated = 0;  // rknn_create_mem calls on this context (NPUWB_STANDIN_FAIL_CREATE_MEM counts them)
    bool ran = false;
    uint64_t frames = 0;  // runs so far (rknn_run_extend / rknn_output_extend frame_id)
    int64_t lastRunUs = 0;
    std::string perfDetail;  // of the last run (RKNN_QUERY_PERF_DETAIL points into it)

    Context(std::shared_ptr<const LoadedModel> model, uint32_t initFlags);
    ~Context();
    /// Runs the model once per batch item; fills outputs, lastRunUs and (with perf collection) perfDetail.
    void run();
};

}  // namespace npuwb::standin
