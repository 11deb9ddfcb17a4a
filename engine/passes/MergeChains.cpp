// merge_chains (RKNN SDK user guide V2.5.0, 5.2.4.4; "combine like terms"): two consecutive nodes of the same kind
// become one.
//   Reshape -> Reshape          => Reshape (the second's target shape)
//   Transpose(p1) -> Transpose(p2) => Transpose(p1[p2[i]])
//   Slice -> Slice (disjoint axes) => one Slice over both axes
//   x +- a +- b  => x + (+-a +- b)      x */ a */ b => x * (a */ b)  (constants a, b)
#include <set>

#include "passes/ConstEval.h"
#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

bool additive(const std::string& op) { return op == "Add" || op == "Sub"; }
bool multiplicative(const std::string& op) { return op == "Mul" || op == "Div"; }

/// Index of the constant operand of a binary arithmetic node x op c (c op x only for commutative ops), or -1.
int constOperand(const Graph& g, const Node& n) {
    if (n.inputs.size() != 2) return -1;
    if (constantOf(g, n.inputs[1]) && !constantOf(g, n.inputs[0])) return 1;
    if ((n.opType == "Add" || n.opType == "Mul") && constantOf(g, n.inputs[0]) && !constantOf(g, n.inputs[1])) return 0;
    return -1;
}

