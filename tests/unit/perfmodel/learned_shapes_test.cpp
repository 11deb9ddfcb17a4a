// Models whose shapes need a run: ONNX's inference stops at a Resize whose sizes are computed in the graph, so the
// shapes after it are learned by one reference run. Every analysis must count the layers after it and keep no
// pointer into the Session that ran (it is gone when the rows are read; ASan sees a use after free if they do).
#include <gtest/gtest.h>

#include <filesystem>

#include "npuwb/Advisor.h"
#include "npuwb/CostModel.h"
#include "npuwb/DeviceProfile.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/Partition.h"
#include "npuwb/ShapeLearning.h"
#include "PerfmodelTestModels.h"

namespace npuwb::unittest {
namespace {

constexpr int64_t kConv1Macs = 1 * 8 * 16 * 16 * (8 * 3 * 3);   // [1,8,16,16] from 8 channels, 3x3
constexpr int64_t kConv2Macs = 1 * 4 * 32 * 32 * (8 * 3 * 3);   // [1,4,32,32] after the 2x Resize

/// x[1,8,16,16] -> Conv -> c; sizes = Cast(Cast(Shape(c), float) * [1,1,2,2], int64); Resize(c, sizes) -> Conv -> y.
/// The float round trip hides the sizes from ONNX's data propagation.
std::shared_ptr<const Model> resizeBySizesFromShape(const std::string& symbolicBatch = "") {
    Model m;
    m.opsetImports[""] = 13;
    ValueInfo x = tensorInfo("x", {1, 8, 16, 16});
    if (!symbolicBatch.empty()) (*x.type.shape)[0] = Dim::named(symbolicBatch);
    m.graph.inputs.push_back(x);
    m.graph.initializers["w"] = Tensor(DType::F32, {8, 8, 3, 3});
    m.graph.initializers["w2"] = Tensor(DType::F32, {4, 8, 3, 3});
    Tensor scale(DType::F32, {4});
    float* s = scale.data<float>();
    s[0] = s[1] = 1.0f;
    s[2] = s[3] = 2.0f;
    m.graph.initializers["scale"] = scale;
    Node conv1 = plainNode("conv1", "Conv", {"x", "w"}, {"c"});
    conv1.attributes["pads"] = Attribute::ofInts({1, 1, 1, 1});
    Node toFloat = plainNode("to_float", "Cast", {"s"}, {"sf"});
    toFloat.attributes["to"] = Attribute::ofInt(1);  // FLOAT
    Node toInt = plainNode("to_int", "Cast", {"sf2"}, {"sizes"});
    toInt.attributes["to"] = Attribute::ofInt(7);  // INT64
    Node resize = plainNode("resize", "Resize", {"c", "", "", "sizes"}, {"r"});
    resize.attributes["mode"] = Attribute::ofString("nearest");
    Node conv2 = plainNode("conv2", "Conv", {"r", "w2"}, {"y"});
    conv2.attributes["pads"] = Attribute::ofInts({1, 1, 1, 1});
    m.graph.nodes = {conv1, plainNode("shape", "Shape", {"c"}, {"s"}), toFloat,
                     plainNode("scale_sizes", "Mul", {"sf", "scale"}, {"sf2"}), toInt, resize, conv2};
    ValueInfo y{"y", {}};
    y.type.dtype = DType::F32;
    m.graph.outputs.push_back(y);
    return std::make_shared<const Model>(loadModelFromBytes(serializeModel(m), ".", "resize-by-shape.onnx"));
}

TEST(LearnedShapes, ResizeSizesFromShapeNeedOneReferenceRun) {
    auto model = resizeBySizesFromShape();
    LearnedShapes learned = learnShapes(*model);
    EXPECT_EQ(learned.source, "reference run");
    EXPECT_TRUE(learned.unresolved.empty());
    ASSERT_NE(learned.find("r"), nullptr);
    EXPECT_EQ(*learned.find("r"), (Shape{1, 8, 32, 32}));
    ASSERT_NE(learned.find("y"), nullptr);
    EXPECT_EQ(*learned.find("y"), (Shape{1, 4, 32, 32}));

    LearnedShapes inferredOnly = learnShapes(*model, ShapeLearningOptions{.allowReferenceRun = false});
    EXPECT_EQ(inferredOnly.source, "inference");
    EXPECT_FALSE(inferredOnly.unresolved.empty());
}

TEST(LearnedShapes, SummaryCountsTheLayersAfterTheComputedSizesOrNamesThem) {
    auto model = resizeBySizesFromShape();
    ModelSummary recorded = summarizeModel(*model);
    EXPECT_EQ(recorded.macs, kConv1Macs);
    ASSERT_EQ(recorded.uncountedNodes.size(), 1u);
    EXPECT_EQ(recorded.uncountedNodes.front(), "conv2");

    ModelSummary learned = summarizeModel(*model, learnShapes(*model));
    EXPECT_EQ(learned.macs, kConv1Macs + kConv2Macs);
    EXPECT_TRUE(learned.uncountedNodes.empty());
    EXPECT_EQ(learned.shapesSource, "reference run");
}

TEST(LearnedShapes, SymbolicBatchTakesTheChosenValue) {
    auto model = resizeBySizesFromShape("batch");
    LearnedShapes learned = learnShapes(*model, ShapeLearningOptions{.inputShapes = {{"x", {3, 8, 16, 16}}}});
    ASSERT_NE(learned.find("y"), nullptr);
    EXPECT_EQ(*learned.find("y"), (Shape{3, 4, 32, 32}));
    EXPECT_EQ(summarizeModel(*model, learned).macs, 3 * (kConv1Macs + kConv2Macs));
}

TEST(LearnedShapes, EstimateAdvisePartitionRunOnShapesThatNeedARun) {
    auto model = resizeBySizesFromShape();
    ChipProfile chip = realChip("rk3588");
    Report estimate = estimateModel(*model, chip);
    ASSERT_GE(estimate.layers.size(), 2u);
    int64_t layerMacs = 0;
    for (const LayerRow& row : estimate.layers) layerMacs += row.macs;
    EXPECT_EQ(layerMacs, kConv1Macs + kConv2Macs);
    EXPECT_EQ(estimate.model.macs, kConv1Macs + kConv2Macs);
    bool sawConv2 = false;
    for (const LayerRow& row : estimate.layers)
        if (row.fullName == "conv2") {
            sawConv2 = true;
            EXPECT_EQ(row.outputShapes.front(), (Shape{1, 4, 32, 32}));
        }
    EXPECT_TRUE(sawConv2);

    advisor::Advice advice = advisor::adviseWithEstimate(*model, chip);
    EXPECT_EQ(advice.estimate.model.macs, kConv1Macs + kConv2Macs);

    const auto devices = std::filesystem::path(NPUWB_SOURCE_DIR) / "resources" / "devices";
    DeviceProfile device = loadDeviceProfile((devices / "rk3588.json").string());
    Report partition = partitionModel(model, device);
    EXPECT_EQ(partition.model.macs, kConv1Macs + kConv2Macs);
    EXPECT_FALSE(partition.layers.empty());
}

}  // namespace
}  // namespace npuwb::unittest
