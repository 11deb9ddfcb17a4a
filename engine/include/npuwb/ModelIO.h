#pragma once
// ONNX files <-> the engine IR. The protobuf classes stay behind this header.
#include <map>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/ir/Value.h"

namespace npuwb {

struct ImportOptions {
    bool inferShapes = true;    // run ONNX shape inference and record value types in Graph::valueInfo
    bool foldConstants = true;  // turn Constant nodes into initializers
};

/// Loads a model file (with external data resolved relative to its folder). Errors name the file and the
/// node/tensor at fault; malformed or hostile files throw InvalidInput, never crash.
Model loadModel(const std::string& path, const ImportOptions& options = {});
Model loadModelFromBytes(const std::string& bytes, const std::string& baseDir, const std::string& label,
                         const ImportOptions& options = {});

/// Serialises the IR back to ONNX (tensors as raw_data) and writes it atomically.
void saveModel(const Model& model, const std::string& path);
std::string serializeModel(const Model& model);

/// Reads a serialized TensorProto (.pb, as in ONNX's test data).
Tensor loadTensorProtoFile(const std::string& path);
/// Reads a .pb holding a TensorProto, SequenceProto or OptionalProto, as the declared type says.
Value loadValueProtoFile(const std::string& path, const ValueType& declared);
void saveTensorProtoFile(const Tensor& tensor, const std::string& name, const std::string& path);

/// The model with its ai.onnx opset moved to `targetOpset` by ONNX's own version converter (adapters for every
/// op whose semantics changed between the versions), shapes re-inferred. Runs in a child process like shape
/// inference. Throws Unsupported naming the op (and its nodes) the converter cannot adapt, InvalidInput when
/// `targetOpset` is not newer than the model's.
Model convertOpset(const Model& model, int64_t targetOpset);

/// ONNX shape inference (with data propagation) for the model's inputs fixed to `inputShapes`: the type of every
/// value it could infer, graph inputs included. Isolated like import's; empty when inference fails.
std::map<std::string, ValueType> inferValueTypes(const Model& model, const std::map<std::string, Shape>& inputShapes);

/// A copy of `model` whose graph inputs have these concrete shapes (e.g. a detector's x = [1,3,480,480]), with
/// shapes re-inferred for every value: what estimates and advice need for a model with symbolic input dims.
/// Throws InvalidInput for an unknown input name, a rank mismatch or a clash with a fixed dimension.
Model withInputShapes(const Model& model, const std::map<std::string, Shape>& shapes);

/// `--input-shape` specs as the CLI and the GUI take them: "x=1,3,480,480" -> {"x": [1,3,480,480]}. Throws
/// InvalidInput naming the spec at fault (no '=', a dim that is not a positive number, a name given twice).
std::map<std::string, Shape> parseInputShapeSpecs(const std::vector<std::string>& specs);

/// Names of graph inputs (not initializers) that still have symbolic or unknown dims, e.g. "x [?,3,?,?]".
std::vector<std::string> inputsWithSymbolicDims(const Model& model);

}  // namespace npuwb