class MergeChains final : public PatternPass {
public:
    std::string name() const override { return "merge_chains"; }
    std::string guideSection() const override { return "5.2.4.4"; }
    std::string description() const override {
        return "Merges consecutive Reshapes, Transposes, Slices on disjoint axes, and Add/Sub or Mul/Div with "
               "constants into one node";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& second) const override {
        if (!second.domain.empty() || second.inputs.empty()) return std::nullopt;
        const Node* first = index.producer(second.inputs[0]);
        int secondConst = constOperand(graph, second);
        if (additive(second.opType) || multiplicative(second.opType)) {
            if (secondConst < 0) return std::nullopt;
            first = index.producer(second.inputs[1 - secondConst]);
        }
        if (!first || !first->domain.empty()) return std::nullopt;
        const std::string kind = kindOf(graph, *first);
        if (kind.empty() || kind != kindOf(graph, second)) return std::nullopt;
        const std::string what = first->label() + " and " + second.label() + " merged into one " + kind;
        const std::vector<std::string> names{second.name, first->name};
        const std::string& link = first->outputs[0];
        if (!index.hasSingleUse(link))
            return nearMiss(names, what, "the value between them is also read elsewhere (deviating connection)");
        if (kind == "Reshape") {
            auto shape = constantInts(graph, second.inputs.size() > 1 ? second.inputs[1] : "");
            if (!shape) return nearMiss(names, what, "the second target shape is not a constant");
            for (int64_t d : *shape)
                if (d == 0 && second.attrInt("allowzero", 0) == 0)
                    return nearMiss(names, what, "the second shape copies a dimension (0) from its input");
        } else if (kind == "Transpose") {
            if (!first->hasAttribute("perm") || !second.hasAttribute("perm"))
                return nearMiss(names, what, "a Transpose has no explicit perm");
        } else if (kind == "Slice") {
            std::string why = sliceMergeProblem(graph, *first, second);
            if (!why.empty()) return nearMiss(names, what, why);
        } else {
            const Tensor* a = constantOf(graph, first->inputs[static_cast<size_t>(constOperand(graph, *first))]);
            const Tensor* b = constantOf(graph, second.inputs[static_cast<size_t>(secondConst)]);
            if (a->dtype() != b->dtype() || !isFloat(a->dtype()))
                return nearMiss(names, what, "the constants are not floats of one type");
        }
        return hit(names, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        Node second = *findNode(graph, match.nodes[0]);
        Node first = *findNode(graph, match.nodes[1]);
        std::string kind = kindOf(graph, first);
        Node merged = second;
        if (kind == "Reshape") {
            merged.inputs[0] = first.inputs[0];
        } else if (kind == "Transpose") {
            auto p1 = first.attrInts("perm"), p2 = second.attrInts("perm");
            std::vector<int64_t> q;
            for (int64_t i : p2) q.push_back(p1[static_cast<size_t>(i)]);
            merged.inputs[0] = first.inputs[0];
            merged.attributes["perm"] = Attribute::ofInts(q);
        } else if (kind == "Slice") {
            merged.inputs = {first.inputs[0]};
            for (size_t i = 1; i <= 4; ++i) {
                auto a = sliceInput(graph, first, i), b = sliceInput(graph, second, i);
                a.insert(a.end(), b.begin(), b.end());
                merged.inputs.push_back(addConstant(graph, second.name + "_merged_" + std::to_string(i),
                                                    Tensor::fromVector<int64_t>({static_cast<int64_t>(a.size())}, a)));
            }
        } else {
            int ia = constOperand(graph, first), ib = constOperand(graph, second);
            bool invA = first.opType == "Sub" || first.opType == "Div";
            bool invB = second.opType == "Sub" || second.opType == "Div";
            std::string plus = kind == "Add" ? "Add" : "Mul", minus = kind == "Add" ? "Sub" : "Div";
            std::string a = first.inputs[static_cast<size_t>(ia)], b = second.inputs[static_cast<size_t>(ib)];
            // x.a.b with inverses: (+,+) a+b; (+,-) a-b; (-,+) b-a; (-,-) x - (a+b).
            Node combine = makeNode(graph, invA != invB ? minus : plus, invA && !invB ? std::vector{b, a} : std::vector{a, b},
                                    {"__c"}, "combine");
            Tensor c = evaluateNodes(graph, {combine}, {}, {"__c"}, opset_)[0];
            merged.opType = invA && invB ? minus : plus;
            merged.inputs = {first.inputs[static_cast<size_t>(1 - ia)],
                             addConstant(graph, second.name + "_merged_constant", c)};
        }
        removeNodes(graph, {first.name, second.name});
        graph.nodes.push_back(merged);
        return true;
    }

private:
    std::string kindOf(const Graph& graph, const Node& n) const {
        if (n.opType == "Reshape" || n.opType == "Transpose") return n.opType;
        if (n.opType == "Slice" && opset_ >= 10) return "Slice";
        if (constOperand(graph, n) < 0) return "";
        if (additive(n.opType)) return "Add";
        if (multiplicative(n.opType)) return "Mul";
        return "";
    }

    /// starts (1), ends (2), axes (3), steps (4) with defaults filled in.
    std::vector<int64_t> sliceInput(const Graph& graph, const Node& n, size_t i) const {
        if (n.inputs.size() > i && !n.inputs[i].empty()) return *constantInts(graph, n.inputs[i]);
        size_t count = constantInts(graph, n.inputs[1])->size();
        if (i == 4) return std::vector<int64_t>(count, 1);
        std::vector<int64_t> axes(count);
        for (size_t k = 0; k < count; ++k) axes[k] = static_cast<int64_t>(k);
        return axes;
    }

    std::string sliceMergeProblem(const Graph& graph, const Node& first, const Node& second) const {
        for (const Node* n : {&first, &second})
            for (size_t i = 1; i < n->inputs.size(); ++i)
                if (!n->inputs[i].empty() && !constantInts(graph, n->inputs[i]))
                    return "a Slice parameter is not a constant";
        auto shape = staticShape(graph, first.inputs[0]);
        if (!shape) return "the sliced input has no static shape";
        auto rank = static_cast<int64_t>(shape->size());
        std::set<int64_t> seen;
        for (const Node* n : {&first, &second})
            for (int64_t a : sliceInput(graph, *n, 3))
                if (!seen.insert(a < 0 ? a + rank : a).second) return "both Slices cut the same axis";
        return "";
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(MergeChains);

}  // namespace
}  // namespace npuwb::passes
