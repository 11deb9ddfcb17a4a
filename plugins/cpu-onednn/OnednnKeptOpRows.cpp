// The ops a quantized model keeps in fp16 (LayerNorm, GELU), with the quantizer's marks around them, as one pass:
//
//   x -> Cast(fp16) -> Cast(float) -> LayerNormalization -> QuantizeLinear      (either mark may be absent)
//   x -> Cast(fp16) -> Cast(float) -> GELU (erf or tanh form, as nodes) -> QuantizeLinear
//   becomes
//   x -> [round to fp16, normalize (or GELU), quantize] -> bytes
//
// oneDNN 2.x's layer normalization and eltwise write float only, so the fp16 round trip before them and the
// QuantizeLinear after them were two more passes over the tensor (on a quantized DeiT: a fifth of the time outside
// the GEMMs).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "AttentionRows.h"
#include "MatmulConvert.h"
#include "OnednnSegmentBuilder.h"

#define NPUWB_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace npuwb::onednn {

namespace {

constexpr int64_t kCastToFloat = 1, kCastToHalf = 10;  // ONNX TensorProto data types
constexpr int64_t kRowBlock = 4096;  // values per task: in L1 between the steps


/// y = (x - mean) / sqrt(variance + epsilon) * gamma + beta over one row (y may be x). Mean and variance in two
/// passes (the reference's order; one pass of sums and squares loses digits on offset rows).
NPUWB_ROW_CLONES void normalizeRow(const float* x, float* y, int64_t count, const float* gamma, const float* beta,
                                   float epsilon) {
    float sum = 0.f;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < count; ++i) sum += x[i];
    const float mean = sum / float(count);
    float squares = 0.f;
#pragma omp simd reduction(+ : squares)
    for (int64_t i = 0; i < count; ++i) squares += (x[i] - mean) * (x[i] - mean);
    const float inverse = 1.f / std::sqrt(squares / float(count) + epsilon);
    for (int64_t i = 0; i < count; ++i) y[i] = (x[i] - mean) * inverse * gamma[i] + beta[i];
}

/// erf(x) as a rational function of x on [-4, 4] (outside it erf is +-1 in float): the minimax fit Eigen and XLA
/// use, within 4.2e-7 of erf in float arithmetic. No library call, so the loop vectorizes.
inline float erfRational(float x) {
    x = std::clamp(x, -4.f, 4.f);
    const float x2 = x * x;
    float p = -2.72614225801306e-10f;
    p = p * x2 + 2.77068142495902e-08f;
    p = p * x2 - 2.10102402082508e-06f;
    p = p * x2 - 5.69250639462346e-05f;
    p = p * x2 - 7.34990630326855e-04f;
    p = p * x2 - 2.95459980854025e-03f;
    p = p * x2 - 1.60960333262415e-02f;
    float q = -1.45660718464996e-05f;
    q = q * x2 - 2.13374055278905e-04f;
    q = q * x2 - 1.68282697438203e-03f;
    q = q * x2 - 7.37332916720468e-03f;
    q = q * x2 - 1.42647390514189e-02f;
    return x * p / q;
}

/// tanh(z) = sign(z) (1 - e^-2|z|) / (1 + e^-2|z|), the exponential of a non-positive argument.
inline float tanhOf(float z) {
    const float e = expNonPositive(-2.f * std::abs(z));
    return std::copysign((1.f - e) / (1.f + e), z);
}

NPUWB_ROW_CLONES void geluBlock(const float* x, float* y, int64_t count, bool tanhForm, bool halfInput) {
    if (halfInput) roundToHalf(x, y, count);
    else std::memcpy(y, x, size_t(count) * sizeof(float));
    if (tanhForm) {
        constexpr float kRoot2OverPi = 0.7978845608f;
        for (int64_t i = 0; i < count; ++i) {
            const float v = y[i];
            y[i] = 0.5f * v * (1.f + tanhOf(kRoot2OverPi * (v + 0.044715f * v * v * v)));
        }
        return;
    }
    for (int64_t i = 0; i < count; ++i) y[i] = 0.5f * y[i] * (1.f + erfRational(y[i] * 0.70710678f));
}

}  // namespace

