// Finding the layer norms, softmaxes and GELUs the quantizer keeps out of int8 (KeptOps.h).
#include "quant/KeptOps.h"

#include <algorithm>
#include <set>

#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"
#include "passes/GraphEdit.h"
#include "runtime/BackendPlan.h"

namespace npuwb::quant::detail {

namespace {

bool isOp(const Node* n, std::string_view op) { return n && n->domain.empty() && n->opType == op; }

/// The other operand of binary `n` when one operand is `v`, else "".
std::string otherOperand(const Node& n, const std::string& v) {
    if (n.inputs.size() != 2) return "";
    if (n.inputs[0] == v) return n.inputs[1];
    if (n.inputs[1] == v) return n.inputs[0];
    return "";
}

class Finder {
public:
    explicit Finder(const Graph& g) : g_(g), index_(g) {}

    std::map<std::string, KeptKind> run() {
        for (const Node& n : g_.nodes) {
            if (!n.domain.empty() || n.outputs.empty()) continue;
            if (n.opType == "LayerNormalization") mark(n, KeptKind::LayerNorm);
            else if (n.opType == "Gelu") mark(n, KeptKind::Gelu);
            else if (n.opType == "Sub") layerNorm(n);
            else if (n.opType == "Softmax") softmax(n);
            else if (n.opType == "Erf" || n.opType == "Tanh") gelu(n);
        }
        return std::move(out_);
    }

private:
    const Graph& g_;
    passes::GraphIndex index_;
    std::map<std::string, KeptKind> out_;

    void mark(const Node& n, KeptKind kind) { out_.emplace(n.layerName(), kind); }
    /// `v` itself, or the initializer an Identity copies (exporters share equal weights that way).
    std::string throughIdentity(const std::string& v) const {
        const Node* p = v.empty() ? nullptr : index_.producer(v);
        return isOp(p, "Identity") && p->inputs.size() == 1 && passes::constantOf(g_, p->inputs[0]) ? p->inputs[0] : v;
    }
    const Tensor* scalarConstant(const std::string& v) const {
        const Tensor* t = passes::constantOf(g_, throughIdentity(v));
        return t && t->dtype() == DType::F32 && t->numel() == 1 ? t : nullptr;
    }
    bool scalar(const std::string& v) const { return scalarConstant(v) != nullptr; }
    bool constant(const std::string& v) const { return !v.empty() && passes::constantOf(g_, throughIdentity(v)); }
    /// The sole reader of `n`'s only output when it has op type `op`.
    const Node* next(const Node* n, std::string_view op) const {
        if (!n || n->outputs.size() != 1) return nullptr;
        const Node* c = index_.singleConsumer(n->outputs[0]);
        return isOp(c, op) ? c : nullptr;
    }

    // Sub(x, ReduceMean(x)) = d, then the variance of d, its root and d divided by it (or times its reciprocal).
    void layerNorm(const Node& sub) {
        if (sub.inputs.size() != 2 || sub.outputs.size() != 1) return;
        const Node* mean = index_.producer(sub.inputs[1]);
        if (!isOp(mean, "ReduceMean") || mean->inputs.empty() || mean->inputs[0] != sub.inputs[0]) return;
        const std::string& d = sub.outputs[0];
        const Node* square = nullptr;
        for (const Node* c : index_.consumers(d)) {
            const Tensor* e = isOp(c, "Pow") && c->inputs.size() == 2 && c->inputs[0] == d
                                  ? scalarConstant(c->inputs[1]) : nullptr;
            if ((e && e->values<float>()[0] == 2.0f) ||
                (isOp(c, "Mul") && c->inputs.size() == 2 && c->inputs[0] == d && c->inputs[1] == d))
                square = c;
        }
        const Node* variance = next(square, "ReduceMean");
        const Node* eps = next(variance, "Add");
        if (!eps || !scalar(otherOperand(*eps, variance->outputs[0]))) return;
        const Node* root = next(eps, "Sqrt");
        std::vector<const Node*> chain{mean, &sub, square, variance, eps, root};
        const Node* normalized = next(root, "Div");
        if (normalized && (normalized->inputs.size() != 2 || normalized->inputs[0] != d)) normalized = nullptr;
        if (!normalized) {  // d * Reciprocal(root)
            const Node* reciprocal = next(root, "Reciprocal");
            normalized = next(reciprocal, "Mul");
            if (!normalized || otherOperand(*normalized, reciprocal->outputs[0]) != d) return;
            chain.push_back(reciprocal);
        }
        chain.push_back(normalized);
        const Node* last = normalized;
        for (const char* op : {"Mul", "Add"})
            if (const Node* affine = next(last, op); affine && constant(otherOperand(*affine, last->outputs[0]))) {
                chain.push_back(affine);
                last = affine;
            }
        for (const Node* n : chain) mark(*n, KeptKind::LayerNorm);
    }

    /// Whether `v` is a MatMul's output, maybe scaled by scalars: the attention scores.
    bool scores(const std::string& v, int depth = 2) const {
        const Node* p = index_.producer(v);
        if (isOp(p, "MatMul")) return true;
        if (depth == 0 || !(isOp(p, "Mul") || isOp(p, "Div")) || p->inputs.size() != 2) return false;
        if (scalar(p->inputs[1])) return scores(p->inputs[0], depth - 1);
        return isOp(p, "Mul") && scalar(p->inputs[0]) && scores(p->inputs[1], depth - 1);
    }

