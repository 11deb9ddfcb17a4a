#pragma once
// ONNX's shape inference runs native code that trusts the model (it can index past a dimension list on hostile
// input and crash; our fuzzer found such files). It therefore runs in a forked child process: a crash or hang
// there only costs the inferred shapes, never the caller's process.
#include <onnx/onnx_pb.h>

namespace npuwb::onnxconv {

/// Fills model.graph().value_info() and output types with inferred ones. Returns false (model unchanged) when
/// inference failed, crashed or took longer than `timeoutSeconds`.
bool inferShapesIsolated(onnx::ModelProto& model, int timeoutSeconds = 60);

/// Whether ONNX's inference reads an initializer's values: small integer ones (Reshape targets, axes), not weights.
bool inferenceReadsInitializerData(int32_t onnxElemType, size_t bytes);

}  // namespace npuwb::onnxconv
