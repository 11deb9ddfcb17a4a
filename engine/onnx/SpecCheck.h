#pragma once
// Internal to engine/onnx: a parsed model checked against the ONNX spec before conversion (onnx/SpecCheck.cpp).
#include <onnx/onnx_pb.h>

#include <string>

namespace npuwb::onnxconv {

/// If/Loop/Scan bodies nested deeper than this are refused (by the importer and the spec check alike).
constexpr int kMaxSubgraphDepth = 64;

/// Throws InvalidInput naming `label` and the node when the model breaks the spec: an IR version or opset that does
/// not exist, a node whose inputs, outputs or attributes its operator schema refuses, If/Loop bodies of the wrong
/// arity, subgraphs nested too deeply.
void checkAgainstSpec(const onnx::ModelProto& model, const std::string& label);

}  // namespace npuwb::onnxconv
