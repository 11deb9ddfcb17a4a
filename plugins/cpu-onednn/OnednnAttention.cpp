// The attention core as one kernel, computed per block of score rows so the scores never leave the cache:
//
//   before:  Q [.., M, K] --MatMul(Kt [.., K, N])--> S [.., M, N] --(Cast fp16, Cast f32)--> --Div sqrt(d)-->
//            --Add mask--> --Softmax(last axis)--> --(QuantizeLinear, DequantizeLinear)--> --MatMul(V [.., N, D])--> O
//   after:   for each (batch, block of rows): S_blk = Q_blk x Kt (GEMM), the steps row by row, O_blk = S_blk x V (GEMM)
//
// Every step in between is optional and kept in the graph's order; each computes what its node computes (a division
// stays a division unless 1/c is exact, the fp16 marks round, QDQ runs the plugin's exact quantize and dequantize
// loops). In a QDQ model the GEMMs take the 8-bit Q, K, V and probabilities themselves (AttentionKernel.h). whisper's
// 1500x1500 scores per head made five passes over 54 MB tensors out of what is now one pass in cache.
#include "OnednnSegmentBuilder.h"

#include <cmath>
#include <memory>

namespace npuwb::onednn {

namespace {

/// How a GEMM reads a [rows, cols] matrix stored with these element strides: 'N' (row-major, ld = row stride) or
/// 'T' (column-major, ld = column stride); nothing when neither holds (the caller makes a plain copy).
std::optional<std::pair<char, int64_t>> gemmAccess(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride) {
    if ((cols == 1 || colStride == 1) && (rows == 1 || rowStride >= cols))
        return std::make_pair('N', rows == 1 ? std::max<int64_t>(cols, 1) : rowStride);
    if ((rows == 1 || rowStride == 1) && (cols == 1 || colStride >= rows))
        return std::make_pair('T', cols == 1 ? std::max<int64_t>(rows, 1) : colStride);
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<int64_t>> Builder::transposePerm(const Node& t) const {
    const auto rank = t.inputs.empty() || !q.value(t.inputs[0]) ? 0 : int64_t(desc(t.inputs[0]).shape.size());
    std::vector<int64_t> perm = t.attrInts("perm");
    if (t.opType != "Transpose" || rank == 0 || int64_t(perm.size()) != rank) return std::nullopt;
    std::vector<bool> seen(size_t(rank), false);
    for (int64_t& p : perm) {
        if (p < 0) p += rank;
        if (p < 0 || p >= rank || seen[size_t(p)]) return std::nullopt;
        seen[size_t(p)] = true;
    }
    return perm;
}

std::optional<std::vector<int64_t>> Builder::transposeReading(const std::string& value) const {
    auto c = consumers.find(value);
    if (c == consumers.end() || c->second != 1 || segmentOutputs.count(value)) return std::nullopt;
    auto u = consumerInSegment.find(value);
    return u == consumerInSegment.end() ? std::nullopt : transposePerm(node(u->second));
}

std::optional<std::pair<std::vector<size_t>, Builder::AttentionCore>> Builder::attentionCore(
    size_t matmul, const std::map<std::string, std::vector<size_t>>& users) const {
    auto sole = [&](const std::string& v) { return soleUser(v, users); };
    auto isFloat = [&](const std::string& v) {
        const ValueDesc* d = v.empty() ? nullptr : q.value(v);
        return d && d->dtype == DType::F32;
    };
    const Node& first = node(matmul);
    if (first.opType != "MatMul" || !first.domain.empty() || first.inputs.size() != 2 || !isFloat(first.inputs[0]) ||
        !isFloat(first.inputs[1]) || !isFloat(first.outputs[0]))
        return std::nullopt;
    const Shape scores = desc(first.outputs[0]).shape;
    const auto rank = scores.size();
    if (rank < 2 || desc(first.inputs[0]).shape.size() < 2 || desc(first.inputs[1]).shape.size() < 2)
        return std::nullopt;
    std::vector<size_t> taken{matmul};
    AttentionCore core;
    std::vector<ScoreStep>* steps = &core.scores;
    std::string value = first.outputs[0];
    // Cast to fp16 then back to float: one rounding step (the quantizer's marks of ops it keeps in fp16).
    auto halfRoundTrip = [&](size_t k) -> std::optional<size_t> {
        const Node& n = node(k);
        if (n.opType != "Cast" || n.outputs.size() != 1 || desc(n.outputs[0]).dtype != DType::F16)
            return std::nullopt;
        auto back = sole(n.outputs[0]);
        if (!back || node(*back).opType != "Cast" || !isFloat(node(*back).outputs[0])) return std::nullopt;
        return back;
    };
    while (true) {
        auto next = sole(value);
        if (!next) return std::nullopt;
        const Node& n = node(*next);
        if (!n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1) return std::nullopt;
        if (auto back = halfRoundTrip(*next)) {
            steps->push_back({.kind = ScoreStep::Kind::RoundToHalf});
            taken.insert(taken.end(), {*next, *back});
            value = node(*back).outputs[0];
            continue;
        }
        if (n.opType == "MatMul") {  // the probabilities times V
            if (steps == &core.scores || n.inputs.size() != 2 || n.inputs[0] != value || n.inputs[1] == value ||
                !isFloat(n.inputs[1]) || !isFloat(n.outputs[0]))
                return std::nullopt;
            const Shape& v = desc(n.inputs[1]).shape;
            const Shape& y = desc(n.outputs[0]).shape;
            if (v.size() < 2 || v[v.size() - 2] != scores.back() || y.size() != rank) return std::nullopt;
            taken.push_back(*next);
            return std::make_pair(taken, core);
        }
        if (n.opType == "Softmax") {
            const int64_t axis = n.attrInt("axis", q.opset >= 13 ? -1 : 1);
            if (steps != &core.scores || (axis != -1 && axis != int64_t(rank) - 1)) return std::nullopt;
            core.probabilities.push_back({.kind = ScoreStep::Kind::Softmax});
            steps = &core.probabilities;
        } else if (n.opType == "QuantizeLinear") {
            auto dq = sole(n.outputs[0]);
            auto qp = quantParamsOf(q, n);
            if (!dq || !qp || node(*dq).opType != "DequantizeLinear") return std::nullopt;
            auto dp = quantParamsOf(q, node(*dq));
            if (!dp || dp->type != qp->type || !isFloat(node(*dq).outputs[0])) return std::nullopt;
            steps->push_back({.kind = ScoreStep::Kind::QuantizeDequantize, .quantize = *qp, .dequantize = *dp});
            taken.push_back(*next);
            next = dq;
        } else if ((n.opType == "Div" || n.opType == "Mul") && n.inputs.size() == 2 &&
                   (n.inputs[0] == value || (n.opType == "Mul" && n.inputs[1] == value))) {
            const std::string& other = n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
            auto c = scalarConstant(other);
            if (!c || steps != &core.scores) return std::nullopt;
            int exponent = 0;
            if (n.opType == "Div" && std::frexp(*c, &exponent) == 0.5f)  // 1/c is exact: x/c == x*(1/c)
                steps->push_back({.kind = ScoreStep::Kind::Multiply, .value = 1.f / *c});
            else
                steps->push_back({.kind = n.opType == "Div" ? ScoreStep::Kind::Divide : ScoreStep::Kind::Multiply,
                                  .value = *c});
        } else if (n.opType == "Add" && n.inputs.size() == 2) {
            const std::string& other = n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
            if (other == value || !isFloat(other) || steps != &core.scores || desc(n.outputs[0]).shape != scores)
                return std::nullopt;
            const Shape& s = desc(other).shape;
            if (s.size() > rank) return std::nullopt;
            const Shape padded = padRank(s, rank);
            for (size_t i = 0; i < rank; ++i)
                if (padded[i] != 1 && padded[i] != scores[i]) return std::nullopt;
            steps->push_back({.kind = ScoreStep::Kind::Add, .tensor = other});
        } else {
            return std::nullopt;
        }
        taken.push_back(*next);
        value = node(*next).outputs[0];
        if (!isFloat(value)) return std::nullopt;
    }
}

void Builder::buildAttention(const std::vector<size_t>& chain) {
    const AttentionCore& core = attentionAt.at(chain[0]);
    const Node& first = node(chain[0]);
    const Node& last = node(chain.back());
    const std::vector<std::string> names = namesOf(chain);
    const Shape& y = desc(last.outputs[0]).shape;
    const size_t rank = y.size();
    auto kernel = std::make_shared<AttentionKernel>();
    kernel->batchDims.assign(y.begin(), y.end() - 2);
    const Shape& qs = desc(first.inputs[0]).shape;
    const Shape& ks = desc(first.inputs[1]).shape;
    const Shape& vs = desc(last.inputs[1]).shape;
    kernel->m = y[rank - 2];
    kernel->d = y.back();
    kernel->k = qs.back();
    kernel->n = ks.back();
    // A matrix operand of value `name` (of element type `type`): its own storage when a GEMM can read it, else a
    // plain copy.
    auto operand = [&](const std::string& name, const Shape& shape, dt type) {
        auto [m, strides] = unblocked(name, shape, type, names[0]);
        const size_t r = shape.size();
        auto access = gemmAccess(shape[r - 2], shape[r - 1], strides[r - 2], strides[r - 1]);
        if (!access) {
            m = getAs(name, plainDesc(shape, type), names[0]);
            strides = *unblockedStrides(m.get_desc());
            access = gemmAccess(shape[r - 2], shape[r - 1], strides[r - 2], strides[r - 1]);
        }
        AttentionOperand o{.m = m, .trans = access->first, .ld = access->second};
        for (size_t i = 0; i + 2 < rank; ++i) {
            const auto j = int64_t(i) - int64_t(rank - r);
            o.batchStrides.push_back(j < 0 || shape[size_t(j)] == 1 ? 0 : strides[size_t(j)]);
        }
        return o;
    };
    // The 8-bit value behind a dequantized operand (read as such, its float image never made), else the float value.
    auto byteOperand = [&](const std::string& name) -> std::optional<std::pair<std::string, QuantInfo>> {
        auto source = dequantizedInput(name);
        if (!source || (source->second.type != DType::U8 && source->second.type != DType::I8)) return std::nullopt;
        return source;
    };
    auto qa = byteOperand(first.inputs[0]), qb = byteOperand(first.inputs[1]), qv = byteOperand(last.inputs[1]);
    // oneDNN's u8 x s8 GEMM packs both operands on every call: below a depth (scores) or width (values) of 64 the
    // packing costs more than the narrower arithmetic saves. Measured per model, 2 threads, bytes / float time of
    // the attention cores: head size 16-24 (MobileViT) 1.17, 32 (Swin) 1.21, 64 (DeiT, BERT, whisper) 0.67-0.98.
    constexpr int64_t kByteGemmMinDepth = 64;
    kernel->int8Scores = qa && qb && kernel->k >= kByteGemmMinDepth;
    kernel->int8Values = kernel->d >= kByteGemmMinDepth && qv &&
                         core.probabilities.back().kind == ScoreStep::Kind::QuantizeDequantize;
    // An 8-bit operand is read as bytes either way (a float GEMM gets it dequantized per task): its float image is
    // never made.
    auto pick = [&](const std::string& name, const Shape& shape,
                    const std::optional<std::pair<std::string, QuantInfo>>& source) {
        if (!source) return operand(name, shape, dt::f32);
        AttentionOperand o = operand(source->first, shape, dnnlType(source->second.type));
        o.quant = source->second;
        o.bytes = true;
        return o;
    };
    kernel->a = pick(first.inputs[0], qs, qa);
    kernel->b = pick(first.inputs[1], ks, qb);
    kernel->v = pick(last.inputs[1], vs, qv);
    std::vector<memory> uses{kernel->a.m, kernel->b.m, kernel->v.m};
    for (const ScoreStep& s : core.scores) {
        if (s.kind != ScoreStep::Kind::Add) continue;
        Shape shape = desc(s.tensor).shape;
        if (shape.empty()) shape = {1};
        memory m = getAs(s.tensor, plainDesc(shape), names[0]);
        const Shape padded = padRank(shape, rank);
        AttentionOperand o{.m = m, .trans = 'N', .ld = 0};
        Dims strides(rank, 0);
        for (size_t i = rank, step = 1; i-- > 0;) {
            strides[i] = padded[i] == 1 ? 0 : int64_t(step);
            step *= size_t(padded[i]);
        }
        o.batchStrides.assign(strides.begin(), strides.end() - 2);
        o.rowStride = strides[rank - 2];
        o.colStride = strides[rank - 1];
        kernel->addends.push_back(o);
        uses.push_back(m);
    }
    kernel->scores = core.scores;
    // A scale right after the first GEMM is its alpha (sqrt(d) as exporters write it: a power of two, exact).
    if (!kernel->scores.empty() && kernel->scores.front().kind == ScoreStep::Kind::Multiply) {
        kernel->alpha = kernel->scores.front().value;
        kernel->scores.erase(kernel->scores.begin());
    }
    kernel->probabilities = core.probabilities;
    // The output in the order its Transpose reads (heads back next to each other: [B, H, M, D] -> [B, M, H, D]), so
    // that Transpose is a view; plain otherwise.
    Dims outStrides = *unblockedStrides(plainDesc(y));
    if (auto reader = transposeReading(last.outputs[0]); reader && reader->back() == int64_t(rank) - 1) {
        Shape transposed(rank);
        for (size_t i = 0; i < rank; ++i) transposed[i] = y[size_t((*reader)[i])];
        const Dims dense = *unblockedStrides(plainDesc(transposed));
        for (size_t i = 0; i < rank; ++i) outStrides[size_t((*reader)[i])] = dense[i];
    }
    // Quantized for the next Linear after the heads are merged: the output's bytes, moved as bytes.
    if (core.quantizedOutput) kernel->yQuant = quantParamsOf(q, node(*core.quantizedOutput));
    const dt outType = kernel->yQuant ? dnnlType(kernel->yQuant->type) : dt::f32;
    memory out = activation(memory::desc(toDims(y), outType, outStrides));
    kernel->y = AttentionOperand{.m = out, .trans = 'N', .ld = outStrides[rank - 2]};
    kernel->y.batchStrides.assign(outStrides.begin(), outStrides.end() - 2);
    uses.push_back(out);
    // Blocks of about 384 KB of scores per thread (in L2 with V's panel), and at least four tasks per thread when the
    // rows allow it.
    int64_t batches = 1;
    for (int64_t dim : kernel->batchDims) batches *= dim;
    const int64_t threads = std::max(1, seg.threads_);
    int64_t rows = std::clamp<int64_t>(98304 / std::max<int64_t>(kernel->n, 1), 4, kernel->m);
    const int64_t wantBlocks = (4 * threads + batches - 1) / batches;
    if (wantBlocks > 1) rows = std::min(rows, std::max<int64_t>(1, (kernel->m + wantBlocks - 1) / wantBlocks));
    kernel->rowsPerTask = rows;
    const bool serial = batches * kernel->m * kernel->n * int64_t(sizeof(float)) < int64_t(kSerialKernelBytes);
    addKernel([kernel](dnnl::stream&) { kernel->run(); }, names, uses);
    seg.kernels.back().serial = serial;
    if (kernel->yQuant) {
        mem[int8Name(last.outputs[0])] = out;
        lazyDequantize(last.outputs[0], int8Name(last.outputs[0]), *kernel->yQuant, names.back());
        return;
    }
    mem[last.outputs[0]] = out;
}

}  // namespace npuwb::onednn
