// Matching QDQ patterns into int8 chains, at compile time (the user's graph is not rewritten):
//   DQ(x_q) -> Conv/Gemm(W = folded DQ(w_s8), B = folded DQ(b_s32)) -> [Relu|Clip|SiLU] -> [Q]  one int8
//                                                                                          primitive (SiLU:
//                                                                                          x * Sigmoid(x))
//   DQ(x_q) -> MatMul(W = folded DQ(w_s8)) -> [Add(constant bias of N)] -> [Relu|Clip|SiLU] -> [Q]
//                                                                                          the same (Linear as
//                                                                                          exporters write it)
//   ... -> Conv/Gemm/MatMul chain -> Reshape|Transpose|... -> Q                            the chain writes Q's bytes,
//                                                                                          the movement moves bytes
//   ... -> MatMul chain -> Slice (columns) -> movement -> [Div|Mul by c > 0] -> Q, per Slice   the GEMM writes each
//                                                                                          column range in its Q's
//                                                                                          parameters (fused QKV)
//   DQ(a_q), DQ(b_q) -> Add|Mul -> [Relu|Clip] -> [Q]                                       one int8 elementwise kernel
//                                                                                          (b may be per channel:
//                                                                                          [N|1, C, 1, 1], SE blocks;
//                                                                                          without Q: a float sum)
//   DQ(x_q) -> Sigmoid|Tanh|HardSigmoid|HardSwish|... -> Q                                  a 256-entry table
//   DQ(x_q) -> Add|Sub|Mul|Div with a single-element constant -> Q                          a 256-entry table
//   DQ(x_q) -> MaxPool -> Q (same scale and zero point)                                     int8 pooling
//   DQ(x_q) -> GlobalAveragePool -> Q                                                       int8 average (exact sum)
//   DQ(a_q), DQ(b_q), ... -> Concat -> Q                                                   int8 concat (inputs with
//                                                                                          other parameters requantized)
// DequantizeLinear is lazy: it costs nothing unless a float consumer reads its output, and Q(DQ(x)) with equal
// parameters is x itself. Everything else runs in float between exact Q/DQ kernels (OnednnQuant.h has the rounding).
#include "OnednnSegmentBuilder.h"

#include <algorithm>
#include <cmath>

