// Fixing a model's symbolic input dims to concrete sizes (npuwb/ModelIO.h): shared by the CLI's --input-shape and
// the GUI's Input Shapes dialog, so both estimate the same model.
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"

namespace npuwb {

Model withInputShapes(const Model& model, const std::map<std::string, Shape>& shapes) {
    Model out = model;
    for (const auto& [name, shape] : shapes) {
        ValueInfo* input = nullptr;
        std::string known;
        for (auto& in : out.graph.inputs) {
            if (out.graph.initializers.count(in.name)) continue;
            known += (known.empty() ? "" : ", ") + in.name;
            if (in.name == name) input = &in;
        }
        if (!input) failInput("input shape: the model has no input '" + name + "' (inputs: " + known + ")");
        SymShape fixed;
        for (int64_t d : shape) {
            if (d < 1) failInput("input shape " + name + "=" + shapeToString(shape) + ": dims must be positive");
            fixed.push_back(Dim::of(d));
        }
        if (const auto& declared = input->type.shape) {
            if (declared->size() != shape.size())
                failInput("input shape " + name + "=" + shapeToString(shape) + ": the model declares rank " +
                          std::to_string(declared->size()) + " " + symShapeToString(*declared));
            for (size_t i = 0; i < shape.size(); ++i)
                if ((*declared)[i].known() && (*declared)[i].value != shape[i])
                    failInput("input shape " + name + "=" + shapeToString(shape) + ": dim " + std::to_string(i) +
                              " is fixed to " + std::to_string((*declared)[i].value) + " by the model");
        }
        input->type.shape = fixed;
    }
    // Inferred types of the old symbolic run would mask the concrete ones: drop them and infer again.
    out.graph.valueInfo.clear();
    for (auto& o : out.graph.outputs) o.type.shape.reset();
    const std::string label = model.sourcePath.empty() ? "model" : model.sourcePath;
    Model reshaped = loadModelFromBytes(serializeModel(out), ".", label);
    reshaped.sourcePath = model.sourcePath;
    return reshaped;
}

std::vector<std::string> inputsWithSymbolicDims(const Model& model) {
    std::vector<std::string> out;
    for (const auto& in : model.graph.inputs) {
        if (model.graph.initializers.count(in.name) || in.type.kind != ValueType::Kind::Tensor) continue;
        bool symbolic = !in.type.shape;
        if (in.type.shape)
            for (const Dim& d : *in.type.shape) symbolic = symbolic || !d.known();
        if (symbolic) out.push_back(in.name + " " + (in.type.shape ? symShapeToString(*in.type.shape) : "[rank ?]"));
    }
    return out;
}

}  // namespace npuwb
