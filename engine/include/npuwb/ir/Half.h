#pragma once
// IEEE binary16 and bfloat16 storage types. Arithmetic happens in float through the implicit conversions,
// which is what a reference kernel wants.
#include <bit>
#include <cstdint>
#include <cstring>

namespace npuwb {

inline uint16_t floatToHalfBits(float value) {
    uint32_t x = std::bit_cast<uint32_t>(value);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t mantissa = x & 0x007fffffu;
    int32_t exponent = static_cast<int32_t>((x >> 23) & 0xffu);
    if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
    int32_t halfExponent = exponent - 127 + 15;
    if (halfExponent >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
    if (halfExponent <= 0) {
        if (halfExponent < -10) return static_cast<uint16_t>(sign);
        mantissa |= 0x00800000u;
        uint32_t shift = static_cast<uint32_t>(14 - halfExponent);
        uint32_t halfMantissa = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (halfMantissa & 1u))) ++halfMantissa;
        return static_cast<uint16_t>(sign | halfMantissa);
    }
    uint32_t result = sign | (static_cast<uint32_t>(halfExponent) << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;  // round to nearest even; may carry into exponent
    return static_cast<uint16_t>(result);
}

inline float halfBitsToFloat(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {
            exponent = 127 - 15 + 1;
            while (!(mantissa & 0x400u)) { mantissa <<= 1; --exponent; }
            mantissa &= 0x3ffu;
            bits = sign | (exponent << 23) | (mantissa << 13);
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else {
        bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    }
    return std::bit_cast<float>(bits);
}

inline uint16_t floatToBFloat16Bits(float value) {
    uint32_t x = std::bit_cast<uint32_t>(value);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // keep NaN a NaN
    uint32_t roundingBias = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + roundingBias) >> 16);
}

inline float bfloat16BitsToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

struct Float16 {
    uint16_t bits = 0;
    Float16() = default;
    Float16(float v) : bits(floatToHalfBits(v)) {}  // NOLINT(google-explicit-constructor): numeric type
    operator float() const { return halfBitsToFloat(bits); }
    static Float16 fromBits(uint16_t b) { Float16 h; h.bits = b; return h; }
};

struct BFloat16 {
    uint16_t bits = 0;
    BFloat16() = default;
    BFloat16(float v) : bits(floatToBFloat16Bits(v)) {}  // NOLINT(google-explicit-constructor)
    operator float() const { return bfloat16BitsToFloat(bits); }
    static BFloat16 fromBits(uint16_t b) { BFloat16 h; h.bits = b; return h; }
};

}  // namespace npuwb
