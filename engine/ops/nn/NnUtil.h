#pragma once
// Small helpers for the nn kernels: accumulator types, typed views of inputs in the accumulator type, and the
// saturating round-half-to-even conversion every quantized op uses.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb::nn {

/// Floats accumulate in float (double stays double): float16/bfloat16 sums would lose too much precision.
template <class T> using FloatAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// The elements of a tensor in type Acc, without a copy when the tensor already has that type.
template <class Acc> class AccBuffer {
public:
    explicit AccBuffer(const Tensor& t) {
        if (t.dtype() == dtypeOf<Acc>) {
            ptr_ = t.data<Acc>();
            return;
        }
        owned_.resize(static_cast<size_t>(t.numel()));
        visitNumeric(t.dtype(), [&]<typename S>() {
            const S* src = t.data<S>();
            for (size_t i = 0; i < owned_.size(); ++i) owned_[i] = static_cast<Acc>(src[i]);
        });
        ptr_ = owned_.data();
    }
    const Acc* data() const { return ptr_; }

private:
    const Acc* ptr_ = nullptr;
    std::vector<Acc> owned_;
};

/// Copies accumulated values into a new tensor of type T.
template <class T, class Acc> Tensor tensorFromAcc(DType dtype, Shape shape, const std::vector<Acc>& acc) {
    Tensor out(dtype, std::move(shape));
    T* dst = out.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) dst[i] = static_cast<T>(acc[i]);
    return out;
}

/// Rounds half to even (the default FP rounding mode) and clamps into Q's range: the quantizers' saturate step.
template <class Q> Q saturateRound(double v) {
    double r = std::nearbyint(v);
    constexpr double lo = static_cast<double>(std::numeric_limits<Q>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<Q>::max());
    if (!(r >= lo)) return std::numeric_limits<Q>::lowest();  // also maps NaN to the lowest value
    if (r > hi) return std::numeric_limits<Q>::max();
    return static_cast<Q>(r);
}

/// Visits the 8-bit quantized types (uint8, int8).
template <class F> decltype(auto) visitQuantized(DType dtype, F&& f, std::string_view what) {
    switch (dtype) {
        case DType::U8: return f.template operator()<uint8_t>();
        case DType::I8: return f.template operator()<int8_t>();
        default: failUnsupported(std::string(what) + ": quantized type must be uint8 or int8, got " +
                                 std::string(dtypeName(dtype)));
    }
}

}  // namespace npuwb::nn
