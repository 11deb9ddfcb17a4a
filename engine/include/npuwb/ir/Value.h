#pragma once
// A runtime value: what flows along a graph edge. Almost always a tensor; sequence and optional ops need the rest.
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb {

struct Value {
    enum class Kind : uint8_t { Tensor, Sequence, None };  // None: an empty optional
    Kind kind = Kind::Tensor;
    npuwb::Tensor tensor;
    std::vector<npuwb::Tensor> sequence;
    DType noneElementType = DType::Undefined;  // for empty optionals/sequences: the declared element type

    Value() = default;
    Value(npuwb::Tensor t) : tensor(std::move(t)) {}  // NOLINT(google-explicit-constructor)
    static Value makeSequence(std::vector<npuwb::Tensor> items) {
        Value v;
        v.kind = Kind::Sequence;
        v.sequence = std::move(items);
        return v;
    }
    static Value none() {
        Value v;
        v.kind = Kind::None;
        return v;
    }
    bool isTensor() const { return kind == Kind::Tensor; }
    bool isSequence() const { return kind == Kind::Sequence; }
    bool isNone() const { return kind == Kind::None; }
};

}  // namespace npuwb
