// estimateModel on tiny models: fusion into one layer, CPU fallback past an NPU limit, report fields.
#include <gtest/gtest.h>

#include <filesystem>

#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"
#include "npuwb/CostModel.h"

#include "../UnitTestSupport.h"

using namespace npuwb;
using namespace npuwb::unittest;
namespace fs = std::filesystem;

namespace {

const fs::path kChipsDir = fs::path(NPUWB_SOURCE_DIR) / "resources" / "chips";

/// x[1,C,16,16] -> Conv(kernel k, group g) -> Relu -> y; loaded back through ONNX so shape inference runs.
Model convRelu(int64_t channels, int64_t kernel, int64_t group) {
    Model m;
    m.opsetImports[""] = 13;
    int64_t pad = kernel / 2;
    m.graph.inputs.push_back(tensorInfo("x", {1, channels, 16, 16}));
    m.graph.initializers["w"] = Tensor(DType::F32, {channels, channels / group, kernel, kernel});
    Node conv;
    conv.name = "conv";
    conv.opType = "Conv";
    conv.inputs = {"x", "w"};
    conv.outputs = {"c"};
    Attribute pads;
    pads.kind = Attribute::Kind::Ints;
    pads.ints = {pad, pad, pad, pad};
    conv.attributes["pads"] = pads;
    Attribute g;
    g.kind = Attribute::Kind::Int;
    g.i = group;
    conv.attributes["group"] = g;
    Node relu;
    relu.name = "relu";
    relu.opType = "Relu";
    relu.inputs = {"c"};
    relu.outputs = {"y"};
    m.graph.nodes = {conv, relu};
    m.graph.outputs.push_back(tensorInfo("y", {1, channels, 16, 16}));
    return loadModelFromBytes(serializeModel(m), ".", "convrelu.onnx");
}

}  // namespace

TEST(EstimatePlacement, ConvReluFusesIntoOneNpuLayer) {
    ChipProfile chip = loadChipProfile((kChipsDir / "rk3588.json").string());
    Report r = estimateModel(convRelu(32, 3, 1), chip);
    ASSERT_EQ(r.layers.size(), 1u);
    const LayerRow& l = r.layers[0];
    EXPECT_EQ(l.opType, "ConvolutionRelu");
    EXPECT_EQ(l.target, "NPU");
    EXPECT_EQ(l.fullName, "conv");
    EXPECT_EQ(l.macs, 32LL * 32 * 9 * 256);
    ASSERT_TRUE(l.cyclesTotal && l.cyclesNpu && l.cyclesDdr);
    EXPECT_GE(*l.cyclesTotal, std::max(*l.cyclesNpu, *l.cyclesDdr));
    EXPECT_EQ(r.kind, "estimate");
    EXPECT_EQ(r.environment.device, "RK3588");
    EXPECT_EQ(r.environment.backend, "cost-model");
    EXPECT_NEAR(r.run.medianUs, l.timeUs, 1e-9);
}

TEST(EstimatePlacement, KernelPastTheLimitFallsBackToCpu) {
    ChipProfile chip = loadChipProfile((kChipsDir / "rk3588.json").string());
    Report r = estimateModel(convRelu(8, 33, 1), chip);  // conv kernel limit is 1..31
    ASSERT_GE(r.layers.size(), 2u);
    EXPECT_EQ(r.layers[0].target, "CPU");
    EXPECT_FALSE(r.layers[0].cyclesTotal.has_value());
    EXPECT_GT(r.layers[0].timeUs, chip.cpu.opOverheadUs);
    EXPECT_EQ(r.layers[1].opType, "Relu");  // the CPU conv cannot fuse; its Relu runs on the NPU
    EXPECT_EQ(r.layers[1].target, "NPU");
}

TEST(EstimatePlacement, DepthwiseKernelPastEightFallsBackToCpu) {
    ChipProfile chip = loadChipProfile((kChipsDir / "rk3588.json").string());
    Report ok = estimateModel(convRelu(16, 7, 16), chip);
    EXPECT_EQ(ok.layers[0].target, "NPU");
    EXPECT_EQ(ok.layers[0].opType, "ConvolutionRelu");
    Report cpu = estimateModel(convRelu(16, 9, 16), chip);
    EXPECT_EQ(cpu.layers[0].target, "CPU");
}

TEST(EstimatePlacement, Fp16IsSlowerThanInt8AndRejectedWhereMissing) {
    ChipProfile chip = loadChipProfile((kChipsDir / "rk3566.json").string());
    Model m = convRelu(256, 3, 1);
    EstimateOptions fp16;
    fp16.dtype = "fp16";
    EXPECT_GT(estimateModel(m, chip, fp16).run.medianUs, estimateModel(m, chip).run.medianUs);
    ChipProfile rv = loadChipProfile((kChipsDir / "rv1106.json").string());
    EXPECT_THROW(estimateModel(m, rv, fp16), Error);
    EstimateOptions tooMany;
    tooMany.cores = 2;
    EXPECT_THROW(estimateModel(m, chip, tooMany), Error);
}

// y = Mul(scale, x) with the constant first: the row's InputShape (its first input shape) is the feature map, as
// RKNN's eval_perf shows it, not the scalar; the scalar follows. The row's ID is the node's in the model.
TEST(EstimatePlacement, InputShapeIsTheFeatureMapNotAConstantOperand) {
    Model m;
    m.opsetImports[""] = 13;
    m.graph.inputs.push_back(tensorInfo("x", {1, 8, 16, 16}));
    m.graph.initializers["scale"] = Tensor(DType::F32, {1});
    Node mul;
    mul.name = "scale_mul";
    mul.opType = "Mul";
    mul.inputs = {"scale", "x"};
    mul.outputs = {"y"};
    m.graph.nodes = {mul};
    m.graph.outputs.push_back(tensorInfo("y", {1, 8, 16, 16}));
    Report r = estimateModel(loadModelFromBytes(serializeModel(m), ".", "scalemul.onnx"),
                             loadChipProfile((kChipsDir / "rk3588.json").string()));
    ASSERT_EQ(r.layers.size(), 1u);
    const LayerRow& l = r.layers[0];
    ASSERT_EQ(l.inputShapes.size(), 2u);
    EXPECT_EQ(l.inputShapes[0], (std::vector<int64_t>{1, 8, 16, 16}));
    EXPECT_EQ(l.inputShapes[1], (std::vector<int64_t>{1}));
    EXPECT_EQ(l.id, 0);
}
