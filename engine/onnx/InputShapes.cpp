// Fixing a model's symbolic input dims to concrete sizes (npuwb/ModelIO.h): shared by the CLI's and the GUI's
// --input-shape and the GUI's Input Shapes dialog, so all of them estimate the same model.
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"

#include <sstream>

namespace npuwb {

std::map<std::string, Shape> parseInputShapeSpecs(const std::vector<std::string>& specs) {
    std::map<std::string, Shape> shapes;
    for (const auto& spec : specs) {
        auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
            failInput("--input-shape '" + spec + "' must be NAME=D1,D2,...");
        Shape shape;
        std::stringstream ss(spec.substr(eq + 1));
        for (std::string d; std::getline(ss, d, ',');) {
            size_t used = 0;
            long long v = 0;
            try {
                v = std::stoll(d, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != d.size() || v < 1)
                failInput("--input-shape '" + spec + "': '" + d + "' is not a positive number");
            shape.push_back(v);
        }
        if (!shapes.emplace(spec.substr(0, eq), shape).second)
            failInput("--input-shape: '" + spec.substr(0, eq) + "' given twice");
    }
    return shapes;
}

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
