// Small models and chip profiles shared by the estimate's unit tests: a 3x3 conv followed by the ops under test,
// and the real chip profiles from resources/chips.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"

#include "../UnitTestSupport.h"

namespace npuwb::unittest {

inline ChipProfile realChip(const std::string& name) {
    const auto chips = std::filesystem::path(NPUWB_SOURCE_DIR) / "resources" / "chips";
    return loadChipProfile((chips / (name + ".json")).string());
}

inline Attribute intsAttribute(std::vector<int64_t> values) {
    Attribute a;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(values);
    return a;
}

/// x[1,16,32,32] -> Conv 3x3 (pads 1) -> c, then `tail`; output `y` of shape `outDims`.
inline Model convThen(std::vector<Node> tail, std::vector<int64_t> outDims = {1, 16, 32, 32}) {
    Model m;
    m.opsetImports[""] = 13;
    m.graph.inputs.push_back(tensorInfo("x", {1, 16, 32, 32}));
    m.graph.initializers["w"] = Tensor(DType::F32, {16, 16, 3, 3});
    Node conv = plainNode("conv", "Conv", {"x", "w"}, {"c"});
    conv.attributes["pads"] = intsAttribute({1, 1, 1, 1});
    m.graph.nodes.push_back(conv);
    for (auto& n : tail) m.graph.nodes.push_back(n);
    m.graph.outputs.push_back(tensorInfo("y", outDims));
    return loadModelFromBytes(serializeModel(m), ".", "conv-then.onnx");
}

}  // namespace npuwb::unittest
