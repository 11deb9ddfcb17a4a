#pragma once
// Distance between the engine's output and the oracle's: max |a-b| and ||a-b||_2 / ||b||_2, in double.
#include <algorithm>
#include <cmath>
#include <string>

#include "npuwb/ir/Tensor.h"

namespace npuwb::realmodels {

struct Diff {
    double maxAbs = 0.0;
    double relL2 = 0.0;
    std::string problem;  // non-empty when the tensors cannot be compared (dtype/shape) or hold NaN
};

inline Diff compareTensors(const Tensor& actual, const Tensor& expected) {
    Diff d;
    if (actual.dtype() != expected.dtype())
        d.problem = "dtype " + std::string(dtypeName(actual.dtype())) + " vs " + std::string(dtypeName(expected.dtype()));
    else if (actual.shape() != expected.shape())
        d.problem = "shape " + shapeToString(actual.shape()) + " vs " + shapeToString(expected.shape());
    if (!d.problem.empty()) return d;
    double diff2 = 0.0, ref2 = 0.0;
    for (int64_t i = 0; i < actual.numel(); ++i) {
        double a = actual.elementAsDouble(i), b = expected.elementAsDouble(i);
        if (std::isnan(a) != std::isnan(b)) d.problem = "NaN at element " + std::to_string(i);
        if (std::isnan(a) || std::isnan(b)) continue;
        double e = std::abs(a - b);
        d.maxAbs = std::max(d.maxAbs, e);
        diff2 += e * e;
        ref2 += b * b;
    }
    // An all-zero reference: fall back to the absolute norm so identical zeros give 0, not NaN.
    d.relL2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    return d;
}

}  // namespace npuwb::realmodels
