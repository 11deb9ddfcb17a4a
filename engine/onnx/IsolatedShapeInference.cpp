#include "onnx/IsolatedShapeInference.h"

#include <onnx/shape_inference/implementation.h>
#include <string>

#include "util/ForkedCall.h"

namespace npuwb::onnxconv {

namespace {

/// Inference needs initializer shapes and small integer values (Reshape targets), not float weights: dropping
/// them keeps the copy sent to the child small.
void stripLargeInitializerData(onnx::GraphProto& g) {
    for (auto& t : *g.mutable_initializer()) {
        bool integer = t.data_type() == onnx::TensorProto_DataType_INT64 || t.data_type() == onnx::TensorProto_DataType_INT32;
        bool external = t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
        if (external || (!integer && t.ByteSizeLong() > 4096)) {
            t.clear_raw_data();
            t.clear_float_data();
            t.clear_double_data();
            t.clear_int32_data();
            t.clear_int64_data();
            t.clear_uint64_data();
            t.clear_external_data();
            t.clear_data_location();
        }
    }
}

}  // namespace

bool inferShapesIsolated(onnx::ModelProto& model, int timeoutSeconds) {
    onnx::ModelProto light = model;
    stripLargeInitializerData(*light.mutable_graph());
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