namespace npuwb::onednn {

bool Builder::byteDequantized(const std::string& value) const {
    auto d = dequantizedInput(value);
    return d && isByte(d->second.type);
}

std::optional<std::pair<std::string, QuantInfo>> Builder::dequantizedInput(const std::string& value) const {
    auto p = producerInSegment.find(value);
    if (p == producerInSegment.end()) return std::nullopt;
    const Node& n = node(p->second);
    if (n.opType == "DequantizeLinear") {
        auto info = quantParamsOf(q, n);
        if (!info) return std::nullopt;
        return std::make_pair(n.inputs[0], *info);
    }
    if (!kInt8Movements.count(n.opType) || n.inputs.empty()) return std::nullopt;
    auto from = dequantizedInput(n.inputs[0]);
    if (!from) return std::nullopt;
    return std::make_pair(int8Name(value), from->second);
}

const Node* Builder::soleConsumer(const std::string& value) const {
    auto c = consumers.find(value);
    auto in = consumerInSegment.find(value);
    if (c == consumers.end() || c->second != 1 || segmentOutputs.count(value) || in == consumerInSegment.end())
        return nullptr;
    return &node(in->second);
}

const Node* Builder::mulWithInput(const Node& op) const {
    const std::string& x = op.inputs[0];
    const std::string& s = op.outputs[0];
    const Node* m = soleConsumer(s);
    if (!m || m->opType != "Mul" || !m->domain.empty() || m->inputs.size() != 2 ||
        !((m->inputs[0] == x && m->inputs[1] == s) || (m->inputs[0] == s && m->inputs[1] == x)))
        return nullptr;
    return m;
}

const Node* Builder::biasAddAfter(const Node& matmul) const {
    const std::string& out = matmul.outputs[0];
    const Node* add = soleConsumer(out);
    if (!add || add->opType != "Add" || !add->domain.empty() || add->inputs.size() != 2) return nullptr;
    const std::string& bias = add->inputs[0] == out ? add->inputs[1] : add->inputs[0];
    const ValueDesc* b = q.value(bias);
    const Shape& y = desc(out).shape;
    if (bias == out || !b || !b->constant || b->shape.empty() || y.empty() || b->shape.back() != y.back() ||
        shapeNumel(b->shape) != y.back() || desc(add->outputs[0]).shape != y)
        return nullptr;
    return add;
}

std::optional<std::pair<size_t, size_t>> Builder::siluAt(const std::string& x) const {
    auto c = consumers.find(x);
    if (c == consumers.end() || c->second != 2 || segmentOutputs.count(x)) return std::nullopt;
    for (size_t idx : segmentNodes) {
        const Node& n = node(idx);
        if (n.opType != "Sigmoid" || !n.domain.empty() || n.inputs.size() != 1 || n.inputs[0] != x) continue;
        if (const Node* m = mulWithInput(n)) return std::make_pair(idx, indexOf(*m));
        return std::nullopt;
    }
    return std::nullopt;
}

const Node* Builder::quantizeAfterMovement(const std::string& value) const {
    std::string v = value;
    for (const Node* n = soleConsumer(v); n && n->domain.empty() && !n->inputs.empty() && n->inputs[0] == v;
         n = soleConsumer(v)) {
        if (n->opType == "QuantizeLinear") {
            auto info = quantParamsOf(q, *n);
            return v != value && info && isByte(info->type) ? n : nullptr;
        }
        if (!kInt8Movements.count(n->opType) || n->outputs.size() != 1) return nullptr;
        v = n->outputs[0];
    }
    return nullptr;
}

std::optional<float> Builder::positiveScalarDivisor(const Node& n) const {
    if ((n.opType != "Div" && n.opType != "Mul") || !n.domain.empty() || n.inputs.size() != 2 ||
        desc(n.inputs[0]).shape != desc(n.outputs[0]).shape)
        return std::nullopt;
    const ValueDesc& c = desc(n.inputs[1]);
    if (!c.constant || c.constant->numel() != 1) return std::nullopt;
    const auto v = static_cast<float>(c.constant->elementAsDouble(0));
    if (!std::isfinite(v) || v <= 0.f || !std::isfinite(1.f / v)) return std::nullopt;
    return n.opType == "Div" ? v : 1.f / v;
}

bool Builder::planQuantizedColumns(size_t anchor, const std::string& value) {
    const Shape& y = desc(value).shape;
    auto readers = consumers.find(value);
    if (y.empty() || y.back() < 2 || readers == consumers.end() || readers->second < 2 || segmentOutputs.count(value))
        return false;
    const size_t last = y.size() - 1;
    std::vector<std::optional<QuantInfo>> columns(static_cast<size_t>(y.back()));
    std::map<size_t, QuantInfo> slices, rescaled;
    std::vector<size_t> taken;
    int seen = 0;
    for (size_t k : segmentNodes) {
        const Node& s = node(k);
        if (std::find(s.inputs.begin(), s.inputs.end(), value) == s.inputs.end()) continue;
        ++seen;
        std::string why;
        auto window = s.opType == "Slice" && s.domain.empty() && s.inputs[0] == value && s.outputs.size() == 1
                          ? sliceWindow(makeNodeQuery(q, k), why)
                          : std::nullopt;
        const Shape& part = desc(s.outputs[0]).shape;
        if (!window || !window->unitSteps() || part.size() != y.size()) return false;
        for (size_t d = 0; d < last; ++d)
            if (window->offsets[d] != 0 || part[d] != y[d]) return false;
        // On to the QuantizeLinear: data movement, and at most one Div/Mul by a positive constant (the attention's
        // 1/sqrt(d) on the queries), whose input then holds the same bytes under the scale times the divisor.
        std::vector<size_t> steps{k};
        std::optional<size_t> rescale;
        float divisor = 1.f;
        const Node* quantize = nullptr;
        std::string v = s.outputs[0];
        for (const Node* n = soleConsumer(v); n && n->domain.empty() && !n->inputs.empty() && n->inputs[0] == v;
             n = soleConsumer(v)) {
            if (n->opType == "QuantizeLinear") {
                quantize = n;
                break;
            }
            auto d = positiveScalarDivisor(*n);
            if (n->outputs.size() != 1 || (!d && !kInt8Movements.count(n->opType)) || (d && rescale)) return false;
            if (d) rescale = indexOf(*n), divisor = *d;
            steps.push_back(indexOf(*n));
            v = n->outputs[0];
        }
        const auto p = quantize ? quantParamsOf(q, *quantize) : std::nullopt;
        if (!p || !isByte(p->type) || (!slices.empty() && slices.begin()->second.type != p->type)) return false;
        QuantInfo bytes = *p;
        bytes.scale = p->scale * divisor;
        if (!std::isfinite(bytes.scale) || bytes.scale <= 0.f) return false;
        for (int64_t c = window->offsets[last]; c < window->offsets[last] + part[last]; ++c) {
            if (columns[static_cast<size_t>(c)]) return false;  // overlapping windows
            columns[static_cast<size_t>(c)] = bytes;
        }
        slices[k] = bytes;
        // Read only through reshapes by a Transpose, which copies anyway (or is itself a view an attention core
        // reads): the Slice's window is a strided view, not a copy of its own.
        for (const Node* n = soleConsumer(s.outputs[0]); n && n->inputs[0] != value; n = soleConsumer(n->outputs[0])) {
            if (n->opType == "Transpose") {
                stridedViewOutputs.insert(int8Name(s.outputs[0]));
                break;
            }
            if (n->opType != "Reshape" && n->opType != "Flatten" && n->opType != "Squeeze" && n->opType != "Unsqueeze")
                break;
        }
        if (rescale) rescaled[*rescale] = *p;
        steps.push_back(indexOf(*quantize));
        taken.insert(taken.end(), steps.begin(), steps.end());
    }
    if (seen != readers->second) return false;  // a reader outside the segment
    std::vector<QuantInfo>& perColumn = quantizedPerColumn[anchor];
    for (const auto& c : columns) perColumn.push_back(c.value_or(slices.begin()->second));  // unread columns: any
    columnSliceQuant.merge(slices);
    rescaledAt.merge(rescaled);
    for (size_t k : taken)
        if (node(k).opType == "QuantizeLinear") quantizedByColumns.insert(k);
    int8Nodes.insert(taken.begin(), taken.end());
    return true;
}

bool Builder::extendWithActivationAndQuantize(std::vector<size_t>& chain, bool requireQuantize) {
    std::string out = node(chain.back()).outputs[0];
    const Node* next = soleConsumer(out);
    if (next && (next->opType == "Relu" || (next->opType == "Clip" && clipBounds(makeNodeQuery(q, indexOf(*next))))) &&
        next->inputs[0] == out) {
        chain.push_back(indexOf(*next));
        out = next->outputs[0];
        next = soleConsumer(out);
    } else if (auto silu = siluAt(out)) {
        const Node* q8 = soleConsumer(node(silu->second).outputs[0]);
        if (q8 && q8->opType == "QuantizeLinear" && quantParamsOf(q, *q8)) {
            chain.push_back(silu->first);
            chain.push_back(silu->second);
            out = node(silu->second).outputs[0];
            next = q8;
        }
    }
    if (next && next->opType == "QuantizeLinear" && quantParamsOf(q, *next)) {
        chain.push_back(indexOf(*next));
        return true;
    }
    if (requireQuantize) chain.resize(1);
    return false;
}

void Builder::planInt8(const std::vector<size_t>& nodes) {
    segmentNodes = nodes;
    for (size_t idx : nodes) {
        for (const auto& in : node(idx).inputs)
            if (!in.empty()) consumerInSegment[in] = idx;
        for (const auto& out : node(idx).outputs) producerInSegment[out] = idx;
    }
    for (size_t idx : nodes) {
        const Node& n = node(idx);
        if (int8Nodes.count(idx) || n.inputs.empty()) continue;
        std::vector<size_t> chain{idx};
        bool matched = false;
        if (isQLinearOp(n.opType)) {
            matched = true;  // already quantized in and out: the node alone
        } else if ((n.opType == "Conv" || n.opType == "Gemm" || n.opType == "MatMul") && dequantizedInput(n.inputs[0])) {
            matched = int8Weights(n).has_value();
            if (matched && n.opType == "MatMul")
                if (const Node* add = biasAddAfter(n)) chain.push_back(indexOf(*add));
            if (matched && !extendWithActivationAndQuantize(chain, false)) {
                // The output read through data movement then quantized: written as bytes, moved as bytes.
                if (const Node* q8 = quantizeAfterMovement(node(chain.back()).outputs[0])) {
                    quantizedThroughMovement[idx] = indexOf(*q8);
                    for (std::string v = node(chain.back()).outputs[0]; soleConsumer(v) != q8;
                         v = soleConsumer(v)->outputs[0])
                        int8Nodes.insert(indexOf(*soleConsumer(v)));
                    int8Nodes.insert(indexOf(*q8));
                } else {
                    planQuantizedColumns(idx, node(chain.back()).outputs[0]);
                }
            }
        } else if (isTableOp(n)) {
            const Node* next = soleConsumer(n.outputs[0]);
            const Node* m = kInt8TableOps.count(n.opType) ? mulWithInput(n) : nullptr;
            if (m) {  // SiLU after a DequantizeLinear
                chain.push_back(indexOf(*m));
                next = soleConsumer(m->outputs[0]);
            }
            const auto y = next && next->opType == "QuantizeLinear" ? quantParamsOf(q, *next) : std::nullopt;
            matched = y && isByte(y->type);
            if (matched) chain.push_back(indexOf(*next));
            else chain.resize(1);
        } else if ((n.opType == "Add" || n.opType == "Mul") && n.inputs.size() == 2 && dequantizedInput(n.inputs[0]) &&
                   dequantizedInput(n.inputs[1]) && desc(n.inputs[0]).shape == desc(n.outputs[0]).shape &&
                   desc(n.inputs[1]).shape == desc(n.outputs[0]).shape) {
            matched = extendWithActivationAndQuantize(chain, true);
            // No Q after it (a residual sum read by a LayerNorm): the float sum straight from the bytes, so neither
            // input's float image is made.
            if (!matched && byteDequantized(n.inputs[0]) && byteDequantized(n.inputs[1])) {
                matched = true;
                for (size_t k : nodes) {  // a QuantizeLinear among its readers: its bytes in the same pass
                    const Node& r = node(k);
                    auto p = r.opType == "QuantizeLinear" && r.inputs[0] == n.outputs[0] ? quantParamsOf(q, r)
                                                                                          : std::nullopt;
                    if (!p || !isByte(p->type) || int8Nodes.count(k)) continue;
                    quantizedAlongside[idx] = k;
                    int8Nodes.insert(k);
                    break;
                }
            }
        } else if ((n.opType == "Add" || n.opType == "Mul") && channelBroadcastInput(n)) {
            matched = extendWithActivationAndQuantize(chain, true);
        } else if (n.opType == "Concat" && std::all_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& in) {
                       return dequantizedInput(in).has_value();
                   })) {
            const Node* next = soleConsumer(n.outputs[0]);
            matched = next && next->opType == "QuantizeLinear" && quantParamsOf(q, *next);
            if (matched) chain.push_back(indexOf(*next));
        } else if (n.opType == "GlobalAveragePool" && dequantizedInput(n.inputs[0]) &&
                   desc(n.inputs[0]).shape.size() >= 3) {
            const Node* next = soleConsumer(n.outputs[0]);
            matched = next && next->opType == "QuantizeLinear" && quantParamsOf(q, *next);
            if (matched) chain.push_back(indexOf(*next));
        } else if (n.opType == "MaxPool" && dequantizedInput(n.inputs[0])) {
            const Node* next = soleConsumer(n.outputs[0]);
            matched = next && next->opType == "QuantizeLinear" && quantParamsOf(q, *next) == dequantizedInput(n.inputs[0])->second;
            if (matched) chain.push_back(indexOf(*next));
        }
        if (!matched) continue;
        for (size_t i = 0; i + 1 < chain.size(); ++i) inChainNotLast.insert(chain[i]);
        int8Nodes.insert(chain.begin(), chain.end());
        chainEndingAt[chain.back()] = chains.size();
        int8Chains.insert(chains.size());
        chains.push_back(chain);
    }
}

