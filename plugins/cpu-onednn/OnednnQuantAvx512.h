#pragma once
// AVX-512 forms of OnednnQuant.cpp's loops, with the same arithmetic in the same order (so the same bits): sixteen
// elements a step, saturated straight to bytes. GCC's clones of the portable loops packed 32-bit lanes to bytes
// through pack/permute/blend sequences with spills: PP-OCRv4 det's int8 run spent a third of its time quantizing.
// Each function handles the whole 16-element steps of [begin, end) and returns where it stopped; the portable loop
// does the rest. Call only when avx512Available().
#include <cstddef>
#include <cstdint>

namespace npuwb::onednn::avx512 {

bool available();

template <class Q> size_t quantize(const float* in, Q* out, size_t begin, size_t end, float scale, float zero);
template <class Q> size_t dequantize(const Q* in, float* out, size_t begin, size_t end, int32_t zero, float scale);
template <class I, class O>
size_t requantize(const I* in, O* out, size_t begin, size_t end, int32_t inZero, float inScale, float outScale,
                  float outZero);
/// Add (Multiply false) or multiply two dequantized byte streams, clamp to [lo, hi], quantize.
template <bool Multiply, class A, class B, class Y>
size_t binary(const A* a, const B* b, Y* out, size_t begin, size_t end, int32_t za, float sa, int32_t zb, float sb,
              float sy, float zy, float lo, float hi);

/// Whether the CPU has AVX-512 VBMI and BW (byte permutes): lookUp needs them.
bool byteLookupAvailable();
/// out[i] = table[in[i]], 64 bytes a step (two 128-entry byte permutes, picked by the top bit).
size_t lookUp(const uint8_t* table, const uint8_t* in, uint8_t* out, size_t begin, size_t end);

}  // namespace npuwb::onednn::avx512
