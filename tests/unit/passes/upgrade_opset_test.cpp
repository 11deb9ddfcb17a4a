// upgrade_opset and the opset demand of fuse_layernorm: old exports (opset < 17) get their LayerNorms fused after
// a proven upgrade with ONNX's version converter; converter failures roll back with the op named.
#include "PassTestUtil.h"

using namespace npuwb;
using namespace npuwb::passes;
using namespace npuwb::passes::testing;

namespace {

/// The decomposed LayerNorm over the last axis of x [2,5,8], optionally followed by Softmax(axis=1).
ModelBuilder layerNormBuilder(int64_t opset, bool softmax) {
    ModelBuilder b(opset);
    b.input("x", {2, 5, 8}).output("y").decomposedLayerNorm("x", softmax ? "ln" : "y", 8);
    if (softmax) b.node("Softmax", {"ln"}, {"y"}, "the_softmax").attributes["axis"] = Attribute::ofInt(1);
    return b;
}

/// `model` with x's shape forgotten (as for a dynamic export), and options feeding x as [2,5,8] in the proofs.
Model withUnknownInputShape(Model model) {
    model.graph.inputs[0].type.shape.reset();
    model.graph.valueInfo.clear();
    return loadModelFromBytes(serializeModel(model), ".", "dynamic.onnx");
}

OptimizeResult optimizeDynamic(const Model& m, std::vector<std::string> passes) {
    OptimizerOptions o;
    o.passes = std::move(passes);
    o.proof.randomInputSets = 2;
    o.proof.inputShapes["x"] = {2, 5, 8};
    return optimize(m, o);
}

bool appliedPass(const OptimizeResult& r, const std::string& pass) {
    for (const auto& a : r.applied)
        if (a.pass == pass) return true;
    return false;
}

}  // namespace

TEST(UpgradeOpset, Opset11LayerNormBecomesOneLayerNormalizationAtOpset17) {
    Model m = layerNormBuilder(11, false).build();
    ASSERT_EQ(m.opset(""), 11);
    auto r = runPasses(m, {"fuse_layernorm"});
    expectProven(r, "fuse_layernorm");
    EXPECT_TRUE(appliedPass(r, "upgrade_opset"));
    EXPECT_EQ(r.model.opset(""), 17);
    ASSERT_EQ(r.nodesAfter, 1u);
    EXPECT_EQ(r.model.graph.nodes[0].opType, "LayerNormalization");
    EXPECT_EQ(r.opsBefore.at("ReduceMean"), 2);
    // The model written to disk reloads as opset 17 with the fused node.
    Model back = loadModelFromBytes(serializeModel(r.model), ".", "back.onnx");
    EXPECT_EQ(back.opset(""), 17);
    EXPECT_EQ(opHistogram(back.graph).at("LayerNormalization"), 1);
}

TEST(UpgradeOpset, LastAxisFusesWithoutKnownInputShape) {
    Model m = withUnknownInputShape(layerNormBuilder(11, false).build());
    ASSERT_FALSE(m.graph.inputs[0].type.shape.has_value());
    auto r = optimizeDynamic(m, {"fuse_layernorm"});
    expectProven(r, "fuse_layernorm");
    ASSERT_EQ(r.nodesAfter, 1u);
    const Node& ln = r.model.graph.nodes[0];
    EXPECT_EQ(ln.opType, "LayerNormalization");
    EXPECT_EQ(ln.attrInt("axis", 0), -1);  // the rank is unknown: the axis stays counted from the end
    EXPECT_EQ(r.model.graph.initializers.at(ln.inputs[1]).shape(), Shape{8});  // the size comes from gamma
}

TEST(UpgradeOpset, NotRunWhenNoSelectedPassNeedsIt) {
    auto r = runPasses(layerNormBuilder(11, false).build(), {"fold_batchnorm"});
    EXPECT_FALSE(appliedPass(r, "upgrade_opset"));
    EXPECT_EQ(r.model.opset(""), 11);
}

TEST(UpgradeOpset, ExplicitRunConvertsOldAttributeFormsAndIsProven) {
    ModelBuilder b(9);
    b.input("x", {2, 6}).output("y");
    Node& clip = b.node("Clip", {"x"}, {"c"});
    clip.attributes["min"] = Attribute::ofFloat(0.2f);
    clip.attributes["max"] = Attribute::ofFloat(0.7f);
    Node& slice = b.node("Slice", {"c"}, {"y"});
    slice.attributes["starts"] = Attribute::ofInts({1});
    slice.attributes["ends"] = Attribute::ofInts({5});
    slice.attributes["axes"] = Attribute::ofInts({1});
    auto r = runPasses(b.build(), {"upgrade_opset"});
    expectProven(r, "upgrade_opset");
    EXPECT_EQ(r.model.opset(""), 17);
    for (const auto& n : r.model.graph.nodes) {  // min/max and starts/ends moved from attributes to inputs
        if (n.opType == "Clip") {
            EXPECT_EQ(n.inputs.size(), 3u);
        }
        if (n.opType == "Slice") {
            EXPECT_GE(n.inputs.size(), 3u);
        }
        EXPECT_FALSE(n.hasAttribute("starts") || n.hasAttribute("min")) << n.opType;
    }
}

TEST(UpgradeOpset, ConverterFailureRollsBackNamingTheOp) {
    // Softmax(axis=1) before opset 13 coerces to 2-D; converting it needs the sizes, which are dynamic here.
    Model m = withUnknownInputShape(layerNormBuilder(11, true).build());
    auto r = optimizeDynamic(m, {"fuse_layernorm"});
    ASSERT_EQ(r.rolledBack.size(), 1u);
    EXPECT_EQ(r.rolledBack[0].pass, "upgrade_opset");
    EXPECT_NE(r.rolledBack[0].error.find("Softmax"), std::string::npos) << r.rolledBack[0].error;
    EXPECT_NE(r.rolledBack[0].error.find("the_softmax"), std::string::npos) << r.rolledBack[0].error;
    EXPECT_EQ(r.model.opset(""), 11);
    expectNearMiss(r, "fuse_layernorm", "opset 17");
    EXPECT_TRUE(r.endToEnd.passed);
}