std::optional<std::pair<size_t, size_t>> Builder::halfMarksBefore(const std::string& value, int uses) const {
    auto castAt = [&](const std::string& v, int64_t to) -> const Node* {
        auto p = producerInSegment.find(v);
        if (p == producerInSegment.end()) return nullptr;
        const Node& c = node(p->second);
        return c.opType == "Cast" && c.domain.empty() && c.attrInt("to", 0) == to ? &c : nullptr;
    };
    auto c = consumers.find(value);
    if (c == consumers.end() || c->second != uses || segmentOutputs.count(value)) return std::nullopt;
    const Node* back = castAt(value, kCastToFloat);
    if (!back) return std::nullopt;
    const Node* half = castAt(back->inputs[0], kCastToHalf);
    if (!half || soleConsumer(back->inputs[0]) != back || desc(half->inputs[0]).dtype != DType::F32)
        return std::nullopt;
    return std::make_pair(indexOf(*half), indexOf(*back));
}

const Node* Builder::byteQuantizeAfter(const std::string& value) const {
    const Node* q8 = soleConsumer(value);
    if (!q8 || q8->opType != "QuantizeLinear") return nullptr;
    auto y = quantParamsOf(q, *q8);
    return y && isByte(y->type) ? q8 : nullptr;
}

std::optional<std::pair<std::vector<size_t>, Builder::NormRows>> Builder::layerNormRows(size_t idx) const {
    const Node& ln = node(idx);
    if (ln.opType != "LayerNormalization" || !ln.domain.empty() || ln.inputs.empty() || ln.outputs.empty() ||
        desc(ln.inputs[0]).dtype != DType::F32)
        return std::nullopt;
    for (size_t i = 1; i < ln.outputs.size(); ++i)
        if (!ln.outputs[i].empty()) return std::nullopt;  // Mean and InvStdDev are training outputs
    const Shape& x = desc(ln.inputs[0]).shape;
    int64_t axis = ln.attrInt("axis", -1);
    if (axis < 0) axis += int64_t(x.size());
    if (axis < 0 || axis >= int64_t(x.size())) return std::nullopt;
    const int64_t cols = shapeNumel(Shape(x.begin() + axis, x.end()));
    for (size_t i = 1; i < 3 && i < ln.inputs.size(); ++i) {
        if (ln.inputs[i].empty()) continue;
        const ValueDesc* p = q.value(ln.inputs[i]);
        if (!p || !p->constant || p->constant->numel() != cols) return std::nullopt;
    }
    NormRows rows{.input = ln.inputs[0], .norm = idx, .halfInput = false, .quantize = std::nullopt};
    std::vector<size_t> chain;
    if (auto marks = halfMarksBefore(ln.inputs[0], 1)) {
        chain = {marks->first, marks->second};
        rows.input = node(marks->first).inputs[0];
        rows.halfInput = true;
    }
    chain.push_back(idx);
    if (const Node* q8 = byteQuantizeAfter(ln.outputs[0])) {
        rows.quantize = quantParamsOf(q, *q8);
        chain.push_back(indexOf(*q8));
    } else if (const Node* moved = quantizeAfterMovement(ln.outputs[0])) {
        rows.quantize = quantParamsOf(q, *moved);
        for (std::string v = ln.outputs[0]; soleConsumer(v) != moved; v = soleConsumer(v)->outputs[0])
            rows.moved.push_back(indexOf(*soleConsumer(v)));
        rows.moved.push_back(indexOf(*moved));
    }
    if (!rows.halfInput && !rows.quantize) return std::nullopt;  // oneDNN's primitive alone
    return std::make_pair(chain, rows);
}

std::optional<std::pair<std::vector<size_t>, Builder::GeluRows>> Builder::geluRows(const std::string& x,
                                                                                   const std::vector<size_t>& gelu,
                                                                                   bool tanhForm) const {
    int uses = 0;
    for (size_t k : gelu)
        for (const auto& in : node(k).inputs) uses += in == x;
    GeluRows rows{.input = x, .tanhForm = tanhForm, .halfInput = false, .quantize = std::nullopt};
    std::vector<size_t> chain;
    if (auto marks = halfMarksBefore(x, uses)) {
        chain = {marks->first, marks->second};
        rows.input = node(marks->first).inputs[0];
        rows.halfInput = true;
    }
    chain.insert(chain.end(), gelu.begin(), gelu.end());
    if (const Node* q8 = byteQuantizeAfter(node(gelu.back()).outputs[0])) {
        rows.quantize = quantParamsOf(q, *q8);
        chain.push_back(indexOf(*q8));
    }
    if (!rows.halfInput && !rows.quantize) return std::nullopt;  // oneDNN's eltwise alone
    return std::make_pair(chain, rows);
}

