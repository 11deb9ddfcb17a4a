#include "npuwb/ModelIO.h"

#include "onnx/IsolatedShapeInference.h"
#include "onnx/OnnxModelProto.h"
#include "onnx/OnnxTensor.h"

namespace npuwb {

std::map<std::string, ValueType> inferValueTypes(const Model& model, const std::map<std::string, Shape>& inputShapes) {
    // The weights stay out of the copy: inference needs their types and dims, not their values.
    onnx::ModelProto proto = onnxconv::modelToProto(model, onnxconv::WeightData::ForShapeInference);
    for (auto& input : *proto.mutable_graph()->mutable_input()) {
        auto it = inputShapes.find(input.name());
        if (it == inputShapes.end() || !input.type().has_tensor_type()) continue;
        auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
        shape->clear_dim();
        for (int64_t d : it->second) shape->add_dim()->set_dim_value(d);
    }
    proto.mutable_graph()->clear_value_info();  // inferred again for these shapes
    for (auto& output : *proto.mutable_graph()->mutable_output()) output.clear_type();
    if (!onnxconv::inferShapesIsolated(proto)) return {};
    std::map<std::string, ValueType> types;
    for (const auto& vi : proto.graph().value_info()) types[vi.name()] = onnxconv::valueTypeFromProto(vi.type());
    for (const auto& vi : proto.graph().output())
        if (vi.has_type()) types[vi.name()] = onnxconv::valueTypeFromProto(vi.type());
    for (const auto& vi : proto.graph().input()) types[vi.name()] = onnxconv::valueTypeFromProto(vi.type());
    return types;
}

}  // namespace npuwb
