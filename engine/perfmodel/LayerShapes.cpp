#include "perfmodel/LayerShapes.h"

#include <set>

namespace npuwb {

namespace {

/// Values computable from initializers alone: the converter folds the nodes producing them.
std::set<std::string> constantValues(const Graph& g, const std::vector<size_t>& order) {
    std::set<std::string> constant;
    for (const auto& [name, t] : g.initializers) constant.insert(name);
    for (size_t idx : order) {
        const Node& n = g.nodes[idx];
        bool allConstant = true;
        for (const auto& in : n.inputs)
            if (!in.empty() && !constant.count(in)) allConstant = false;
        if (allConstant)
            for (const auto& out : n.outputs) constant.insert(out);
    }
    return constant;
}

}  // namespace

std::vector<NodeShapes> resolveLayerShapes(const Model& model, int64_t symbolicDimValue, bool* usedReferenceRun) {
    LearnedShapes learned = learnShapes(model, ShapeLearningOptions{.symbolicDimValue = symbolicDimValue});
    if (usedReferenceRun) *usedReferenceRun = learned.source == "reference run";
    return resolveLayerShapes(model, learned);
}

std::vector<NodeShapes> resolveLayerShapes(const Model& model, const LearnedShapes& learned) {
    const Graph& g = model.graph;
    std::vector<size_t> order = g.topologicalOrder();
    std::set<std::string> constant = constantValues(g, order);
    std::vector<NodeShapes> rows;
    rows.reserve(order.size());
    auto shapeOf = [&](const std::string& name) {
        const Shape* s = name.empty() ? nullptr : learned.find(name);
        return s ? *s : Shape{};
    };
    for (size_t idx : order) {
        NodeShapes ns;
        ns.node = &g.nodes[idx];
        for (const auto& in : ns.node->inputs) {
            ns.inputs.push_back(shapeOf(in));
            ns.inputIsConstant.push_back(!in.empty() && constant.count(in));
        }
        for (const auto& out : ns.node->outputs) ns.outputs.push_back(shapeOf(out));
        rows.push_back(std::move(ns));
    }
    return rows;
}

}  // namespace npuwb