std::optional<size_t> Builder::channelBroadcastInput(const Node& n) const {
    if (!n.domain.empty() || n.inputs.size() != 2 || !byteDequantized(n.inputs[0]) || !byteDequantized(n.inputs[1]))
        return std::nullopt;
    const Shape& y = desc(n.outputs[0]).shape;
    if (y.size() < 3) return std::nullopt;
    for (size_t perChannel = 0; perChannel < 2; ++perChannel) {
        if (desc(n.inputs[1 - perChannel]).shape != y) continue;
        const Shape s = padRank(desc(n.inputs[perChannel]).shape, y.size());
        bool ok = s.size() == y.size() && (s[0] == 1 || s[0] == y[0]) && s[1] == y[1] && s != y;
        for (size_t i = 2; ok && i < s.size(); ++i) ok = s[i] == 1;
        if (ok) return perChannel;
    }
    return std::nullopt;
}

std::optional<size_t> Builder::tableInput(const Node& n) const {
    if (!n.domain.empty() || n.inputs.empty()) return std::nullopt;
    const bool scalarBinary = kInt8ScalarBinaryOps.count(n.opType) && n.inputs.size() == 2;
    if (!kInt8TableOps.count(n.opType) && !scalarBinary) return std::nullopt;
    // The one input that varies; every other is a constant (Clip's bounds; a binary op's single-element operand,
    // broadcast to every element, so each output element still depends on its own input element alone).
    size_t variable = 0;
    if (scalarBinary && desc(n.inputs[0]).constant) variable = 1;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (i == variable || n.inputs[i].empty()) continue;
        const ValueDesc& c = desc(n.inputs[i]);
        if (!c.constant || (scalarBinary && c.constant->numel() != 1)) return std::nullopt;
    }
    if (!byteDequantized(n.inputs[variable]) || (scalarBinary && desc(n.inputs[variable]).shape != desc(n.outputs[0]).shape))
        return std::nullopt;
    return variable;
}

