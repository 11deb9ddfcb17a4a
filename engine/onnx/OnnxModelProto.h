#pragma once
// Internal to engine/onnx: the IR as an ONNX ModelProto (what serializeModel writes), for code that works on the
// protobuf form (shape inference with other input shapes).
#include <onnx/onnx_pb.h>

#include "ir/Graph.h"

namespace npuwb::onnxconv {

onnx::ModelProto modelToProto(const Model& model);

}  // namespace npuwb::onnxconv
