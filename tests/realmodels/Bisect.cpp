#include "Bisect.h"

#include <cstdio>
#include <iostream>
#include <set>

#include "Metrics.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"

namespace npuwb::realmodels {
namespace {

// Keeps every tensor a top-level node produced (the executor frees them otherwise) and where it came from.
struct Recorder : ExecutionObserver {
    struct Produced {
        std::string value;
        std::string node;
        Tensor tensor;
    };
    std::vector<Produced> produced;
    std::string lastStarted;

    void nodeStarted(size_t, const Node& node) override { lastStarted = node.label(); }
    void nodeFinished(size_t, const Node& node, const std::vector<const Value*>&,
                      const std::vector<Value>& outputs) override {
        for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i)
            if (!node.outputs[i].empty() && outputs[i].isTensor())
                produced.push_back({node.outputs[i], node.label(), outputs[i].tensor});
    }
};

}  // namespace

void bisectAgainstOrt(const std::shared_ptr<const Model>& model, const std::map<std::string, Tensor>& inputs,
                      const std::map<std::string, std::string>& inputFiles, const OrtOptions& ort,
                      const std::string& workDir, double tolerance) {
    Recorder recorder;
    try {
        RunControl control;
        control.observer = &recorder;
        Session(model).runTensors(inputs, control);
    } catch (const std::exception& e) {
        std::cout << "  bisect: engine stopped in " << recorder.lastStarted << ": " << e.what() << "\n";
    }
    try {
        Model probe = *model;
        std::set<std::string> declared;
        for (const auto& out : probe.graph.outputs) declared.insert(out.name);
        for (const auto& p : recorder.produced) {
            if (declared.count(p.value)) continue;
            ValueInfo info{p.value, {}};
            info.type.dtype = p.tensor.dtype();  // rank left unknown: ORT infers the rest
            probe.graph.outputs.push_back(info);
        }
        std::string probePath = workDir + "/bisect.onnx";
        saveModel(probe, probePath);
        auto expected = runOrt(ort, probePath, inputFiles, workDir + "/bisect-ort");
        for (const auto& p : recorder.produced) {
            auto it = expected.find(p.value);
            if (it == expected.end()) continue;
            Diff d = compareTensors(p.tensor, it->second);
            if (d.problem.empty() && d.relL2 <= tolerance) continue;
            char numbers[80];
            std::snprintf(numbers, sizeof numbers, "rel L2 %.3e, max abs %.3e", d.relL2, d.maxAbs);
            std::cout << "  bisect: first divergence at " << p.node << " output '" << p.value << "': "
                      << (d.problem.empty() ? std::string(numbers) : d.problem) << "\n";
            return;
        }
        std::cout << "  bisect: all " << recorder.produced.size() << " recorded values match ORT\n";
    } catch (const std::exception& e) {
        std::cout << "  bisect: failed: " << e.what() << "\n";
    }
}

}  // namespace npuwb::realmodels
