#pragma once
// Internal to engine/onnx: the IR as an ONNX ModelProto (what serializeModel writes), for code that works on the
// protobuf form (shape inference with other input shapes).
#include <onnx/onnx_pb.h>

#include "npuwb/ir/Graph.h"

namespace npuwb::onnxconv {

enum class WeightData {
    Full,              // what serializeModel writes
    ForShapeInference  // only what ONNX's inference reads: large float weights as name, type and dims
};
onnx::ModelProto modelToProto(const Model& model, WeightData weights = WeightData::Full);

}  // namespace npuwb::onnxconv
