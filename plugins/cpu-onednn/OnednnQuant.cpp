#include "OnednnQuant.h"

#include "OnednnQuantAvx512.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <omp.h>

namespace npuwb::onednn {

namespace {

/// Rounds half to even for |v| < 2^22 with the default rounding mode (vectorizes, unlike nearbyint without SSE4.1);
/// larger magnitudes saturate anyway, so they are clamped first.
inline float roundEven(float v) {
    constexpr float magic = 12582912.f;  // 1.5 * 2^23
    v = std::min(4.0e6f, std::max(-4.0e6f, v));  // NaN becomes -4e6, which saturates to the lowest value
    return (v + magic) - magic;  // exact IEEE arithmetic (no -ffast-math): the add rounds to an integer
}

/// Branch-free (so loops vectorize): std::max(lo, r) returns lo for NaN, like the reference's saturation.
template <class Q> inline Q saturate(float r) {
    constexpr float lo = static_cast<float>(std::numeric_limits<Q>::lowest());
    constexpr float hi = static_cast<float>(std::numeric_limits<Q>::max());
    return static_cast<Q>(static_cast<int32_t>(std::min(hi, std::max(lo, r))));
}

/// Calls fn.template operator()<Q>() for the quantized element type.
template <class F> void visitQ(DType t, F&& fn) {
    if (t == DType::U8) fn.template operator()<uint8_t>();
    else fn.template operator()<int8_t>();
}

constexpr size_t kParallelFrom = 1 << 14;

/// Runs chunk(begin, end) over [0, count) on the OpenMP threads (one contiguous chunk each), keeping the loops in
/// the chunks free of OpenMP bookkeeping so they vectorize.
/// (`cost`: elements of work per item, when items are rows or planes.)
template <class F> void parallelChunks(size_t count, F&& chunk, size_t cost = 1) {
    if (count * cost < kParallelFrom || count < 2) return chunk(size_t{0}, count);
#pragma omp parallel
    {
        const size_t threads = static_cast<size_t>(omp_get_num_threads()), t = static_cast<size_t>(omp_get_thread_num());
        const size_t per = (count + threads - 1) / threads, begin = std::min(count, t * per);
        chunk(begin, std::min(count, begin + per));
    }
}

}  // namespace

std::vector<float> accumulatorBias(const GraphQuery& q, const std::string& biasValue, float xScale,
                                   const std::vector<float>& wScales) {
    const size_t channels = wScales.size();
    std::vector<float> out(channels, 0.f);
    if (biasValue.empty()) return out;
    if (auto exact = exactInt32Bias(q, biasValue, xScale, wScales)) {
        for (size_t c = 0; c < channels; ++c) out[c] = static_cast<float>((*exact)[c]);
        return out;
    }
    const std::vector<float> f = constantBias(q, biasValue, channels);
    for (size_t c = 0; c < channels; ++c) out[c] = f[c] / (xScale * wScales[c]);
    return out;
}

bool isQLinearOp(const std::string& opType) { return opType == "QLinearConv" || opType == "QLinearMatMul"; }

std::optional<QLinearParams> qlinearParams(const GraphQuery& q, const Node& node, std::string& why) {
    const bool conv = node.opType == "QLinearConv";
    QLinearParams p;
    auto x = scalarQuantParams(constantInput(q, node, 1), constantInput(q, node, 2));
    auto y = scalarQuantParams(constantInput(q, node, 6), constantInput(q, node, 7));
    if (!x || !y) { why = "scales and zero points must be constant per-tensor u8/s8"; return std::nullopt; }
    p.x = *x, p.y = *y;
    auto w = qlinearWeights(constantInput(q, node, 3), constantInput(q, node, 4), constantInput(q, node, 5), conv, why);
    if (!w) return std::nullopt;
    p.w = std::move(*w);
    const size_t channels = p.w.scales.size();
    p.bias.assign(channels, 0.f);
    if (conv && node.inputs.size() > 8 && !node.inputs[8].empty()) {
        const Tensor* b = constantInput(q, node, 8);
        if (!b || b->dtype() != DType::I32 || static_cast<size_t>(b->numel()) != channels) {
            why = "bias must be a constant int32 per channel";
            return std::nullopt;
        }
        for (size_t c = 0; c < channels; ++c) p.bias[c] = static_cast<float>(b->data<int32_t>()[c]);
    }
    return p;
}

Capability supportsQLinearNode(const NodeQuery& q) {
    if (q.inputTypes.empty() || (q.inputTypes[0] != DType::U8 && q.inputTypes[0] != DType::I8))
        return Capability::no("only uint8/int8 input supported");
    if (q.node.opType == "QLinearMatMul" && (q.inputShapes[0].size() != 2 || q.inputShapes.size() < 8 || q.inputShapes[3].size() != 2))
        return Capability::no("only 2-D QLinearMatMul supported");
    for (size_t i = 1; i < q.node.inputs.size(); ++i)
        if (!q.node.inputs[i].empty() && !q.constants[i]) return Capability::no("parameters and weights must be constants");
    return Capability::yes();  // the rest is checked when the kernel is built (qlinearParams)
}

dnnl::memory::data_type dnnlType(DType t) {
    using dt = dnnl::memory::data_type;
    switch (t) {
        case DType::F32: return dt::f32;
        case DType::U8: return dt::u8;
        case DType::I8: return dt::s8;
        case DType::I32: return dt::s32;
        default: throw std::runtime_error("element type " + std::string(dtypeName(t)) + " not supported at a segment boundary");
    }
}

dnnl::memory::desc withType(const dnnl::memory::desc& d, dnnl::memory::data_type t) {
    dnnl::memory::desc r = d;
    r.data.data_type = static_cast<dnnl_data_type_t>(t);
    r.data.extra = dnnl_memory_extra_desc_t{};  // compensation flags belong to packed weights only
    return r;
}

// The loops: one function per element-type combination, cloned for AVX-512 / AVX2 / baseline and picked at load
// time (the plugin runs on any x86-64). -ffp-contract=off for this file keeps every clone's rounding the reference's.
#define NPUWB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

template <class Q>
NPUWB_VECTOR_CLONES void quantizeRange(const float* __restrict in, Q* __restrict o, size_t begin, size_t end, float scale,
                                       float zero) {
    for (size_t i = begin; i < end; ++i) o[i] = saturate<Q>(roundEven(in[i] / scale) + zero);
}

template <class Q>
NPUWB_VECTOR_CLONES void dequantizeRange(const Q* __restrict in, float* __restrict o, size_t begin, size_t end,
                                         int32_t zero, float scale) {
    for (size_t i = begin; i < end; ++i) o[i] = static_cast<float>(static_cast<int32_t>(in[i]) - zero) * scale;
}

template <class I, class O>
NPUWB_VECTOR_CLONES void requantizeRange(const I* __restrict in, O* __restrict o, size_t begin, size_t end,
                                         int32_t inZero, float inScale, float outScale, float outZero) {
    for (size_t i = begin; i < end; ++i) {
        float real = static_cast<float>(static_cast<int32_t>(in[i]) - inZero) * inScale;
        o[i] = saturate<O>(roundEven(real / outScale) + outZero);
    }
}

template <bool Multiply, class A, class B, class Y>
NPUWB_VECTOR_CLONES void binaryRange(const A* __restrict a, const B* __restrict b, Y* __restrict o, size_t begin,
                                     size_t end, QuantInfo qa, QuantInfo qb, QuantInfo qy, float lo, float hi) {
    const int32_t za = qa.zero, zb = qb.zero;
    const float sa = qa.scale, sb = qb.scale, sy = qy.scale, zy = static_cast<float>(qy.zero);
    for (size_t i = begin; i < end; ++i) {
        float va = static_cast<float>(static_cast<int32_t>(a[i]) - za) * sa;
        float vb = static_cast<float>(static_cast<int32_t>(b[i]) - zb) * sb;
        float v = std::min(hi, std::max(lo, Multiply ? va * vb : va + vb));
        o[i] = saturate<Y>(roundEven(v / sy) + zy);
    }
}

template <bool Multiply, class A, class B>
NPUWB_VECTOR_CLONES void binaryFloatRange(const A* __restrict a, const B* __restrict b, float* __restrict o,
                                          size_t begin, size_t end, int32_t za, float sa, int32_t zb, float sb) {
    for (size_t i = begin; i < end; ++i) {
        const float va = static_cast<float>(static_cast<int32_t>(a[i]) - za) * sa;
        const float vb = static_cast<float>(static_cast<int32_t>(b[i]) - zb) * sb;
        o[i] = Multiply ? va * vb : va + vb;
    }
}

template <bool Multiply, class A, class B, class Y>
NPUWB_VECTOR_CLONES void binaryFloatQuantizedRange(const A* __restrict a, const B* __restrict b, float* __restrict o,
                                                   Y* __restrict q, size_t begin, size_t end, int32_t za, float sa,
                                                   int32_t zb, float sb, float sy, float zy) {
    for (size_t i = begin; i < end; ++i) {
        const float va = static_cast<float>(static_cast<int32_t>(a[i]) - za) * sa;
        const float vb = static_cast<float>(static_cast<int32_t>(b[i]) - zb) * sb;
        const float v = Multiply ? va * vb : va + vb;
        o[i] = v;
        q[i] = saturate<Y>(roundEven(v / sy) + zy);
    }
}

void quantizeBuffer(const float* src, void* dst, size_t count, const QuantInfo& out) {
    visitQ(out.type, [&]<typename Q>() {
        Q* d = static_cast<Q*>(dst);
        const float scale = out.scale, zero = static_cast<float>(out.zero);
        parallelChunks(count, [=](size_t begin, size_t end) {
            if (avx512::available()) begin = avx512::quantize<Q>(src, d, begin, end, scale, zero);
            quantizeRange<Q>(src, d, begin, end, scale, zero);
        });
    });
}

void dequantizeBuffer(const void* src, float* dst, size_t count, const QuantInfo& in) {
    visitQ(in.type, [&]<typename Q>() {
        const Q* s = static_cast<const Q*>(src);
        const int32_t zero = in.zero;
        const float scale = in.scale;
        parallelChunks(count, [=](size_t begin, size_t end) {
            if (avx512::available()) begin = avx512::dequantize<Q>(s, dst, begin, end, zero, scale);
            dequantizeRange<Q>(s, dst, begin, end, zero, scale);
        });
    });
}

void dequantizeRows(const void* src, int64_t srcStride, float* dst, int64_t rows, int64_t cols, const QuantInfo& in) {
    visitQ(in.type, [&]<typename Q>() {
        const auto length = static_cast<size_t>(cols);
        for (int64_t r = 0; r < rows; ++r) {
            const Q* s = static_cast<const Q*>(src) + r * srcStride;
            float* d = dst + r * cols;
            size_t begin = 0;
            if (avx512::available()) begin = avx512::dequantize<Q>(s, d, begin, length, in.zero, in.scale);
            dequantizeRange<Q>(s, d, begin, length, in.zero, in.scale);
        }
    });
}

void requantizeBuffer(const void* src, void* dst, size_t count, const QuantInfo& in, const QuantInfo& out) {
    visitQ(in.type, [&]<typename I>() {
        visitQ(out.type, [&]<typename O>() {
            const I* s = static_cast<const I*>(src);
            O* d = static_cast<O*>(dst);
            const QuantInfo from = in, to = out;
            parallelChunks(count, [=](size_t begin, size_t end) {
                if (avx512::available())
                    begin = avx512::requantize<I, O>(s, d, begin, end, from.zero, from.scale, to.scale,
                                                     static_cast<float>(to.zero));
                requantizeRange<I, O>(s, d, begin, end, from.zero, from.scale, to.scale, static_cast<float>(to.zero));
            });
        });
    });
}

void averagePoolQuantized(const void* src, void* dst, size_t planes, size_t pixels, const QuantInfo& in,
                          const QuantInfo& out) {
    visitQ(in.type, [&]<typename I>() {
        visitQ(out.type, [&]<typename O>() {
            const I* s = static_cast<const I*>(src);
            O* d = static_cast<O*>(dst);
            const int32_t base = -in.zero * static_cast<int32_t>(pixels);
            const float scale = in.scale / (out.scale * static_cast<float>(pixels)), zero = static_cast<float>(out.zero);
            parallelChunks(planes, [=](size_t begin, size_t end) {
                for (size_t p = begin; p < end; ++p) {
                    int32_t acc = base;
                    for (size_t i = 0; i < pixels; ++i) acc += s[p * pixels + i];
                    d[p] = saturate<O>(roundEven(static_cast<float>(acc) * scale) + zero);
                }
            });
        });
    });
}

/// binaryRange over [begin, end) with the AVX-512 form first where the CPU has it.
template <class A, class B, class Y>
void binaryAnyRange(QuantizedBinary op, const A* a, const B* b, Y* d, size_t begin, size_t end, const QuantInfo& ia,
                    const QuantInfo& ib, const QuantInfo& iy, float lo, float hi) {
    const float zy = static_cast<float>(iy.zero);
    const bool multiply = op == QuantizedBinary::Multiply;
    if (avx512::available())
        begin = multiply ? avx512::binary<true, A, B, Y>(a, b, d, begin, end, ia.zero, ia.scale, ib.zero, ib.scale,
                                                         iy.scale, zy, lo, hi)
                         : avx512::binary<false, A, B, Y>(a, b, d, begin, end, ia.zero, ia.scale, ib.zero, ib.scale,
                                                          iy.scale, zy, lo, hi);
    if (multiply) binaryRange<true, A, B, Y>(a, b, d, begin, end, ia, ib, iy, lo, hi);
    else binaryRange<false, A, B, Y>(a, b, d, begin, end, ia, ib, iy, lo, hi);
}

std::optional<ChannelLayout> channelLayoutOf(const dnnl::memory::desc& d) {
    const dnnl_memory_desc_t& m = d.data;
    const dnnl_blocking_desc_t& blocking = m.format_desc.blocking;
    // Blocked layouts (nChw16c...) are left to a reorder: oneDNN's int8 convolutions write NHWC here.
    if (m.ndims < 2 || m.format_kind != dnnl_blocked || m.offset0 != 0 || blocking.inner_nblks != 0)
        return std::nullopt;
    for (int i = 0; i < m.ndims; ++i)
        if (m.dims[i] != m.padded_dims[i]) return std::nullopt;
    const dnnl_dim_t* dims = m.dims;
    const dnnl_dim_t* strides = blocking.strides;
    dnnl_dim_t pixels = 1;
    for (int i = 2; i < m.ndims; ++i) pixels *= dims[i];
    // Outer strides (in elements) of a layout with channel blocks of `block`; dims of extent 1 may have any stride.
    auto matches = [&](dnnl_dim_t block, dnnl_dim_t channelStride) {
        dnnl_dim_t step = block;
        for (int i = m.ndims - 1; i >= 2; --i) {
            if (dims[i] != 1 && strides[i] != step) return false;
            step *= dims[i];
        }
        if (dims[1] > block && strides[1] != channelStride) return false;
        return dims[0] == 1 || strides[0] == dims[1] * pixels;
    };
    ChannelLayout layout{static_cast<size_t>(dims[0]), static_cast<size_t>(dims[1]), static_cast<size_t>(pixels)};
    if (matches(1, pixels)) return layout;  // NCHW
    layout.block = layout.channels;  // NHWC: one block of every channel
    if (strides[1] == 1 && matches(dims[1], 0)) return layout;
    return std::nullopt;
}

void averagePoolQuantized(const void* src, void* dst, const ChannelLayout& layout, const QuantInfo& in,
                          const QuantInfo& out) {
    const size_t channels = layout.channels, pixels = layout.pixels, block = layout.block;
    if (block == 1) return averagePoolQuantized(src, dst, layout.batches * channels, pixels, in, out);
    constexpr size_t kWidth = 64;  // int32 sums of this many channels fit in registers; pieces to share out
    const size_t segments = layout.batches * (channels / block), piecesPerSegment = (block + kWidth - 1) / kWidth;
    visitQ(in.type, [&]<typename I>() {
        visitQ(out.type, [&]<typename O>() {
            const I* s = static_cast<const I*>(src);
            O* d = static_cast<O*>(dst);
            const int32_t base = -in.zero * static_cast<int32_t>(pixels);
            const float scale = in.scale / (out.scale * static_cast<float>(pixels));
            const float zero = static_cast<float>(out.zero);
            // A piece: up to kWidth channels of one block of one batch; the output of block `seg` starts at
            // seg * block in [N, C] order too.
            parallelChunks(segments * piecesPerSegment, [=](size_t begin, size_t end) {
                for (size_t piece = begin; piece < end; ++piece) {
                    const size_t seg = piece / piecesPerSegment, c0 = (piece % piecesPerSegment) * kWidth;
                    const size_t width = std::min(kWidth, block - c0);
                    const I* rows = s + seg * pixels * block + c0;
                    int32_t acc[kWidth];
                    for (size_t c = 0; c < width; ++c) acc[c] = base;
                    for (size_t p = 0; p < pixels; ++p)
                        for (size_t c = 0; c < width; ++c) acc[c] += rows[p * block + c];
                    for (size_t c = 0; c < width; ++c)
                        d[seg * block + c0 + c] = saturate<O>(roundEven(static_cast<float>(acc[c]) * scale) + zero);
                }
            }, pixels * std::min(kWidth, block));
        });
    });
}

void channelBroadcastQuantized(QuantizedBinary op, const void* x, const void* s, void* dst, const ChannelLayout& layout,
                               bool batchedScale, const QuantInfo& qx, const QuantInfo& qs, const QuantInfo& qy,
                               float lo, float hi) {
    // Each block's scales repeated `repeats` times make a pattern that lines up with a run of x's elements, so one
    // call of the elementwise kernel covers many pixels (a call per pixel cost more than the work for 8 channels).
    constexpr size_t kPattern = 1024;
    const size_t block = layout.block, blocks = layout.channels / block, pixels = layout.pixels;
    const size_t repeats = std::max<size_t>(1, kPattern / block), run = repeats * block;
    const size_t runsPerSegment = (pixels + repeats - 1) / repeats, segmentSize = pixels * block;
    const size_t batchStride = batchedScale ? layout.channels : 0;
    visitQ(qx.type, [&]<typename A>() {
        visitQ(qs.type, [&]<typename B>() {
            visitQ(qy.type, [&]<typename Y>() {
                const A* px = static_cast<const A*>(x);
                const B* ps = static_cast<const B*>(s);
                Y* d = static_cast<Y*>(dst);
                const QuantInfo ia = qx, ib = qs, iy = qy;
                parallelChunks(layout.batches * blocks * runsPerSegment, [=](size_t begin, size_t end) {
                    B pattern[kPattern];
                    size_t patternOf = SIZE_MAX;
                    for (size_t r = begin; r < end; ++r) {
                        const size_t seg = r / runsPerSegment, offset = (r % runsPerSegment) * run;
                        const B* scales = ps + (seg / blocks) * batchStride + (seg % blocks) * block;
                        if (repeats > 1 && patternOf != seg) {
                            for (size_t k = 0; k < repeats; ++k) std::copy(scales, scales + block, pattern + k * block);
                            patternOf = seg;
                        }
                        const size_t at = seg * segmentSize + offset, count = std::min(run, segmentSize - offset);
                        binaryAnyRange<A, B, Y>(op, px + at, repeats > 1 ? pattern : scales, d + at, 0, count, ia, ib,
                                                iy, lo, hi);
                    }
                }, run);
            });
        });
    });
}

void binaryQuantizedBuffers(QuantizedBinary op, const void* a, const void* b, void* dst, size_t count,
                            const QuantInfo& qa, const QuantInfo& qb, const QuantInfo& qy, float lo, float hi) {
    visitQ(qa.type, [&]<typename A>() {
        visitQ(qb.type, [&]<typename B>() {
            visitQ(qy.type, [&]<typename Y>() {
                const A* pa = static_cast<const A*>(a);
                const B* pb = static_cast<const B*>(b);
                Y* d = static_cast<Y*>(dst);
                const QuantInfo ia = qa, ib = qb, iy = qy;
                parallelChunks(count, [=](size_t begin, size_t end) {
                    const float zy = static_cast<float>(iy.zero);
                    if (avx512::available())
                        begin = op == QuantizedBinary::Multiply
                                    ? avx512::binary<true, A, B, Y>(pa, pb, d, begin, end, ia.zero, ia.scale, ib.zero,
                                                                    ib.scale, iy.scale, zy, lo, hi)
                                    : avx512::binary<false, A, B, Y>(pa, pb, d, begin, end, ia.zero, ia.scale, ib.zero,
                                                                     ib.scale, iy.scale, zy, lo, hi);
                    if (op == QuantizedBinary::Multiply) binaryRange<true, A, B, Y>(pa, pb, d, begin, end, ia, ib, iy, lo, hi);
                    else binaryRange<false, A, B, Y>(pa, pb, d, begin, end, ia, ib, iy, lo, hi);
                });
            });
        });
    });
}

void binaryDequantizedBuffers(QuantizedBinary op, const void* a, const void* b, float* dst, size_t count,
                              const QuantInfo& qa, const QuantInfo& qb) {
    visitQ(qa.type, [&]<typename A>() {
        visitQ(qb.type, [&]<typename B>() {
            const A* pa = static_cast<const A*>(a);
            const B* pb = static_cast<const B*>(b);
            const int32_t za = qa.zero, zb = qb.zero;
            const float sa = qa.scale, sb = qb.scale;
            parallelChunks(count, [=](size_t begin, size_t end) {
                if (op == QuantizedBinary::Multiply)
                    binaryFloatRange<true, A, B>(pa, pb, dst, begin, end, za, sa, zb, sb);
                else
                    binaryFloatRange<false, A, B>(pa, pb, dst, begin, end, za, sa, zb, sb);
            });
        });
    });
}

void binaryDequantizedBuffers(QuantizedBinary op, const void* a, const void* b, float* dst, size_t count,
                              const QuantInfo& qa, const QuantInfo& qb, const QuantInfo& qy, void* quantized) {
    visitQ(qa.type, [&]<typename A>() {
        visitQ(qb.type, [&]<typename B>() {
            visitQ(qy.type, [&]<typename Y>() {
                const A* pa = static_cast<const A*>(a);
                const B* pb = static_cast<const B*>(b);
                Y* pq = static_cast<Y*>(quantized);
                const int32_t za = qa.zero, zb = qb.zero;
                const float sa = qa.scale, sb = qb.scale, sy = qy.scale, zy = static_cast<float>(qy.zero);
                parallelChunks(count, [=](size_t begin, size_t end) {
                    if (op == QuantizedBinary::Multiply)
                        binaryFloatQuantizedRange<true, A, B, Y>(pa, pb, dst, pq, begin, end, za, sa, zb, sb, sy, zy);
                    else
                        binaryFloatQuantizedRange<false, A, B, Y>(pa, pb, dst, pq, begin, end, za, sa, zb, sb, sy, zy);
                });
            });
        });
    });
}

void lookUpBuffer(const std::array<uint8_t, 256>& table, const void* src, void* dst, size_t count) {
    const auto* s = static_cast<const uint8_t*>(src);
    auto* d = static_cast<uint8_t*>(dst);
    parallelChunks(count, [=, &table](size_t begin, size_t end) {
        if (avx512::byteLookupAvailable()) begin = avx512::lookUp(table.data(), s, d, begin, end);
        for (size_t i = begin; i < end; ++i) d[i] = table[s[i]];
    });
}

}  // namespace npuwb::onednn
