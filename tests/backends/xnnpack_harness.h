#pragma once
// Differential-test harness for the cpu-xnnpack backend: build small seeded graphs, run them with the reference
// executor (which also supplies every value's type and shape), compile them with the backend, run its segments
// and compare the graph outputs.
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "npuwb/sdk/Backend.h"

namespace npuwb::test {


/// Uniform floats in [lo, hi) from `rng`.
Tensor randomTensor(std::mt19937& rng, const Shape& shape, float lo = -1.0f, float hi = 1.0f);

class GraphBuilder {
public:
    explicit GraphBuilder(int64_t opset = 17);
    /// A runtime graph input filled with random data.
    std::string input(std::mt19937& rng, const Shape& shape, float lo = -1.0f, float hi = 1.0f);
    std::string constant(Tensor value);
    /// Adds a node with one output and returns the output's name.
    std::string node(const std::string& op, std::vector<std::string> inputs,
                     std::map<std::string, Attribute> attributes = {});
    void output(const std::string& name);

    std::shared_ptr<Model> model() const { return model_; }
    const std::map<std::string, Tensor>& inputs() const { return inputs_; }

private:
    std::shared_ptr<Model> model_;
    std::map<std::string, Tensor> inputs_;
    int counter_ = 0;
};

struct DiffResult {
    size_t segments = 0;
    size_t segmentNodes = 0;
    std::vector<FallbackRow> fallbacks;
    double worstError = 0;  // max over outputs of |got - ref| / max(|ref|, 1)
    std::string worstWhere;
    std::string fallbackText() const;
};

/// The cpu-xnnpack plugin from the build tree (loaded once).
std::shared_ptr<Backend> xnnpackBackend(int threads);

DiffResult runDifferential(const Model& model, const std::map<std::string, Tensor>& inputs, Backend& backend);

}  // namespace npuwb::test
