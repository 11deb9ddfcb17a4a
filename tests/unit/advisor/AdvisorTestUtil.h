#pragma once
// Tiny models for the advisor rule tests, built through the IR and a real ONNX round trip (shape inference).
#include <gtest/gtest.h>

#include <filesystem>

#include "../passes/PassTestUtil.h"
#include "advisor/Rule.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"

namespace npuwb::advisor::testing {

using passes::testing::ModelBuilder;

inline ChipProfile chip(const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path root(NPUWB_SOURCE_DIR);
    return loadChipProfile((root / "resources" / "chips" / (name + ".json")).string());
}

/// Adds Conv `name`: in -> out with random weights [cout, cin/group, k, k] and "same"-style padding.
inline Node& conv(ModelBuilder& b, const std::string& in, const std::string& out, int64_t cin, int64_t cout, int64_t k,
                  int64_t stride = 1, int64_t group = 1, int64_t pad = -1) {
    b.random(out + "_w", {cout, cin / group, k, k});
    Node& n = b.node("Conv", {in, out + "_w"}, {out}, out);
    int64_t p = pad >= 0 ? pad : k / 2;
    n.attributes["pads"] = Attribute::ofInts({p, p, p, p});
    n.attributes["strides"] = Attribute::ofInts({stride, stride});
    n.attributes["group"] = Attribute::ofInt(group);
    return n;
}

/// x[1,cin,h,w] -> Conv(k, stride) -> y
inline Model singleConv(int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k = 3, int64_t stride = 1) {
    ModelBuilder b;
    b.input("x", {1, cin, h, w}).output("y");
    conv(b, "x", "y", cin, cout, k, stride);
    return b.build();
}

inline std::vector<Finding> findings(const std::string& rule, const Model& m, const std::string& chipName = "rk3588",
                                     const std::string& dtype = "int8") {
    AdviseOptions o;
    o.dtype = dtype;
    return runRule(rule, m, chip(chipName), o);
}

inline const Evidence* evidenceOf(const Finding& f, const std::string& label) {
    for (const auto& e : f.evidence)
        if (e.label == label) return &e;
    return nullptr;
}

inline Report estimateOf(const Model& m, const std::string& chipName = "rk3588", const std::string& dtype = "int8") {
    EstimateOptions o;
    o.dtype = dtype;
    return estimateModel(m, chip(chipName), o);
}

/// The cost model's total-cycle formula with the compute cycles scaled: what a rule's gain must equal.
inline double scaledGainUs(const LayerRow& row, double clockMHz, double keep) {
    double npu = double(*row.cyclesNpu), ddr = double(*row.cyclesDdr), total = double(*row.cyclesTotal);
    double overhead = total - std::max(npu, ddr);
    return (total - (std::max(npu * keep, ddr) + overhead)) / clockMHz;
}

}  // namespace npuwb::advisor::testing
