#pragma once
// The batch input buffers of a run: the user's .npy files (options.inputFiles) or seeded uniform random values of the
// input's type (options.randomSeed), never silent zeros. Private to the plugin.
#include <cstdint>
#include <string>
#include <vector>

#include "RknnApi.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::rknpu {

/// One input as the runtime reports it for one run, and the batch buffer fed to it.
struct RknnInputBuffer {
    rknn::TensorAttr attr{};
    std::string name;
    int32_t type = rknn::kUInt8;  // the element type of `data` (rknn_input.type): the model's, or float32 from a file
    uint32_t sliceBytes = 0;      // bytes of one batch slice in `data`
    std::vector<uint8_t> data;    // batch x sliceBytes
};

/// "float32", "uint8", ... for an rknn_tensor_type; "undefined" for anything else.
const char* rknnTypeName(int32_t type);

/// Fills the buffers of `inputs` (attr and name set) for `options.batch` slices. Throws InvalidInput naming the model,
/// the input and the file when a file has the wrong element type or count, or names no input of the model.
void prepareInputs(std::vector<RknnInputBuffer>& inputs, const ModelRunOptions& options, const std::string& model);

}  // namespace npuwb::rknpu
