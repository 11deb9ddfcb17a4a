// The RKNN-Toolkit2 hand-off (npuwb/RknnConversion.h): chip names, scheme/observer mapping, mean/std from the
// preprocessing, fixed input sizes, data set lines, hybrid layers from both report kinds, and the rendered script.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "../UnitTestSupport.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/RknnConversion.h"

namespace npuwb {
namespace {

namespace fs = std::filesystem;
using unittest::errorOf;

// x [N,3,H,W] -> conv1 (Relu) -> y -> head (Sigmoid) -> z
Model tinyModel() {
    Model m;
    ValueInfo x{"x", {}};
    x.type.dtype = DType::F32;
    x.type.shape = SymShape{Dim::named("N"), Dim::of(3), Dim::named("H"), Dim::named("W")};
    m.graph.inputs = {x};
    m.graph.nodes = {unittest::plainNode("conv1", "Relu", {"x"}, {"y"}),
                     unittest::plainNode("head", "Sigmoid", {"y"}, {"z"})};
    m.graph.outputs = {unittest::tensorInfo("z", {1, 3, 320, 320})};
    return m;
}

imageio::DatasetList twoSamples() {
    imageio::DatasetList list;
    list.source = "/data/dataset.txt";
    list.entries = {{.files = {"/data/a.png"}, .line = 1}, {.files = {"/data/b.png"}, .line = 2}};
    return list;
}

rknn::ConversionOptions baseOptions() {
    rknn::ConversionOptions o;
    o.modelPath = "/models/tiny.onnx";
    o.outputPath = "/out/tiny.rknn";
    o.target = "RK3588";
    o.dataset = twoSamples();
    imageio::Preprocessing p;
    p.mean = {0.485f, 0.456f, 0.406f};
    p.std = {0.229f, 0.224f, 0.225f};
    p.width = 320;
    p.height = 256;
    p.color = imageio::ColorOrder::BGR;
    o.preprocessing["*"] = p;
    return o;
}

TEST(RknnConversion, TargetsAreTheChipProfiles) {
    const auto targets = rknn::targetPlatforms();
    EXPECT_NE(std::find(targets.begin(), targets.end(), "rk3588"), targets.end());
    EXPECT_NE(std::find(targets.begin(), targets.end(), "rv1106"), targets.end());
    rknn::ConversionOptions o = baseOptions();
    o.target = "rk9999";
    const std::string message = errorOf([&] { rknn::planConversion(tinyModel(), o); });
    EXPECT_NE(message.find("unknown target chip 'rk9999'"), std::string::npos) << message;
    EXPECT_NE(message.find("rk3566"), std::string::npos) << message;
}

TEST(RknnConversion, SchemeAndObserverMapToTheToolkitNames) {
    EXPECT_EQ(rknn::quantizedDtypeFor(quant::Scheme::W8A8), "w8a8");
    EXPECT_EQ(rknn::quantizedDtypeFor(quant::Scheme::W8A16), "w8a16");
    EXPECT_EQ(rknn::quantizedDtypeFor(quant::Scheme::FP16), "");
    EXPECT_EQ(rknn::quantizedAlgorithmFor(quant::ObserverKind::MinMax), "normal");
    EXPECT_EQ(rknn::quantizedAlgorithmFor(quant::ObserverKind::KL), "kl_divergence");
    EXPECT_EQ(rknn::quantizedAlgorithmFor(quant::ObserverKind::MMSE), "mmse");
    EXPECT_NE(errorOf([] { rknn::quantizedAlgorithmFor(quant::ObserverKind::Percentile); }).find("percentile"),
              std::string::npos);
}

TEST(RknnConversion, PlanMapsPreprocessingShapesAndDataset) {
    rknn::ConversionOptions o = baseOptions();
    o.observer = quant::ObserverKind::KL;
    const rknn::ConversionPlan plan = rknn::planConversion(tinyModel(), o);
    EXPECT_EQ(plan.target, "rk3588");
    EXPECT_EQ(plan.scriptPath, "/out/tiny.convert.py");
    EXPECT_EQ(plan.datasetPath, "/out/tiny.dataset.txt");
    EXPECT_TRUE(plan.quantize);
    EXPECT_EQ(plan.quantizedDtype, "w8a8");
    EXPECT_EQ(plan.quantizedAlgorithm, "kl_divergence");
    EXPECT_EQ(plan.quantizedMethod, "channel");
    EXPECT_TRUE(plan.rgbToBgr);
    ASSERT_EQ(plan.inputs.size(), 1u);
    EXPECT_TRUE(plan.fixInputSizes);
    EXPECT_EQ(plan.inputs[0].shape, (Shape{1, 3, 256, 320}));  // H from height, W from width
    // (pixel / 255 - 0.485) / 0.229 == (pixel - 123.675) / 58.395
    ASSERT_EQ(plan.inputs[0].mean.size(), 3u);
    EXPECT_NEAR(plan.inputs[0].mean[0], 123.675, 1e-4);
    EXPECT_NEAR(plan.inputs[0].mean[2], 103.53, 1e-4);
    EXPECT_NEAR(plan.inputs[0].std[0], 58.395, 1e-4);
    EXPECT_NEAR(plan.inputs[0].std[1], 57.12, 1e-4);
    EXPECT_EQ(rknn::renderDatasetList(plan), "/data/a.png\n/data/b.png\n");
}

TEST(RknnConversion, SymbolicSizesNeedAShape) {
    rknn::ConversionOptions o = baseOptions();
    o.preprocessing.clear();
    const std::string message = errorOf([&] { rknn::planConversion(tinyModel(), o); });
    EXPECT_NE(message.find("input 'x'"), std::string::npos) << message;
    EXPECT_NE(message.find("--input-shape"), std::string::npos) << message;
    o.inputShapes["x"] = {1, 3, 64, 96};
    const rknn::ConversionPlan plan = rknn::planConversion(tinyModel(), o);
    EXPECT_EQ(plan.inputs[0].shape, (Shape{1, 3, 64, 96}));
    // Images without preprocessing: the workbench's default pixel / 255.
    EXPECT_EQ(plan.inputs[0].mean, (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(plan.inputs[0].std, (std::vector<double>{255, 255, 255}));
}

TEST(RknnConversion, NoDatasetBuildsFloat16UnlessASchemeIsAsked) {
    rknn::ConversionOptions o = baseOptions();
    o.dataset.reset();
    const rknn::ConversionPlan plan = rknn::planConversion(tinyModel(), o);
    EXPECT_FALSE(plan.quantize);
    EXPECT_TRUE(plan.datasetPath.empty());
    ASSERT_FALSE(plan.notes.empty());
    EXPECT_NE(plan.notes[0].find("float16"), std::string::npos);
    o.scheme = quant::Scheme::W8A8;
    EXPECT_NE(errorOf([&] { rknn::planConversion(tinyModel(), o); }).find("--dataset"), std::string::npos);
}

TEST(RknnConversion, HybridLayersFromAQuantizeReport) {
    const fs::path dir = fs::temp_directory_path() / ("npuwb_rknn_unit_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string report = (dir / "quant.json").string();
    writeFileAtomically(report, R"({"scheme": "w8a8", "observer": "mmse", "dataset": "/data/dataset.txt",
        "precision": {"conv1": "int8", "head": "fp16", "gone": "float"}})");
    rknn::ConversionOptions o = baseOptions();
    o.quantization = rknn::loadQuantizationFacts(report);
    EXPECT_EQ(o.quantization->datasetPath, "/data/dataset.txt");
    const rknn::ConversionPlan plan = rknn::planConversion(tinyModel(), o);
    EXPECT_EQ(plan.quantizedAlgorithm, "mmse");
    ASSERT_EQ(plan.hybridLayers.size(), 1u);
    EXPECT_EQ(plan.hybridLayers[0].node, "head");
    EXPECT_EQ(plan.hybridLayers[0].tensor, "z");
    bool notedGone = false;
    for (const auto& n : plan.notes) notedGone = notedGone || n.find("'gone'") != std::string::npos;
    EXPECT_TRUE(notedGone);
    const std::string script = rknn::renderScript(plan);
    EXPECT_NE(script.find("TARGET = \"rk3588\""), std::string::npos);
    EXPECT_NE(script.find("QUANTIZED_ALGORITHM = \"mmse\""), std::string::npos);
    EXPECT_NE(script.find("    \"z\": \"node head: fp16 in the quantization\","), std::string::npos) << script;
    EXPECT_NE(script.find("INPUT_SIZE_LIST = [[1,3,256,320]]"), std::string::npos) << script;
    EXPECT_NE(script.find("RGB2BGR = True"), std::string::npos);
    EXPECT_NE(script.find("hybrid_quantization_step1"), std::string::npos);
    EXPECT_EQ(rknn::runCommand(plan, "/opt/py 3/python"), "'/opt/py 3/python' '/out/tiny.convert.py'");

    writeFileAtomically(report, R"({"hello": 1})");
    EXPECT_NE(errorOf([&] { rknn::loadQuantizationFacts(report); }).find(report), std::string::npos);
    fs::remove_all(dir);
}

TEST(RknnConversion, HybridLayersFromAnAccuracyReport) {
    const fs::path dir = fs::temp_directory_path() / ("npuwb_rknn_unit_acc_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    Report r;
    r.kind = "accuracy";
    r.createdAt = utcTimestamp();
    AccuracySection a;
    a.scheme = "w8a8";
    a.snrThresholdDb = 10.0;
    AccuracyLayer low;
    low.fullName = "conv1";
    low.value = "y";
    low.precision = "int8";
    low.singleSnrDb = 6.5;
    low.lowSnr = true;
    AccuracyLayer fine = low;
    fine.fullName = "head";
    fine.value = "z";
    fine.lowSnr = false;
    fine.singleSnrDb = 30.0;
    AccuracyLayer passThrough = fine;  // an op the quantizer leaves in float: not a choice to keep it there
    passThrough.fullName = "head";
    passThrough.precision = "float";
    a.layers = {low, fine, passThrough};
    r.accuracy = a;
    const std::string path = (dir / "accuracy.json").string();
    saveReport(r, path);
    rknn::ConversionOptions o = baseOptions();
    o.quantization = rknn::loadQuantizationFacts(path);
    const rknn::ConversionPlan plan = rknn::planConversion(tinyModel(), o);
    ASSERT_EQ(plan.hybridLayers.size(), 1u);
    EXPECT_EQ(plan.hybridLayers[0].tensor, "y");
    EXPECT_NE(plan.hybridLayers[0].reason.find("SNR 6.5 dB below 10.0 dB"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace npuwb
