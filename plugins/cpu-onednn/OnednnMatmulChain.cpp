// fp32 MatMul chains and the transformer patterns exporters write as several nodes: GELU (erf and tanh forms) and
// LayerNorm below opset 17. A MatMul whose B is a 2-D weight (or broadcasts as one) is one GEMM over A's rows, the
// weights packed once; a bias Add and activations after it are post-ops.
#include "OnednnSegmentBuilder.h"

#include <cmath>

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

std::optional<std::pair<std::vector<size_t>, EltwiseStep>> Builder::decomposedGelu(
    const std::string& x, const std::map<std::string, std::vector<size_t>>& users, bool alone) const {
    static const std::set<std::string> kOps = {"Add", "Sub", "Mul", "Div", "Pow", "Erf", "Tanh"};
    constexpr size_t kMaxNodes = 12;
    auto usersOf = [&](const std::string& v) -> const std::vector<size_t>& {
        static const std::vector<size_t> none;
        auto u = users.find(v);
        return u == users.end() ? none : u->second;
    };
    // Every node computed from x and scalar constants alone, up to a few.
    std::set<std::string> reach{x};
    std::vector<size_t> region;
    std::map<std::string, size_t> producer;
    for (bool grew = true; grew && region.size() < kMaxNodes;) {
        grew = false;
        const std::set<std::string> frontier = reach;
        for (const std::string& v : frontier)
            for (size_t u : usersOf(v)) {
                const Node& n = node(u);
                if (producer.count(n.outputs.empty() ? std::string() : n.outputs[0]) || !kOps.count(n.opType) ||
                    !n.domain.empty() || n.outputs.size() != 1 || region.size() >= kMaxNodes)
                    continue;
                bool ok = true;
                for (const auto& in : n.inputs) ok = ok && (reach.count(in) || scalarConstant(in));
                if (!ok) continue;
                region.push_back(u);
                producer[n.outputs[0]] = u;
                reach.insert(n.outputs[0]);
                grew = true;
            }
    }
    if (region.size() < 3) return std::nullopt;
    auto at = [&](size_t idx) { return segmentPosition.at(idx); };
    std::sort(region.begin(), region.end(), [&](size_t l, size_t r) { return at(l) < at(r); });
    for (size_t end : region) {
        // The nodes `end` depends on, and whether nothing outside them reads their values.
        std::set<size_t> part;
        std::vector<size_t> work{end};
        while (!work.empty()) {
            const size_t k = work.back();
            work.pop_back();
            if (!part.insert(k).second) continue;
            for (const auto& in : node(k).inputs)
                if (auto p = producer.find(in); p != producer.end()) work.push_back(p->second);
        }
        if (part.size() < 3) continue;
        std::map<std::string, int> uses;
        for (size_t k : part)
            for (const auto& in : node(k).inputs) ++uses[in];
        bool closed = alone || (consumers.count(x) && consumers.at(x) == uses[x]);
        for (size_t k : part) {
            const std::string& v = node(k).outputs[0];
            if (k == end) continue;
            auto c = consumers.find(v);
            closed = closed && !segmentOutputs.count(v) && c != consumers.end() && c->second == uses[v];
        }
        if (!closed) continue;
        std::vector<size_t> ordered(part.begin(), part.end());
        std::sort(ordered.begin(), ordered.end(), [&](size_t l, size_t r) { return at(l) < at(r); });
        auto eval = [&](double v) {
            std::map<std::string, double> val{{x, v}};
            auto in = [&](const std::string& name) {
                return val.count(name) ? val[name] : double(*scalarConstant(name));
            };
            for (size_t k : ordered) {
                const Node& n = node(k);
                const std::string& op = n.opType;
                const double a = in(n.inputs[0]), b = n.inputs.size() > 1 ? in(n.inputs[1]) : 0.0;
                val[n.outputs[0]] = op == "Add" ? a + b : op == "Sub" ? a - b : op == "Mul" ? a * b
                                  : op == "Div" ? a / b : op == "Pow" ? std::pow(a, b) : op == "Erf" ? std::erf(a)
                                                                                      : std::tanh(a);
            }
            return val[node(end).outputs[0]];
        };
        auto matches = [&](double (*f)(double)) {
            for (double v : {-3.1, -1.3, -0.55, -0.07, 0.0, 0.21, 0.8, 1.7, 2.9}) {
                const double want = f(v), got = eval(v);
                if (!(std::abs(got - want) <= 1e-5 * std::max(1.0, std::abs(want)))) return false;
            }
            return true;
        };
        auto erfForm = [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); };
        auto tanhForm = [](double v) {
            return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        };
        if (matches(erfForm)) return std::make_pair(ordered, EltwiseStep{dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f});
        if (matches(tanhForm))
            return std::make_pair(ordered, EltwiseStep{dnnl::algorithm::eltwise_gelu_tanh, 0.f, 0.f});
    }
    return std::nullopt;
}

