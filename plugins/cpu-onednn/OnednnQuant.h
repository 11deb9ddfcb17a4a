#pragma once
// int8 support of the oneDNN backend: biases in accumulator units, QLinearConv/QLinearMatMul parameters, oneDNN
// element types, and the exact elementwise quantize/dequantize/requantize kernels. The QDQ parameters themselves
// (Q/DQ scales and zero points, the int8 weights behind a folded DequantizeLinear) are read by backend/QdqParams.h.
//
// Rounding rule. QuantizeLinear, DequantizeLinear and requantization between two scales run here with the
// reference's arithmetic (divide in float, round half to even, saturate), so they match bit for bit. An int8
// convolution / matmul accumulates exactly in int32 and then requantizes as ONNX Runtime's QLinearConv does:
// float(acc + bias) * (x_scale * w_scale / y_scale), relu/clip, round half to even, + y_zero_point, saturate (the
// zero point after the rounding: oneDNN alone adds it first, and 74.5 + 129 rounds up where rint(74.5) + 129 does
// not); a GlobalAveragePool between DQ and Q sums int8 values exactly (averagePoolQuantized). The reference computes
// the same graph in float (dequantized values, float sums, divide by y_scale), so an element whose exact value lies
// within float rounding of a .5 boundary may land one step away: results agree within 1 LSB, and the tests report
// how many elements differ.
#include <array>
#include <optional>

#include <oneapi/dnnl/dnnl.hpp>

#include "npuwb/sdk/QdqParams.h"

namespace npuwb::onednn {

/// Per-tensor quantization of a value (the engine's parsing of QDQ parameters, backend/QdqParams.h).
using QuantInfo = QuantParams;

/// An int32 bias in accumulator units (DequantizeLinear(int32, scale = x_scale * w_scale)) for `channels` outputs:
/// the int32 values when the bias is such a folded DequantizeLinear with the expected scales, else the float bias
/// divided by x_scale * w_scale (float bias or other scales).
std::vector<float> accumulatorBias(const GraphQuery& q, const std::string& biasValue, float xScale,
                                   const std::vector<float>& wScales);

/// The parameters of a QLinearConv / QLinearMatMul with constant per-tensor x/y parameters, constant s8 weights
/// (zero point 0, scales per output channel or per tensor) and a constant int32 bias (QLinearConv).
struct QLinearParams {
    QuantInfo x, y;
    Int8Weights w;
    std::vector<float> bias;  // accumulator units, one per output channel
};
std::optional<QLinearParams> qlinearParams(const GraphQuery& q, const Node& node, std::string& why);
bool isQLinearOp(const std::string& opType);
Capability supportsQLinearNode(const NodeQuery& q);

/// Whether values of `t` are 8-bit integers (u8 or s8), the types the int8 kernels read and write.
inline bool isByte(DType t) { return t == DType::U8 || t == DType::I8; }
dnnl::memory::data_type dnnlType(DType t);
/// `d` with its layout kept and its element type replaced.
dnnl::memory::desc withType(const dnnl::memory::desc& d, dnnl::memory::data_type t);

/// Elementwise kernels over `count` elements in any layout (the caller passes buffers of the same layout).
void quantizeBuffer(const float* src, void* dst, size_t count, const QuantInfo& out);
void dequantizeBuffer(const void* src, float* dst, size_t count, const QuantInfo& in);
/// `rows` rows of `cols` 8-bit values `srcStride` elements apart to dense float rows, on the calling thread (a kernel's
/// task: the attention core's operands of float GEMMs).
void dequantizeRows(const void* src, int64_t srcStride, float* dst, int64_t rows, int64_t cols, const QuantInfo& in);
/// q_out = Q(DQ(q_in)) with two parameter sets, as the reference computes it.
void requantizeBuffer(const void* src, void* dst, size_t count, const QuantInfo& in, const QuantInfo& out);
/// The average of each of `planes` runs of `pixels` int8 values, requantized as ONNX Runtime's
/// QLinearGlobalAveragePool does: an exact int32 sum less pixels * zero_in, times x_scale / (y_scale * pixels),
/// round half to even, + zero_out, saturate (plain layout: plane p holds elements [p * pixels, (p + 1) * pixels)).
void averagePoolQuantized(const void* src, void* dst, size_t planes, size_t pixels, const QuantInfo& in,
                          const QuantInfo& out);

/// Where an [N, C, spatial...] tensor's elements lie in a dense buffer whose channels come in blocks of `block`:
/// element (n, c, p) at n * C * pixels + (c / block) * pixels * block + p * block + c % block. block 1 is NCHW,
/// block C is NHWC (blocks of 8 or 16 would be oneDNN's nChw8c / nChw16c: the kernels take any block).
struct ChannelLayout {
    size_t batches = 0, channels = 0, pixels = 0, block = 1;
};
/// The layout of `d` when it is NCHW or NHWC (any rank >= 2), else nothing.
std::optional<ChannelLayout> channelLayoutOf(const dnnl::memory::desc& d);
/// averagePoolQuantized over such a layout (`dst`: [N, C] plain): a row of a block's channels summed a step.
void averagePoolQuantized(const void* src, void* dst, const ChannelLayout& layout, const QuantInfo& in,
                          const QuantInfo& out);

enum class QuantizedBinary { Add, Multiply };
/// DQ(x) op DQ(s) -> [Relu|Clip] -> Q where s holds one value per (batch, channel) ([N, C, 1, 1] plain; N or 1
/// batches), broadcast over x's pixels (x and dst in `layout`): squeeze-excitation's channel scaling. The same
/// per-element arithmetic as binaryQuantizedBuffers (Add and Multiply commute exactly in float, so the operands' order
/// does not matter).
void channelBroadcastQuantized(QuantizedBinary op, const void* x, const void* s, void* dst, const ChannelLayout& layout,
                               bool batchedScale, const QuantInfo& qx, const QuantInfo& qs, const QuantInfo& qy,
                               float lo, float hi);

/// q_y = Q(clamp(DQ(a) + DQ(b), lo, hi)) (or the product) per element, as the reference computes
/// DQ -> Add|Mul -> [Relu|Clip] -> Q.
void binaryQuantizedBuffers(QuantizedBinary op, const void* a, const void* b, void* dst, size_t count,
                            const QuantInfo& qa, const QuantInfo& qb, const QuantInfo& qy, float lo, float hi);
/// dst = DQ(a) + DQ(b) (or the product) per element in float, as the reference computes DQ -> Add|Mul without a Q
/// after it (a transformer's residual sum before its LayerNorm).
void binaryDequantizedBuffers(QuantizedBinary op, const void* a, const void* b, float* dst, size_t count,
                              const QuantInfo& qa, const QuantInfo& qb);
/// The same, and the result quantized with `qy` into `quantized` in the same pass (the sum is also read by a
/// QuantizeLinear: the next residual's input).
void binaryDequantizedBuffers(QuantizedBinary op, const void* a, const void* b, float* dst, size_t count,
                              const QuantInfo& qa, const QuantInfo& qb, const QuantInfo& qy, void* quantized);
/// dst[i] = table[src[i]] over 8-bit values (an int8 or uint8 value's bytes index the table the same way).
void lookUpBuffer(const std::array<uint8_t, 256>& table, const void* src, void* dst, size_t count);

}  // namespace npuwb::onednn