bool Builder::isTableOp(const Node& n) const { return tableInput(n).has_value(); }

std::optional<Int8Weights> Builder::int8Weights(const Node& n) const {
    if (n.inputs.size() < 2) return std::nullopt;
    const ValueDesc& w = desc(n.inputs[1]);
    if (!w.constant || w.shape.size() < 2) return std::nullopt;
    if (n.opType == "Conv") return w.shape.size() == 4 ? int8WeightsOf(q, n.inputs[1], 0, w.shape[0]) : std::nullopt;
    // Gemm takes a 2-D A; MatMul with a 2-D weight any A of rank 2 or more (its rows collapsed: one GEMM).
    const size_t rankA = desc(n.inputs[0]).shape.size();
    if (w.shape.size() != 2 || (n.opType == "Gemm" ? rankA != 2 : rankA < 2)) return std::nullopt;
    if (n.opType == "Gemm" && (n.attrInt("transA", 0) || n.attrFloat("alpha", 1.f) != 1.f ||
                               (n.inputs.size() > 2 && !n.inputs[2].empty() && n.attrFloat("beta", 1.f) != 1.f)))
        return std::nullopt;
    const bool transB = n.opType == "Gemm" && n.attrInt("transB", 0);
    return int8WeightsOf(q, n.inputs[1], transB ? 0 : 1, transB ? w.shape[0] : w.shape[1]);
}

}  // namespace npuwb::onednn