std::optional<std::pair<std::vector<size_t>, Builder::DecomposedNorm>> Builder::decomposedLayerNorm(
    const std::string& x, const std::map<std::string, std::vector<size_t>>& users) const {
    auto sole = [&](const std::string& v) { return soleUser(v, users); };
    auto is = [&](std::optional<size_t> k, const char* op) { return k && node(*k).opType == op; };
    auto out = [&](size_t k) -> const std::string& { return node(k).outputs[0]; };
    const ValueDesc* xd = q.value(x);
    auto u = users.find(x);
    if (!xd || xd->dtype != DType::F32 || xd->shape.empty() || u == users.end()) return std::nullopt;
    const Shape& shape = xd->shape;
    const auto rank = static_cast<int64_t>(shape.size());
    // Axes of a ReduceMean of `v` over a trailing run with kept dims; nothing otherwise.
    auto trailingMean = [&](size_t k, const std::string& v) -> std::optional<int64_t> {
        const Node& n = node(k);
        std::string why;
        if (n.opType != "ReduceMean" || n.inputs.empty() || n.inputs[0] != v || n.attrInt("keepdims", 1) != 1)
            return std::nullopt;
        auto axes = reduceAxes(makeNodeQuery(q, k), why);
        if (!axes || axes->back() != rank - 1 || axes->back() - axes->front() + 1 != static_cast<int64_t>(axes->size()))
            return std::nullopt;
        return axes->front();
    };
    for (size_t first : u->second) {
        auto axis = trailingMean(first, x);
        if (!axis) continue;
        const int64_t cols = shapeNumel(Shape(shape.begin() + *axis, shape.end()));
        auto sub = sole(out(first));
        if (!is(sub, "Sub") || node(*sub).inputs != std::vector<std::string>{x, out(first)}) continue;
        const std::string& centered = out(*sub);
        auto cu = users.find(centered);
        auto cc = consumers.find(centered);
        if (cu == users.end() || cu->second.size() != 2 || cc == consumers.end() || segmentOutputs.count(centered))
            continue;
        // The square (Pow 2 or the value times itself) and the Div, in either order.
        for (size_t pick = 0; pick < 2; ++pick) {
            const size_t sq = cu->second[pick], div = cu->second[1 - pick];
            const Node& s = node(sq);
            const bool pow2 = s.opType == "Pow" && s.inputs.size() == 2 && s.inputs[0] == centered &&
                              scalarConstant(s.inputs[1]) == 2.f;
            const bool self = s.opType == "Mul" && s.inputs == std::vector<std::string>{centered, centered};
            if (!(pow2 && cc->second == 2) && !(self && cc->second == 3)) continue;
            auto mean2 = sole(out(sq));
            if (!mean2 || trailingMean(*mean2, out(sq)) != axis) continue;
            auto add = sole(out(*mean2));
            if (!is(add, "Add") || !isScalarAffine(node(*add), out(*mean2))) continue;
            const Node& a = node(*add);
            const float epsilon = *scalarConstant(a.inputs[0] == out(*mean2) ? a.inputs[1] : a.inputs[0]);
            auto root = sole(out(*add));
            if (!is(root, "Sqrt") || sole(out(*root)) != div || node(div).opType != "Div" ||
                node(div).inputs != std::vector<std::string>{centered, out(*root)})
                continue;
            std::vector<size_t> taken{first, *sub, sq, *mean2, *add, *root, div};
            DecomposedNorm norm{.input = x, .scale = {}, .shift = {}, .axis = *axis, .epsilon = epsilon};
            // Then a constant scale and shift of the normalized shape: Mul and Add, operands in either order.
            auto param = [&](std::optional<size_t> k, const char* op, const std::string& v) -> std::string {
                if (!is(k, op) || node(*k).inputs.size() != 2 || desc(out(*k)).shape != shape) return {};
                const Node& n = node(*k);
                const std::string& other = n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
                const ValueDesc* d = q.value(other);
                if (other == v || !d || !d->constant || shapeNumel(d->shape) != cols || d->shape.size() > shape.size())
                    return {};
                const Shape padded = padRank(d->shape, shape.size());  // the normalized dims, 1s before them
                for (size_t i = 0; i < padded.size(); ++i)
                    if (padded[i] != (static_cast<int64_t>(i) < *axis ? 1 : shape[i])) return {};
                return other;
            };
            std::string last = out(div);
            if (auto mul = sole(last); !(norm.scale = param(mul, "Mul", last)).empty()) {
                taken.push_back(*mul);
                last = out(*mul);
                if (auto shift = sole(last); !(norm.shift = param(shift, "Add", last)).empty()) taken.push_back(*shift);
            }
            return std::make_pair(taken, norm);
        }
    }
    return std::nullopt;
}

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
    for (size_t idx : nodes) {  // before the MatMul chains: its first MatMul would start one
        if (node(idx).opType != "MatMul" || !free(idx)) continue;
        auto core = attentionCore(idx, users);
        if (!core || !allFree(core->first)) continue;
        attentionAt[idx] = core->second;
        addChain(core->first);
        // Heads merged (Transpose, Reshape) then quantized: the kernel writes the bytes, the movement moves bytes.
        const std::string& out = node(core->first.back()).outputs[0];
        if (const Node* q8 = quantizeAfterMovement(out)) {
            attentionAt[idx].quantizedOutput = indexOf(*q8);
            for (std::string v = out; soleConsumer(v) != q8; v = soleConsumer(v)->outputs[0])
                claimed.insert(indexOf(*soleConsumer(v)));
            claimed.insert(indexOf(*q8));
        }
        // Its matrix operands made by a Transpose that keeps the last axis and feeds nothing else (the heads split
        // off [B, T, H, d]): views the GEMMs read through strides. A moved last axis stays a copy: oneDNN's GEMM
        // reads a transposed operand 10-40% slower than the copy costs.
        // In a QDQ model the same Transpose moves the bytes its producer wrote (quantizedThroughMovement), before a
        // QuantizeLinear that costs nothing and a DequantizeLinear the kernel does itself.
        auto readOnce = [&](const std::string& value) {
            return producerInSegment.count(value) && consumers.count(value) && consumers.at(value) == 1 &&
                   !segmentOutputs.count(value);
        };
        auto elidedQuantize = [&](size_t k) {
            return quantizedByColumns.count(k) ||
                   std::any_of(quantizedThroughMovement.begin(), quantizedThroughMovement.end(),
                               [&](const auto& entry) { return entry.second == k; });
        };
        const std::string& v = node(core->first.back()).inputs[1];
        for (const std::string& operand : {node(idx).inputs[0], node(idx).inputs[1], v}) {
            if (!readOnce(operand)) continue;
            const Node* made = &node(producerInSegment.at(operand));
            std::string viewed = operand;
            if (made->opType == "DequantizeLinear" && readOnce(made->inputs[0]) &&
                elidedQuantize(producerInSegment.at(made->inputs[0]))) {
                const Node& quantize = node(producerInSegment.at(made->inputs[0]));
                if (!readOnce(quantize.inputs[0])) continue;
                made = &node(producerInSegment.at(quantize.inputs[0]));
                viewed = int8Name(quantize.inputs[0]);
                if (rescaledAt.count(indexOf(*made))) {  // the queries' 1/sqrt(d): a new scale, the same bytes
                    if (!readOnce(made->inputs[0])) continue;
                    viewed = int8Name(made->inputs[0]);
                    made = &node(producerInSegment.at(made->inputs[0]));
                }
            }
            auto perm = transposePerm(*made);
            if (perm && perm->back() == int64_t(perm->size()) - 1) stridedViewOutputs.insert(viewed);
        }
    }
    for (size_t idx : nodes) {
        if (node(idx).opType != "ReduceMean" || !free(idx) || node(idx).inputs.empty()) continue;
        auto norm = decomposedLayerNorm(node(idx).inputs[0], users);
        if (!norm || norm->first.front() != idx || !allFree(norm->first)) continue;
        normAt[idx] = norm->second;
        addChain(norm->first);
    }
    for (size_t idx : nodes) {
        if (node(idx).opType != "LayerNormalization" || !free(idx)) continue;
        auto rows = layerNormRows(idx);
        if (!rows || !allFree(rows->first)) continue;
        if (!allFree(rows->second.moved)) rows->second.quantize.reset(), rows->second.moved.clear();
        if (!rows->second.halfInput && !rows->second.quantize) continue;
        normRowsAt[rows->first.front()] = rows->second;
        addChain(rows->first);
        claimed.insert(rows->second.moved.begin(), rows->second.moved.end());
    }
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
            } else if (chain.size() == 1 && nx.opType == "Div" && nx.inputs.size() == 2 && nx.inputs[0] == out &&
                       nx.inputs[1] != out && scalarConstant(nx.inputs[1])) {
                ok = true;  // attention scores / sqrt(d): a binary_div post-op, exact (a folded 1/c would round)
            }
            if (!ok) break;
            chain.push_back(next);
            out = nx.outputs[0];
        }
        addChain(chain);
    }
    // GELUs no MatMul or Conv took: one eltwise pass (one row pass with the quantizer's marks around it).
    for (size_t idx : nodes) {
        if (!free(idx)) continue;
        for (const auto& x : node(idx).inputs) {
            if (!isFloat(x) || desc(x).constant) continue;
            auto gelu = decomposedGelu(x, users, true);
            if (!gelu || !allFree(gelu->first)) continue;
            const bool tanhForm = std::get<0>(gelu->second) == dnnl::algorithm::eltwise_gelu_tanh;
            if (auto rows = geluRows(x, gelu->first, tanhForm); rows && allFree(rows->first)) {
                geluRowsAt[rows->first.front()] = rows->second;
                addChain(rows->first);
                break;
            }
            standaloneActivationAt[gelu->first.front()] = gelu->second;
            addChain(gelu->first);
            break;
        }
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
    std::optional<float> divisor;
    std::vector<EltwiseStep> steps;
    for (size_t k = 1; k < chain.size(); ++k) {
        const Node& n = node(chain[k]);
        if (k == 1 && n.opType == "Div" && n.inputs[0] == mm.outputs[0] && scalarConstant(n.inputs[1])) {
            divisor = scalarConstant(n.inputs[1]);
        } else if (auto d = decomposedAt.find(chain[k]); d != decomposedAt.end()) {
            appendStep(steps, d->second.first);
            k += d->second.second - 1;
        } else if (k == 1 && n.opType == "Add" && !isScalarAffine(n, mm.outputs[0])) {
            bias = n.inputs[0] == mm.outputs[0] ? n.inputs[1] : n.inputs[0];
        } else {
            for (const EltwiseStep& step : eltwiseOf(n)) appendStep(steps, step);
        }
    }
    const bool matrix = broadcastsAsMatrix(a, b);
    const memory::desc divisorDesc(memory::dims(matrix ? 2 : y.size(), 1), dt::f32,
                                   memory::dims(matrix ? 2 : y.size(), 1));
    dnnl::post_ops ops;
    if (divisor) ops.append_binary(dnnl::algorithm::binary_div, divisorDesc);  // first: it came first
    for (auto [alg, alpha, beta] : steps) ops.append_eltwise(1.f, alg, alpha, beta);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const int64_t n = y.back();
    const std::string key = chainKey("matmul", chain);
    memory src, weights, dst;
    memory::desc srcDesc, weightsDesc, dstDesc, biasDesc;
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
    if (divisor)
        args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = packedFloats(key + "|div", divisorDesc, {*divisor});
    addPrimitive(pd, args, names);
    const std::string& out = node(chain.back()).outputs[0];
    mem[out] = matrix && y.size() != 2 ? view(dst, desc(out).shape) : dst;
}

