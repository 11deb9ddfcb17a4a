// Small helpers the engine's unit tests share: building graph pieces by hand and capturing an expected error.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "npuwb/Error.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::unittest {

/// The message of the npuwb::Error `f` throws ("no error" when it throws none); its kind into `kind` when given.
inline std::string errorOf(const std::function<void()>& f, ErrorKind* kind = nullptr) {
    try {
        f();
    } catch (const Error& e) {
        if (kind) *kind = e.kind();
        return e.what();
    }
    return "no error";
}

/// A graph input or output of fixed shape.
inline ValueInfo tensorInfo(const std::string& name, const std::vector<int64_t>& dims, DType dtype = DType::F32) {
    ValueInfo vi{name, {}};
    vi.type.dtype = dtype;
    SymShape s;
    for (int64_t d : dims) s.push_back(Dim::of(d));
    vi.type.shape = s;
    return vi;
}

/// A node without attributes.
inline Node plainNode(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                      std::vector<std::string> outputs) {
    Node n;
    n.name = name;
    n.opType = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    return n;
}

}  // namespace npuwb::unittest
