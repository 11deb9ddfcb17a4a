#pragma once
// Seeded random matmul operands, shared by the CPU kernel tests (tests/matmul) and the NPU plugin's (tests/rknpu).
#include <cstdint>
#include <random>
#include <vector>

#include "npuwb/Matmul.h"
#include "npuwb/ir/Half.h"

namespace npuwb::matmul_test {

/// `elements` values of `dtype` in its storage form: fp16 from N(0, 1), integer types (int4 packed) as random bytes.
inline std::vector<uint8_t> randomOperand(DType dtype, int64_t elements, std::mt19937& rng) {
    std::vector<uint8_t> data(size_t(matmulStorageBytes(dtype, elements)));
    if (dtype == DType::F16) {
        std::normal_distribution<float> normal(0.0f, 1.0f);
        for (int64_t i = 0; i < elements; ++i)
            reinterpret_cast<uint16_t*>(data.data())[i] = floatToHalfBits(normal(rng));
    } else {
        for (auto& b : data) b = uint8_t(rng());
    }
    return data;
}

}  // namespace npuwb::matmul_test