void Builder::buildDecomposedLayerNorm(const std::vector<size_t>& chain) {
    const DecomposedNorm& norm = normAt.at(chain[0]);
    const Shape& x = desc(norm.input).shape;
    const std::vector<std::string> names = namesOf(chain);
    const int64_t cols = shapeNumel(Shape(x.begin() + norm.axis, x.end())), rows = shapeNumel(x) / cols;
    memory src = view(getAs(norm.input, plainDesc(x), names[0]), {rows, cols});
    const memory::desc params({cols}, dt::f32, tag::a);
    auto param = [&](const std::string& name, const char* role, float absent) {
        if (!name.empty()) return constantMemory(name, *desc(name).constant, {cols});
        return packedFloats(chainKey(role, chain), params, std::vector<float>(static_cast<size_t>(cols), absent));
    };
    using F = dnnl::normalization_flags;
    dnnl::layer_normalization_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, src.get_desc(), norm.epsilon, F::use_scale | F::use_shift}, eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_SCALE, param(norm.scale, "layernorm|ones", 1.f)},
                      {DNNL_ARG_SHIFT, param(norm.shift, "layernorm|zeros", 0.f)}, {DNNL_ARG_DST, dst}}, names);
    mem[node(chain.back()).outputs[0]] = view(dst, x);
}

