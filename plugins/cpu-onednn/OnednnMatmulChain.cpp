// fp32 MatMul chains. A MatMul whose B is a 2-D weight (or broadcasts as one) is one GEMM over A's rows, the weights
// packed once; a bias Add and activations after it are post-ops.
#include "OnednnSegmentBuilder.h"

namespace npuwb::onednn {

namespace {

/// B's leading dims are all 1 and A has at least its rank: every row of A meets the same [K, N] matrix.
bool broadcastsAsMatrix(const Shape& a, const Shape& b) {
    if (a.size() < 2 || b.size() < 2 || a.size() < b.size()) return false;
    for (size_t i = 0; i + 2 < b.size(); ++i)
        if (b[i] != 1) return false;
    return true;
}

}  // namespace

void Builder::planTransformerFusion(const std::vector<size_t>& nodes,
                                    const std::map<std::string, std::vector<size_t>>& users,
                                    std::set<size_t>& claimed) {
    const std::set<size_t> inSegment(nodes.begin(), nodes.end());
    auto free = [&](size_t k) {
        return inSegment.count(k) && !claimed.count(k) && !int8Nodes.count(k) && !inChainNotLast.count(k) &&
               !chainEndingAt.count(k);
    };
    auto allFree = [&](const std::vector<size_t>& ks) { return std::all_of(ks.begin(), ks.end(), free); };
    auto addChain = [&](const std::vector<size_t>& chain) {
        for (size_t i = 0; i + 1 < chain.size(); ++i) inChainNotLast.insert(chain[i]);
        claimed.insert(chain.begin(), chain.end());
        chainEndingAt[chain.back()] = chains.size();
        chains.push_back(chain);
    };
    auto isFloat = [&](const std::string& v) { return !v.empty() && q.value(v) && q.value(v)->dtype == DType::F32; };
    for (size_t idx : nodes) {
        const Node& mm = node(idx);
        if (mm.opType != "MatMul" || !free(idx) || !isFloat(mm.inputs[0]) || !isFloat(mm.inputs[1])) continue;
        std::vector<size_t> chain{idx};
        std::vector<EltwiseStep> steps;
        auto takes = [&](const std::vector<EltwiseStep>& more) {
            std::vector<EltwiseStep> next = steps;
            for (const auto& m : more) appendStep(next, m);
            if (!postOpsSupported(next, false)) return false;
            steps = std::move(next);
            return true;
        };
        const int64_t n = desc(mm.outputs[0]).shape.back();
        std::string out = mm.outputs[0];
        while (!segmentOutputs.count(out)) {
            if (auto act = decomposedActivation(out, users); act && allFree(act->first) && takes({act->second})) {
                decomposedAt[act->first.front()] = {act->second, act->first.size()};
                chain.insert(chain.end(), act->first.begin(), act->first.end());
                out = node(act->first.back()).outputs[0];
                continue;
            }
            auto c = consumers.find(out);
            auto u = users.find(out);
            if (c == consumers.end() || c->second != 1 || u == users.end() || u->second.size() != 1) break;
            const size_t next = u->second[0];
            const Node& nx = node(next);
            if (!free(next) || nx.inputs.empty()) break;
            bool ok = false;
            if (chain.size() == 1 && nx.opType == "Add" && nx.inputs.size() == 2 && !isScalarAffine(nx, out)) {
                const std::string& other = nx.inputs[0] == out ? nx.inputs[1] : nx.inputs[0];
                const ValueDesc* d = q.value(other);
                ok = other != out && d && d->constant && shapeNumel(d->shape) == n && !d->shape.empty() &&
                     d->shape.back() == n && desc(nx.outputs[0]).shape == desc(out).shape;
            } else if (isScalarAffine(nx, out) || (isPostOpActivation(nx) && nx.inputs[0] == out)) {
                ok = takes(eltwiseOf(nx));
            }
            if (!ok) break;
            chain.push_back(next);
            out = nx.outputs[0];
        }
        addChain(chain);
    }
}

void Builder::buildMatMulChain(const std::vector<size_t>& chain) {
    const Node& mm = node(chain[0]);
    const Shape& a = desc(mm.inputs[0]).shape;
    const ValueDesc& bd = desc(mm.inputs[1]);
    const Shape& b = bd.shape;
    const Shape& y = desc(mm.outputs[0]).shape;
    const std::vector<std::string> names = namesOf(chain);
    std::string bias;
    std::vector<EltwiseStep> steps;
    for (size_t k = 1; k < chain.size(); ++k) {
        const Node& n = node(chain[k]);
        if (auto d = decomposedAt.find(chain[k]); d != decomposedAt.end()) {
            appendStep(steps, d->second.first);
            k += d->second.second - 1;
        } else if (k == 1 && n.opType == "Add" && !isScalarAffine(n, mm.outputs[0])) {
            bias = n.inputs[0] == mm.outputs[0] ? n.inputs[1] : n.inputs[0];
        } else {
            for (const EltwiseStep& step : eltwiseOf(n)) appendStep(steps, step);
        }
    }
    dnnl::post_ops ops;
    for (auto [alg, alpha, beta] : steps) ops.append_eltwise(1.f, alg, alpha, beta);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const int64_t n = y.back();
    const std::string key = chainKey("matmul", chain);
    memory src, weights, dst;
    memory::desc srcDesc, weightsDesc, dstDesc, biasDesc;
    const bool matrix = broadcastsAsMatrix(a, b);
    if (matrix) {  // [..., K] x [K, N] as one [rows, K] x [K, N] GEMM
        const int64_t k = a.back(), rows = shapeNumel(a) / std::max<int64_t>(k, 1);
        memory plainA = getAs(mm.inputs[0], plainDesc(a), names[0]);
        src = a.size() == 2 ? plainA : view(plainA, {rows, k});
        srcDesc = src.get_desc();
        weightsDesc = bd.constant ? memory::desc({k, n}, dt::f32, tag::any) : plainDesc({k, n});
        dstDesc = plainDesc({rows, n});
        biasDesc = plainDesc({1, n});
    } else {  // batched: operands of lower rank broadcast through views with leading 1s
        std::vector<memory> operands;
        for (size_t i = 0; i < 2; ++i) {
            const Shape& s = desc(mm.inputs[i]).shape;
            memory plain = getAs(mm.inputs[i], plainDesc(s), names[0]);
            operands.push_back(s.size() == y.size() ? plain : view(plain, padRank(s, y.size())));
        }
        src = operands[0];
        weights = operands[1];
        srcDesc = src.get_desc();
        weightsDesc = weights.get_desc();
        dstDesc = plainDesc(y);
        biasDesc = plainDesc(padRank({n}, y.size()));
    }
    auto pd = bias.empty() ? dnnl::matmul::primitive_desc({srcDesc, weightsDesc, dstDesc}, attr, eng)
                           : dnnl::matmul::primitive_desc({srcDesc, weightsDesc, biasDesc, dstDesc}, attr, eng);
    if (matrix && bd.constant) {
        const Tensor* inPlace = bd.constant->dtype() == DType::F32 ? bd.constant : nullptr;
        weights = packed(key + "|w", pd.weights_desc(), [&](memory& to) {
            convertNow(plainWeights(plainDesc({a.back(), n}), inPlace, inPlace ? std::vector<float>{}
                                                                                 : bd.constant->toFloatVector()),
                       to);
        });
    } else if (matrix) {
        memory plainB = getAs(mm.inputs[1], plainDesc(b), names[0]);
        weights = b.size() == 2 ? plainB : view(plainB, {a.back(), n});
    }
    dst = activation(pd.dst_desc());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (!bias.empty()) args[DNNL_ARG_BIAS] = packedFloats(key + "|b", biasDesc, desc(bias).constant->toFloatVector());
    addPrimitive(pd, args, names);
    const std::string& out = node(chain.back()).outputs[0];
    mem[out] = matrix && y.size() != 2 ? view(dst, desc(out).shape) : dst;
}

}  // namespace npuwb::onednn