    // Softmax and, back towards the scores' MatMul, the scalar scale and the mask (Add/Sub of a mask, Where).
    void softmax(const Node& sm) {
        mark(sm, KeptKind::Softmax);
        if (sm.inputs.empty()) return;
        std::string v = sm.inputs[0];
        for (int step = 0; step < 4 && index_.hasSingleUse(v); ++step) {
            const Node* p = index_.producer(v);
            if (!p || !p->domain.empty() || p->outputs.size() != 1) break;
            const std::string& op = p->opType;
            std::string from;
            if ((op == "Mul" || op == "Div") && p->inputs.size() == 2) {
                if (scalar(p->inputs[1])) from = p->inputs[0];
                else if (op == "Mul" && scalar(p->inputs[0])) from = p->inputs[1];
            } else if ((op == "Add" || op == "Sub") && p->inputs.size() == 2) {
                if (scores(p->inputs[0])) from = p->inputs[0];
                else if (op == "Add" && scores(p->inputs[1])) from = p->inputs[1];
            } else if (op == "Where" && p->inputs.size() == 3) {
                if (scores(p->inputs[1])) from = p->inputs[1];
                else if (scores(p->inputs[2])) from = p->inputs[2];
            }
            if (from.empty()) break;
            mark(*p, KeptKind::Softmax);
            v = from;
        }
    }

    // From Erf/Tanh back to the one value x it is computed from by elementwise ops read by nothing else, then
    // forward through Add/Mul by scalars to the Mul by x (or by x times a scalar).
    void gelu(const Node& anchor) {
        static const std::set<std::string> elementwise = {"Mul", "Div", "Add", "Sub", "Pow"};
        std::set<const Node*> members{&anchor};
        for (bool grew = true; grew && members.size() < 10;) {
            grew = false;
            for (const Node* n : std::vector<const Node*>(members.begin(), members.end()))
                for (const auto& v : n->inputs) {
                    const Node* p = v.empty() || constant(v) ? nullptr : index_.producer(v);
                    if (!p || members.count(p) || !p->domain.empty() || !elementwise.count(p->opType) ||
                        p->outputs.size() != 1 || index_.isGraphOutput(v))
                        continue;
                    const auto& readers = index_.consumers(v);
                    if (std::all_of(readers.begin(), readers.end(), [&](const Node* r) { return members.count(r); }))
                        grew = members.insert(p).second || grew;
                }
        }
        std::set<std::string> produced, external;
        for (const Node* n : members) produced.insert(n->outputs[0]);
        for (const Node* n : members)
            for (const auto& v : n->inputs)
                if (!v.empty() && !constant(v) && !produced.count(v)) external.insert(v);
        if (external.size() != 1) return;
        const std::string x = *external.begin();
        std::vector<const Node*> tail;
        bool gated = false;
        std::string v = anchor.outputs[0];
        for (int step = 0; step < 4; ++step) {
            const Node* c = index_.singleConsumer(v);
            if (!c || !(isOp(c, "Add") || isOp(c, "Mul")) || c->outputs.size() != 1) break;
            const std::string o = otherOperand(*c, v);
            if (o.empty()) break;
            if (!scalar(o)) {
                const Node* half = index_.producer(o);
                bool halfX = false;  // x times a scalar, read only here
                if (isOp(half, "Mul") && index_.singleConsumer(o) == c) {
                    const std::string s = otherOperand(*half, x);
                    halfX = !s.empty() && scalar(s);
                }
                if (c->opType != "Mul" || (o != x && !halfX)) break;
                if (halfX) tail.push_back(half);
                gated = true;
            }
            tail.push_back(c);
            v = c->outputs[0];
        }
        if (!gated) return;
        for (const Node* n : members) mark(*n, KeptKind::Gelu);
        for (const Node* n : tail) mark(*n, KeptKind::Gelu);
    }
};

}  // namespace

std::string_view keptKindName(KeptKind kind) {
    switch (kind) {
        case KeptKind::LayerNorm: return "LayerNorm";
        case KeptKind::Softmax: return "Softmax";
        case KeptKind::Gelu: return "GELU";
    }
    return "?";
}

std::map<std::string, KeptKind> findKeptOps(const Graph& graph) { return Finder(graph).run(); }

Precision keptPrecision(KeptKind kind, const std::string& chip) {
    ChipProfile profile;
    try {
        profile = findChipProfile(chip);
    } catch (const Error&) {
        return Precision::Fp16;
    }
    std::vector<std::string> ops;
    auto mapped = [&](const std::string& onnxOp) {
        if (auto it = profile.onnxToNpu.find(onnxOp); it != profile.onnxToNpu.end())
            ops.insert(ops.end(), it->second.begin(), it->second.end());
    };
    switch (kind) {
        case KeptKind::LayerNorm: mapped("LayerNormalization"); break;
        case KeptKind::Softmax: mapped("Softmax"); break;
        case KeptKind::Gelu:
            mapped("Gelu");
            ops.push_back("exGelu");  // the toolkit's fused GELU, whatever form the export wrote
            break;
    }
    for (const auto& op : ops)
        if (auto it = profile.npuOps.find(op); it != profile.npuOps.end())
            if (std::find(it->second.dtypes.begin(), it->second.dtypes.end(), "float16") != it->second.dtypes.end())
                return Precision::Fp16;
    return Precision::Float;
}

}  // namespace npuwb::quant::detail
