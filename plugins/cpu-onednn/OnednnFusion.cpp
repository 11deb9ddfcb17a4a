// Fusion planning of the segment builder: Conv/ConvTranspose chains with BatchNormalization, residual Add and
// activation post-ops, including activations exporters write as several nodes (HardSwish, SiLU).
#include "OnednnSegmentBuilder.h"

namespace npuwb::onednn {

std::optional<size_t> Builder::soleUser(const std::string& value,
                                        const std::map<std::string, std::vector<size_t>>& users) const {
    auto c = consumers.find(value);
    auto u = users.find(value);
    if (c == consumers.end() || c->second != 1 || segmentOutputs.count(value) || u == users.end() ||
        u->second.size() != 1)
        return std::nullopt;
    return u->second[0];
}

std::optional<float> Builder::scalarConstant(const std::string& name) const {
    const ValueDesc* d = name.empty() ? nullptr : q.value(name);
    if (!d || !d->constant || d->constant->numel() != 1 || d->constant->dtype() != DType::F32) return std::nullopt;
    return d->constant->values<float>()[0];
}

bool Builder::isScalarAffine(const Node& n, const std::string& x) const {
    if ((n.opType != "Mul" && n.opType != "Add") || n.inputs.size() != 2 || !n.domain.empty()) return false;
    return (n.inputs[0] == x && scalarConstant(n.inputs[1])) || (n.inputs[1] == x && scalarConstant(n.inputs[0]));
}

std::optional<std::vector<size_t>> Builder::decomposedHardSwish(const std::string& x,
                                                                const std::map<std::string, std::vector<size_t>>& users) const {
    auto only = [&](const std::string& v) { return soleUser(v, users); };
    auto u = users.find(x);
    auto c = consumers.find(x);
    if (u == users.end() || u->second.size() != 2 || c == consumers.end() || c->second != 2) return std::nullopt;
    for (size_t first = 0; first < 2; ++first) {
        const size_t add = u->second[first], mul = u->second[1 - first];
        const Node& a = node(add);
        if (a.opType != "Add" || !isScalarAffine(a, x) || scalarConstant(a.inputs[0] == x ? a.inputs[1] : a.inputs[0]) != 3.f)
            continue;
        auto clip = only(a.outputs[0]);
        if (!clip || node(*clip).opType != "Clip") continue;
        auto bounds = clipBounds(makeNodeQuery(q, *clip));
        if (!bounds || bounds->first != 0.f || bounds->second != 6.f) continue;
        const Node& m = node(mul);
        // Mul of x and `v` (either order).
        auto mulOf = [&](const std::string& v) {
            return m.opType == "Mul" && m.inputs.size() == 2 &&
                   ((m.inputs[0] == x && m.inputs[1] == v) || (m.inputs[1] == x && m.inputs[0] == v));
        };
        // Div of `v` by the constant 6.
        auto bySix = [&](std::optional<size_t> d, const std::string& v) {
            return d && node(*d).opType == "Div" && node(*d).inputs.size() == 2 && node(*d).inputs[0] == v &&
                   scalarConstant(node(*d).inputs[1]) == 6.f;
        };
        const std::string& clipped = node(*clip).outputs[0];
        auto div = only(clipped);
        if (bySix(div, clipped) && only(node(*div).outputs[0]) == mul && mulOf(node(*div).outputs[0]))
            return std::vector<size_t>{add, *clip, *div, mul};  // x * (Clip(x + 3) / 6)
        if (only(clipped) != mul || !mulOf(clipped)) continue;
        div = only(m.outputs[0]);
        // x * Clip(x + 3) / 6, the Div last: paddle2onnx (PP-OCR cls)
        if (bySix(div, m.outputs[0])) return std::vector<size_t>{add, *clip, mul, *div};
    }
    return std::nullopt;
}

std::optional<std::pair<std::vector<size_t>, EltwiseStep>> Builder::decomposedActivation(
    const std::string& x, const std::map<std::string, std::vector<size_t>>& users) const {
    if (auto hs = decomposedHardSwish(x, users))
        return std::make_pair(*hs, EltwiseStep{dnnl::algorithm::eltwise_hardswish, 0.f, 0.f});
    if (auto silu = siluAt(x))  // x * sigmoid(1 * x)
        return std::make_pair(std::vector<size_t>{silu->first, silu->second},
                              EltwiseStep{dnnl::algorithm::eltwise_swish, 1.f, 0.f});
    if (auto gelu = decomposedGelu(x, users, false)) return gelu;
    return std::nullopt;
}

void Builder::appendStep(std::vector<EltwiseStep>& steps, EltwiseStep step) {
    constexpr auto linear = dnnl::algorithm::eltwise_linear;
    if (std::get<0>(step) == linear && !steps.empty() && std::get<0>(steps.back()) == linear) {
        auto& [alg, a, b] = steps.back();
        b = std::get<1>(step) * b + std::get<2>(step);
        a = std::get<1>(step) * a;
        return;
    }
    steps.push_back(step);
}

bool Builder::postOpsSupported(const std::vector<EltwiseStep>& steps, bool leadFolds) {
    size_t linear = 0;
    for (size_t i = 0; i < steps.size(); ++i)
        if (std::get<0>(steps[i]) == dnnl::algorithm::eltwise_linear && !(i == 0 && leadFolds)) ++linear;
    return linear <= 1;
}

void Builder::planFusion(const std::vector<size_t>& nodes) {
    std::set<size_t> inSegment(nodes.begin(), nodes.end());
    std::map<std::string, size_t> consumerOf;
    std::map<std::string, std::vector<size_t>> users;  // every consumer inside the segment
    std::set<size_t> claimed;
    for (size_t i = 0; i < nodes.size(); ++i) segmentPosition[nodes[i]] = i;
    for (size_t idx : nodes)
        for (const auto& in : node(idx).inputs)
            if (!in.empty()) {
                consumerOf[in] = idx;
                if (users[in].empty() || users[in].back() != idx) users[in].push_back(idx);
            }
    for (size_t idx : nodes) {
        const bool deconv = node(idx).opType == "ConvTranspose";
        if ((node(idx).opType != "Conv" && !deconv) || inChainNotLast.count(idx) || chainEndingAt.count(idx)) continue;
        std::vector<size_t> chain{idx};
        bool sum = false;
        std::vector<EltwiseStep> steps;  // the post-ops so far, as buildConvChain/buildDeconv will make them
        // Whether `more` can follow as post-ops (a leading linear step folds into a Conv without a sum).
        auto takes = [&](const std::vector<EltwiseStep>& more) {
            std::vector<EltwiseStep> next = steps;
            for (const auto& m : more) appendStep(next, m);
            if (!postOpsSupported(next, !deconv && !sum)) return false;
            steps = std::move(next);
            return true;
        };
        std::string out = node(idx).outputs[0];
        while (true) {
            if (!deconv && !segmentOutputs.count(out)) {
                if (auto act = decomposedActivation(out, users)) {
                    const auto& [taken, step] = *act;
                    bool free = true;
                    for (size_t k : taken) free = free && inSegment.count(k) && !claimed.count(k) && !int8Nodes.count(k);
                    if (free && takes({step})) {
                        decomposedAt[taken.front()] = {step, taken.size()};
                        chain.insert(chain.end(), taken.begin(), taken.end());
                        out = node(taken.back()).outputs[0];
                        continue;
                    }
                }
            }
            auto c = consumers.find(out);
            if (c == consumers.end() || c->second != 1 || segmentOutputs.count(out) || !consumerOf.count(out)) break;
            size_t next = consumerOf[out];
            const Node& n = node(next);
            if (!inSegment.count(next) || n.inputs.empty() || claimed.count(next) || int8Nodes.count(next)) break;
            bool ok = false;
            if (!deconv && isScalarAffine(n, out)) {  // Paddle's learnable affine after an activation
                ok = takes(eltwiseOf(n));
            } else if (n.opType == "BatchNormalization" && chain.size() == 1 && n.inputs[0] == out && n.inputs.size() == 5) {
                ok = true;
                for (size_t i = 1; i < 5; ++i) ok = ok && desc(n.inputs[i]).constant;
                ok = ok && (n.outputs.size() == 1 || n.outputs[1].empty());
            } else if (n.opType == "Add" && !sum && !deconv && n.inputs.size() == 2) {
                const std::string& other = n.inputs[0] == out ? n.inputs[1] : n.inputs[0];
                ok = other != out && !desc(other).constant && desc(other).shape == desc(out).shape;
                ok = ok && steps.empty();  // keep oneDNN's fast path: sum before activations
                sum = ok;
            } else if (isPostOpActivation(n)) {
                ok = n.inputs[0] == out && takes(eltwiseOf(n));
            }
            if (!ok) break;
            chain.push_back(next);
            out = n.outputs[0];
        }
        for (size_t i = 0; i + 1 < chain.size(); ++i) inChainNotLast.insert(chain[i]);
        claimed.insert(chain.begin(), chain.end());
        chainEndingAt[chain.back()] = chains.size();
        chains.push_back(chain);
    }
    // A BatchNormalization no Conv took, then Relu (pre-activation blocks: resnet50-v2-7 after each residual Add):
    // one pass with oneDNN's fused ReLU instead of two over the tensor.
    for (size_t idx : nodes) {
        if (node(idx).opType != "BatchNormalization" || claimed.count(idx) || int8Nodes.count(idx)) continue;
        const std::string& out = node(idx).outputs[0];
        auto c = consumers.find(out);
        if (c == consumers.end() || c->second != 1 || segmentOutputs.count(out) || !consumerOf.count(out)) continue;
        const size_t next = consumerOf[out];
        if (!inSegment.count(next) || claimed.count(next) || int8Nodes.count(next) || node(next).opType != "Relu")
            continue;
        inChainNotLast.insert(idx);
        claimed.insert({idx, next});
        chainEndingAt[next] = chains.size();
        chains.push_back({idx, next});
    }
    planTransformerFusion(nodes, users, claimed);
    planConcatIntoConv(nodes, inSegment, consumerOf);
}

// Conv(Concat(a, b), W) = Conv(a, W[:, :Ca]) + Conv(b, W[:, Ca:]) for an ungrouped Conv: each part writes or adds
// onto the Conv's output (sum post-op), and the Concat's copy is gone (squeezenet's fire modules, DeepLab's ASPP).
// Each added part reads and writes the output once more: taken where that costs at most half of the copy (the
// output is small beside the Concat: a squeeze or reducing 1x1 Conv), with parts wide enough for the GEMMs.
void Builder::planConcatIntoConv(const std::vector<size_t>& nodes, const std::set<size_t>& inSegment,
                                 const std::map<std::string, size_t>& consumerOf) {
    constexpr size_t kMaxParts = 4;
    constexpr int64_t kMinPartChannels = 16;
    for (size_t idx : nodes) {
        const Node& cat = node(idx);
        if (cat.opType != "Concat" || int8Nodes.count(idx) || cat.inputs.size() < 2 || cat.inputs.size() > kMaxParts)
            continue;
        const std::string& out = cat.outputs[0];
        const ValueDesc& y = desc(out);
        const int64_t axis = cat.attrInt("axis", 0);
        if (y.shape.size() != 4 || y.dtype != DType::F32 || (axis != 1 && axis != -3)) continue;
        auto c = consumers.find(out);
        auto user = consumerOf.find(out);
        if (c == consumers.end() || c->second != 1 || segmentOutputs.count(out) || user == consumerOf.end()) continue;
        const size_t conv = user->second;
        const Node& cv = node(conv);
        if (!inSegment.count(conv) || int8Nodes.count(conv) || cv.opType != "Conv" || cv.inputs[0] != out ||
            cv.attrInt("group", 1) != 1)
            continue;
        bool wide = true;
        for (const auto& in : cat.inputs)
            wide = wide && !in.empty() && desc(in).dtype == DType::F32 && desc(in).shape.size() == 4 &&
                   desc(in).shape[1] >= kMinPartChannels;
        const auto extraPasses = static_cast<int64_t>(cat.inputs.size() - 1);
        if (!wide || 2 * extraPasses * shapeNumel(desc(cv.outputs[0]).shape) > shapeNumel(y.shape)) continue;
        inChainNotLast.insert(idx);  // built with the Conv
        concatInto[conv] = idx;
    }
}

bool Builder::isPostOpActivation(const Node& n) const {
    static const std::set<std::string> ops = {"Relu", "LeakyRelu", "Sigmoid", "Clip", "HardSwish",
                                              "HardSigmoid", "Tanh", "Elu"};
    if (!ops.count(n.opType)) return false;
    if (n.opType == "Clip") return bool(clipBounds(makeNodeQuery(q, indexOf(n))));
    return true;
}

std::vector<EltwiseStep> Builder::eltwiseOf(const Node& n) const {
    using A = dnnl::algorithm;
    const std::string& op = n.opType;
    if (op == "Relu") return {{A::eltwise_relu, 0.f, 0.f}};
    if (op == "LeakyRelu") return {{A::eltwise_relu, n.attrFloat("alpha", 0.01f), 0.f}};
    if (op == "Sigmoid") return {{A::eltwise_logistic, 0.f, 0.f}};
    if (op == "Tanh") return {{A::eltwise_tanh, 0.f, 0.f}};
    if (op == "Elu") return {{A::eltwise_elu, n.attrFloat("alpha", 1.f), 0.f}};
    if (op == "HardSwish") return {{A::eltwise_hardswish, 0.f, 0.f}};
    // oneDNN 2.6 has no hardsigmoid: clip(alpha*x + beta, 0, 1) as linear then clip.
    if (op == "HardSigmoid")
        return {{A::eltwise_linear, n.attrFloat("alpha", 0.2f), n.attrFloat("beta", 0.5f)},
                {A::eltwise_clip_v2, 0.f, 1.f}};
    if (op == "Pow") return {{A::eltwise_pow, 1.f, *powExponent(makeNodeQuery(q, indexOf(n)))}};
    if (op == "Exp") return {{A::eltwise_exp, 0.f, 0.f}};
    if (op == "Abs") return {{A::eltwise_abs, 0.f, 0.f}};
    if (op == "Sqrt") return {{A::eltwise_sqrt, 0.f, 0.f}};
    if (op == "Neg") return {{A::eltwise_linear, -1.f, 0.f}};
    if (op == "Identity") return {{A::eltwise_linear, 1.f, 0.f}};
    if (op == "Clip") {
        auto b = clipBounds(makeNodeQuery(q, indexOf(n)));
        return {{A::eltwise_clip_v2, b->first, b->second}};
    }
    // A Mul or Add of a constant scalar (chains only: isScalarAffine checked the other input).
    if (op == "Mul" || op == "Add") {
        const float c = scalarConstant(n.inputs[0]) ? *scalarConstant(n.inputs[0]) : *scalarConstant(n.inputs[1]);
        return {op == "Mul" ? EltwiseStep{A::eltwise_linear, c, 0.f} : EltwiseStep{A::eltwise_linear, 1.f, c}};
    }
    throw std::runtime_error("no eltwise for " + op);
}

}  // namespace npuwb::onednn
