#pragma once
// A Session runs one model with the reference kernels: validates the model once (every op known, graph
// acyclic), then executes it as often as asked, freeing each value after its last use.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "ir/Value.h"
#include "runtime/ExecutionObserver.h"

namespace npuwb {

struct RunControl {
    /// Called after every top-level node: (done, total).
    std::function<void(size_t, size_t)> progress;
    /// Checked between nodes; a set flag ends the run with Error(Cancelled).
    const std::atomic<bool>* cancel = nullptr;
    ExecutionObserver* observer = nullptr;
};

class Session {
public:
    /// Throws InvalidInput/Unsupported naming the node for unknown ops, cycles or missing values.
    explicit Session(std::shared_ptr<const Model> model);

    const Model& model() const { return *model_; }
    /// Graph inputs the caller must provide (inputs with an initializer of the same name are optional).
    const std::vector<ValueInfo>& inputs() const { return requiredInputs_; }
    const std::vector<ValueInfo>& outputs() const { return model_->graph.outputs; }
    /// Top-level node indices in execution order.
    const std::vector<size_t>& executionOrder() const { return order_; }

    /// Runs the model. Inputs are checked against the declared types and shapes (errors name the input).
    std::map<std::string, Value> run(const std::map<std::string, Value>& inputs, const RunControl& control = {}) const;
    /// Convenience for the common all-tensor case.
    std::map<std::string, Tensor> runTensors(const std::map<std::string, Tensor>& inputs,
                                             const RunControl& control = {}) const;

private:
    std::shared_ptr<const Model> model_;
    std::vector<size_t> order_;
    std::vector<ValueInfo> requiredInputs_;
};

/// Throws naming the input when `value` does not fit the declared type (dtype, rank, known dims).
void checkInputAgainstDeclared(const ValueInfo& declared, const Value& value);

}  // namespace npuwb
