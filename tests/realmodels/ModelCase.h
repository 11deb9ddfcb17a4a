#pragma once
// One entry of models.json: which file, and how to make its inputs (fixed shapes for symbolic dims).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"

namespace npuwb::realmodels {

struct InputSpec {
    Shape shape;
    std::optional<DType> dtype;  // default: the model's declared type
    double low = -1.0, high = 1.0;
    std::optional<double> value;  // a constant fill instead of random data
    // "text": a 1x3xHxW white page with rows of dark glyph-like blocks, ImageNet-normalised as PP-OCR expects.
    // Uniform noise drives a text detector's sigmoid deep into its tail, where ONNX Runtime's approximate
    // logistic (about 1e-3 relative error there) rather than the engine would be under test.
    std::string generator = "uniform";
};

struct ModelCase {
    std::string name;
    std::string file;
    std::map<std::string, InputSpec> inputs;
};

struct Manifest {
    double tolerance = 1e-4;
    std::vector<ModelCase> models;
};

/// Throws std::runtime_error naming the manifest file and entry on malformed JSON.
Manifest readManifest(const std::string& path);

/// Seeded inputs for every required model input; throws naming the input the manifest does not describe.
std::map<std::string, Tensor> makeInputs(const ModelCase& modelCase, const std::vector<ValueInfo>& required,
                                         uint64_t seed);

}  // namespace npuwb::realmodels