void Builder::buildLayerNormRows(const std::vector<size_t>& chain) {
    const NormRows& r = normRowsAt.at(chain[0]);
    const Node& ln = node(r.norm);
    const Shape& x = desc(r.input).shape;
    int64_t axis = ln.attrInt("axis", -1);
    if (axis < 0) axis += int64_t(x.size());
    const int64_t cols = shapeNumel(Shape(x.begin() + axis, x.end()));
    const int64_t rows = shapeNumel(x) / std::max<int64_t>(cols, 1);
    auto param = [&](size_t i, float absent) {
        if (i < ln.inputs.size() && !ln.inputs[i].empty()) return desc(ln.inputs[i]).constant->toFloatVector();
        return std::vector<float>(size_t(cols), absent);
    };
    const std::vector<float> gamma = param(1, 1.f), beta = param(2, 0.f);
    const float epsilon = ln.attrFloat("epsilon", 1e-5f);
    const std::vector<std::string> names = namesOf(chain);
    memory src = getAs(r.input, plainDesc(x), names[0]);
    memory dst = activation(r.quantize ? withType(plainDesc(x), dnnlType(r.quantize->type)) : plainDesc(x));
    const bool halfInput = r.halfInput;
    const std::optional<QuantInfo> quantize = r.quantize;
    const bool serial = shapeNumel(x) * int64_t(sizeof(float)) < int64_t(kSerialKernelBytes);
    // Blocks of whole rows of about kRowBlock values: the fp16 rounding and the quantization run once per block
    // (per row they cost more than the normalization on rows of 64).
    const int64_t perBlock = std::max<int64_t>(1, kRowBlock / std::max<int64_t>(cols, 1));
    addKernel([src, dst, gamma, beta, epsilon, halfInput, quantize, rows, cols, perBlock, serial](dnnl::stream&) {
        const auto* in = static_cast<const float*>(src.get_data_handle());
        auto* out = static_cast<uint8_t*>(dst.get_data_handle());
#pragma omp parallel if (!serial)
        {
            std::vector<float> block(static_cast<size_t>(perBlock * cols));
#pragma omp for schedule(static)
            for (int64_t k0 = 0; k0 < rows; k0 += perBlock) {
                const int64_t n = std::min(perBlock, rows - k0) * cols;
                const float* x = in + k0 * cols;
                if (halfInput) {
                    roundToHalf(x, block.data(), n);
                    x = block.data();
                }
                float* y = quantize ? block.data() : reinterpret_cast<float*>(out) + k0 * cols;
                for (int64_t r = 0; r < n; r += cols)
                    normalizeRow(x + r, y + r, cols, gamma.data(), beta.data(), epsilon);
                if (quantize) quantizeBuffer(y, out + k0 * cols, size_t(n), *quantize);
            }
        }
    }, names, {src, dst});
    seg.kernels.back().serial = serial;
    if (!r.moved.empty()) {  // bytes under their own name; the float value is their image
        mem[int8Name(ln.outputs[0])] = dst;
        lazyDequantize(ln.outputs[0], int8Name(ln.outputs[0]), *quantize, names.back());
        return;
    }
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildGeluRows(const std::vector<size_t>& chain) {
    const GeluRows& g = geluRowsAt.at(chain[0]);
    const Shape& x = desc(g.input).shape;
    const int64_t count = shapeNumel(x);
    const std::vector<std::string> names = namesOf(chain);
    memory src = getAs(g.input, plainDesc(x), names[0]);
    memory dst = activation(g.quantize ? withType(plainDesc(x), dnnlType(g.quantize->type)) : plainDesc(x));
    const bool halfInput = g.halfInput, tanhForm = g.tanhForm;
    const std::optional<QuantInfo> quantize = g.quantize;
    const bool serial = count * int64_t(sizeof(float)) < int64_t(kSerialKernelBytes);
    addKernel([src, dst, count, halfInput, tanhForm, quantize, serial](dnnl::stream&) {
        const auto* in = static_cast<const float*>(src.get_data_handle());
        auto* out = static_cast<uint8_t*>(dst.get_data_handle());
#pragma omp parallel if (!serial)
        {
            std::vector<float> block(static_cast<size_t>(kRowBlock));
#pragma omp for schedule(static)
            for (int64_t b = 0; b < count; b += kRowBlock) {
                const int64_t n = std::min(kRowBlock, count - b);
                float* y = quantize ? block.data() : reinterpret_cast<float*>(out) + b;
                geluBlock(in + b, y, n, tanhForm, halfInput);
                if (quantize) quantizeBuffer(y, out + b, size_t(n), *quantize);
            }
        }
    }, names, {src, dst});
    seg.kernels.back().serial = serial;
    mem[node(chain.back()).outputs[0]] = dst;
}

}  // namespace npuwb::onednn