void Builder::buildStandaloneActivation(const std::vector<size_t>& chain) {
    const auto [alg, alpha, beta] = standaloneActivationAt.at(chain[0]);
    std::string x;  // the input from outside the pattern
    std::set<std::string> inside;
    for (size_t k : chain) inside.insert(node(k).outputs[0]);
    for (size_t k : chain)
        for (const auto& in : node(k).inputs)
            if (x.empty() && !inside.count(in) && !scalarConstant(in)) x = in;
    memory src = get(x);
    dnnl::eltwise_forward::primitive_desc pd({dnnl::prop_kind::forward_inference, alg, src.get_desc(), alpha, beta},
                                             eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, namesOf(chain));
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildErf(const Node& n) {
    memory src = get(n.inputs[0]);
    memory dst = activation(src.get_desc());  // padding of a blocked layout stays 0 (erf(0) = 0)
    const auto count = static_cast<int64_t>(src.get_desc().get_size() / sizeof(float));
    const bool serial = src.get_desc().get_size() < kSerialKernelBytes;
    addKernel([src, dst, count, serial](dnnl::stream&) {
        const auto* in = static_cast<const float*>(src.get_data_handle());
        auto* out = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for schedule(static) if (!serial)
        for (int64_t i = 0; i < count; ++i) out[i] = std::erf(in[i]);
    }, {nodeName(n)}, {src, dst});
    seg.kernels.back().serial = serial;
    mem[n.outputs[0]] = dst;
}

}  // namespace npuwb::onednn
