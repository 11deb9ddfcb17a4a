// hoist_common_factor (RKNN SDK user guide V2.5.0, 5.2.4.4; "factor out the common part"): the same element-wise op
// applied to every branch that a Concat joins runs once after the Concat; identical nodes reading identical inputs run
// once.
//   before: a -> Relu -+                    after: a -+
//           b -> Relu -+-> Concat -> y             b -+-> Concat -> Relu -> y
//   before: x -> Sigmoid -> p ; x -> Sigmoid -> q      after: x -> Sigmoid -> p (q reads p)
#include <set>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

bool sameAttributes(const Node& a, const Node& b) {
    if (a.attributes.size() != b.attributes.size()) return false;
    for (const auto& [k, x] : a.attributes) {
        auto it = b.attributes.find(k);
        if (it == b.attributes.end()) return false;
        const Attribute& y = it->second;
        if (x.kind != y.kind || x.f != y.f || x.i != y.i || x.s != y.s || x.floats != y.floats || x.ints != y.ints ||
            x.strings != y.strings)
            return false;
        if (x.t.defined() || x.g || !x.tensors.empty() || !x.graphs.empty()) return false;  // not compared: skip
    }
    return true;
}

/// Element-wise ops whose extra inputs (if any) are the same scalar constants: f(concat(a,b)) = concat(f(a),f(b)).
bool elementwiseOnFirstInput(const Graph& graph, const Node& n) {
    static const std::set<std::string> ops = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish",
                                              "Elu", "Softplus", "Mish", "Clip", "Neg", "Abs", "Exp", "Sqrt",
                                              "Add", "Sub", "Mul", "Div"};
    if (!n.domain.empty() || !ops.count(n.opType) || n.outputs.size() != 1 || n.inputs.empty()) return false;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
        const Tensor* t = n.inputs[i].empty() ? nullptr : constantOf(graph, n.inputs[i]);
        if (!n.inputs[i].empty() && (!t || t->numel() != 1)) return false;
    }
    return true;
}

bool sameScalarInputs(const Graph& graph, const Node& a, const Node& b) {
    if (a.inputs.size() != b.inputs.size()) return false;
    for (size_t i = 1; i < a.inputs.size(); ++i) {
        if (a.inputs[i] == b.inputs[i]) continue;
        const Tensor* x = constantOf(graph, a.inputs[i]);
        const Tensor* y = constantOf(graph, b.inputs[i]);
        if (!x || !y || x->dtype() != y->dtype() || x->elementAsDouble(0) != y->elementAsDouble(0)) return false;
    }
    return true;
}

class HoistCommonFactor final : public PatternPass {
public:
    std::string name() const override { return "hoist_common_factor"; }
    std::string guideSection() const override { return "5.2.4.4"; }
    std::string description() const override {
        return "Applies an element-wise op shared by all branches of a Concat once after it, and runs identical "
               "nodes on identical inputs only once";
    }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& n) const override {
        if (n.opType == "Concat") return concatMatch(graph, index, n);
        return duplicateMatch(graph, index, n);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        Node anchor = *findNode(graph, match.nodes[0]);
        if (anchor.opType == "Concat" && match.explanation.rfind("hoist", 0) == 0) {
            Node op = *findNode(graph, match.nodes[1]);
            Node& concat = *findNode(graph, match.nodes[0]);
            std::string finalOut = concat.outputs[0];
            std::string joined = freshName(graph, finalOut + "_before_" + op.opType);
            for (size_t i = 0; i < concat.inputs.size(); ++i) concat.inputs[i] = findNode(graph, match.nodes[i + 1])->inputs[0];
            concat.outputs[0] = joined;
            graph.valueInfo.erase(finalOut);
            Node hoisted = op;
            hoisted.name = freshName(graph, op.name + "_hoisted");
            hoisted.inputs[0] = joined;
            hoisted.outputs[0] = finalOut;
            removeNodes(graph, {match.nodes.begin() + 1, match.nodes.end()});
            graph.nodes.push_back(hoisted);
            return true;
        }
        // Duplicates: readers of the copies read the first node's outputs instead.
        for (size_t d = 1; d < match.nodes.size(); ++d) {
            Node dup = *findNode(graph, match.nodes[d]);
            removeNodes(graph, {dup.name});
            for (size_t o = 0; o < dup.outputs.size(); ++o)
                if (!dup.outputs[o].empty()) replaceUses(graph, dup.outputs[o], anchor.outputs[o]);
        }
        return true;
    }

private:
    std::optional<Match> concatMatch(const Graph& graph, const GraphIndex& index, const Node& concat) const {
        std::vector<const Node*> ops;
        std::vector<std::string> names{concat.name};
        for (const auto& in : concat.inputs) {
            const Node* p = index.producer(in);
            if (!p || !elementwiseOnFirstInput(graph, *p)) return std::nullopt;
            ops.push_back(p);
            names.push_back(p->name);
        }
        if (ops.size() < 2) return std::nullopt;
        const std::string what = "hoist " + ops[0]->opType + " shared by all " + std::to_string(ops.size()) +
                                 " branches of " + concat.label() + " behind it";
        for (const Node* p : ops) {
            if (p->opType != ops[0]->opType || !sameAttributes(*p, *ops[0]) || !sameScalarInputs(graph, *p, *ops[0]))
                return p->opType == ops[0]->opType ? std::optional(nearMiss(names, what, "the branches' " + p->opType +
                                                                                      " nodes differ in parameters"))
                                                   : std::nullopt;
            if (!index.hasSingleUse(p->outputs[0]))
                return nearMiss(names, what, p->label() + "'s output is also read elsewhere (deviating connection)");
        }
        std::set<std::string> distinct(names.begin() + 1, names.end());
        if (distinct.size() != ops.size()) return std::nullopt;  // one node feeding the Concat twice
        return hit(names, what);
    }

    std::optional<Match> duplicateMatch(const Graph& graph, const GraphIndex& index, const Node& n) const {
        if (n.inputs.empty() || n.inputs[0].empty() || !n.domain.empty()) return std::nullopt;
        static const std::set<std::string> impure = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                                     "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
        if (impure.count(n.opType)) return std::nullopt;
        std::vector<std::string> names{n.name};
        bool anchorSeen = false;
        for (const Node* other : index.consumers(n.inputs[0])) {
            if (other == &n) {
                anchorSeen = true;
                continue;
            }
            if (other->opType != n.opType || other->inputs != n.inputs || other->domain != n.domain ||
                other->outputs.size() != n.outputs.size() || !sameAttributes(*other, n))
                continue;
            if (!anchorSeen) return std::nullopt;  // the first of the identical nodes is the anchor
            bool keepsOutput = false;
            for (const auto& o : other->outputs) keepsOutput = keepsOutput || index.isGraphOutput(o);
            if (!keepsOutput) names.push_back(other->name);
        }
        if (names.size() < 2) return std::nullopt;
        (void)graph;
        return hit(names, std::to_string(names.size()) + " identical " + n.opType + " nodes on the same inputs run once");
    }
};

NPUWB_PASS(HoistCommonFactor);

}  // namespace
}  // namespace npuwb::passes
