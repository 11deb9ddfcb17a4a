#include "onnx/IsolatedShapeInference.h"

#include <onnx/shape_inference/implementation.h>
#include <string>

#include "npuwb/SchemaWarmUp.h"
#include "util/ForkedCall.h"

namespace npuwb::onnxconv {

namespace {

/// Inference needs initializer shapes and small integer values (Reshape targets), not float weights: the copy
/// sent to the child gets only their names, types and dims, and the weights are never copied at all.
onnx::ModelProto withoutLargeInitializerData(onnx::ModelProto& model) {
    onnx::ModelProto light;
    auto* weights = model.mutable_graph()->mutable_initializer();
    google::protobuf::RepeatedPtrField<onnx::TensorProto> parked;
    parked.Swap(weights);  // O(1): the copy below then skips them
    try {
        light = model;
    } catch (...) {
        parked.Swap(weights);
        throw;
    }
    parked.Swap(weights);
    for (const auto& t : *weights) {
        bool external = t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
        onnx::TensorProto* header = light.mutable_graph()->add_initializer();
        if (!external && inferenceReadsInitializerData(t.data_type(), t.ByteSizeLong())) {
            *header = t;
            continue;
        }
        header->set_name(t.name());
        header->set_data_type(t.data_type());
        *header->mutable_dims() = t.dims();
    }
    return light;
}

}  // namespace

bool inferenceReadsInitializerData(int32_t onnxElemType, size_t bytes) {
    return onnxElemType == onnx::TensorProto_DataType_INT64 || onnxElemType == onnx::TensorProto_DataType_INT32 ||
           bytes <= 4096;
}

bool inferShapesIsolated(onnx::ModelProto& model, int timeoutSeconds) {
    onnx::ModelProto light = withoutLargeInitializerData(model);
    awaitSchemaRegistry();
    ForkedResult run = runForked(
        [&light] {
            onnx::shape_inference::InferShapes(light, onnx::OpSchemaRegistry::Instance(),
                                               onnx::ShapeInferenceOptions(false, 0, true));
            onnx::GraphProto inferred;  // only what the parent merges back
            *inferred.mutable_value_info() = light.graph().value_info();
            *inferred.mutable_output() = light.graph().output();
            return inferred.SerializeAsString();
        },
        timeoutSeconds);
    if (run.status != ForkedResult::Status::Ok) return false;
    onnx::GraphProto result;
    if (!result.ParseFromString(run.output)) return false;
    *model.mutable_graph()->mutable_value_info() = result.value_info();
    if (result.output_size() == model.graph().output_size()) *model.mutable_graph()->mutable_output() = result.output();
    return true;
}

}  // namespace npuwb::onnxconv
