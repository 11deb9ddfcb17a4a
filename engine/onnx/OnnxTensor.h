#pragma once
// Private to engine/onnx: conversions between onnx protobuf messages and IR tensors/types.
#include <onnx/onnx_pb.h>

#include <string>

#include "npuwb/ir/Graph.h"

namespace npuwb::onnxconv {

DType dtypeFromOnnx(int32_t elemType);  // DType::Undefined for types we do not have
int32_t dtypeToOnnx(DType dtype);
/// `baseDir` resolves external data; `what` names the tensor for messages ("initializer 'w' in model.onnx").
Tensor tensorFromProto(const onnx::TensorProto& proto, const std::string& baseDir, const std::string& what);
/// Like tensorFromProto, but takes over the proto's raw data instead of copying it (the proto loses it).
Tensor tensorFromProtoConsuming(onnx::TensorProto& proto, const std::string& baseDir, const std::string& what);
void tensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);
ValueType valueTypeFromProto(const onnx::TypeProto& type);
void valueTypeToProto(const ValueType& type, onnx::TypeProto* proto);

}  // namespace npuwb::onnxconv
