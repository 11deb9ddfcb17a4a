#pragma once
// The shared int8 differential case set: seeded random QDQ graphs (QuantizeLinear/DequantizeLinear around Conv, Gemm,
// MatMul, Add, Mul, MaxPool, Concat, elementwise tables and SiLU; per-channel and per-tensor s8 weights, u8 and s8
// activations with zero points, int32 bias, float islands, channel shuffles, residual blocks, QLinearConv/QLinearMatMul), and the runner that compares a
// backend with the reference executor by the 1-LSB rule and checks which int8 patterns ran as one kernel. Used by
// int8_differential_test.cpp (every backend's int8 test) so all backends are held to the same cases.
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "DifferentialHarness.h"

namespace npuwb::int8test {

/// A QDQ case: the model, plus the (anchor, last) node pairs a backend must run as one int8 kernel.
struct Int8Case {
    difftest::Case c;
    std::vector<std::pair<std::string, std::string>> fused;
    std::map<std::string, float> outputScale;  // float outputs (after a final DequantizeLinear): their step
    /// Nodes (by output) whose work a kernel before them does, so none runs them (a QuantizeLinear after data
    /// movement that the producing kernel already wrote).
    std::vector<std::string> elided{};
};

std::vector<Int8Case> int8Cases(uint32_t seed);
/// Squeeze-excitation pieces with seeded random shapes: GlobalAveragePool of an int8 value (a Conv's output or a
/// plain input), and Add/Mul of a full value with a per-channel one ([N|1, C, 1, 1] or [C, 1, 1]), optional Relu.
std::vector<Int8Case> squeezeExcitationCases(uint32_t seed);

struct Int8Outcome {
    bool passed = true, claimed = false, fused = true;
    int64_t elements = 0, offByOne = 0;
    std::string message;
};

/// Runs `k` on the reference executor and on `backend` (2 threads, kernel profiling on to see the fused kernels).
Int8Outcome runInt8Case(const Int8Case& k, const std::string& backend);

/// The family a case label belongs to: "QDQ Conv", "QLinearConv", ...
std::string familyOf(const std::string& label);

/// Counts over a run of cases, printed per family.
struct Int8Tally {
    int cases = 0, passed = 0, claimed = 0, fused = 0;
    int64_t elements = 0, offByOne = 0;
    std::map<std::string, std::array<int64_t, 3>> families;  // "QDQ Conv" -> cases, elements, off by one
    void add(const Int8Case& k, const Int8Outcome& o);
    void print(const std::string& backend) const;
};

}  // namespace npuwb::int8test
