// Bad input never crashes: each malformed model gives an Error whose message names the problem.
#include <gtest/gtest.h>

#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"

#include "../UnitTestSupport.h"

using namespace npuwb;
using namespace npuwb::unittest;

namespace {

Model reluModel() {
    Model m;
    m.opsetImports[""] = 13;
    m.graph.inputs.push_back(tensorInfo("x", {1, 4}, DType::F32));
    m.graph.outputs.push_back(tensorInfo("y", {1, 4}, DType::F32));
    m.graph.nodes.push_back(plainNode("relu1", "Relu", {"x"}, {"y"}));
    return m;
}

/// Serialises through real protobuf and loads back, as a file would be.
Model roundTrip(const Model& m) { return loadModelFromBytes(serializeModel(m), ".", "test.onnx"); }

}  // namespace

TEST(BadModel, GarbageAndTruncatedFilesAreRejected) {
    EXPECT_NE(errorOf([] { loadModelFromBytes("this is not protobuf \x01\x02", ".", "junk.onnx"); }).find("junk.onnx"),
              std::string::npos);
    std::string bytes = serializeModel(reluModel());
    std::string msg = errorOf([&] { loadModelFromBytes(bytes.substr(0, bytes.size() / 2), ".", "cut.onnx"); });
    EXPECT_NE(msg.find("cut.onnx"), std::string::npos) << msg;
    EXPECT_NE(errorOf([] { loadModelFromBytes("", ".", "empty.onnx"); }).find("empty"), std::string::npos);
    EXPECT_NE(errorOf([] { loadModel("/nonexistent/model.onnx"); }).find("/nonexistent/model.onnx"), std::string::npos);
}

TEST(BadModel, CycleIsNamed) {
    Model m = reluModel();
    m.graph.nodes[0].inputs = {"z"};
    m.graph.nodes.push_back(plainNode("loop_back", "Relu", {"y"}, {"z"}));
    Model loaded = roundTrip(m);
    std::string msg = errorOf([&] { Session s(std::make_shared<Model>(loaded)); });
    EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
}

TEST(BadModel, MissingInitializerIsNamed) {
    Model m = reluModel();
    m.graph.nodes[0] = plainNode("add1", "Add", {"x", "bias"}, {"y"});
    std::string msg = errorOf([&] { Session s(std::make_shared<Model>(roundTrip(m))); });
    EXPECT_NE(msg.find("'bias'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("add1"), std::string::npos) << msg;
}

TEST(BadModel, UnknownOpIsNamed) {
    Model m = reluModel();
    m.graph.nodes[0].opType = "FancyAttention";
    std::string msg = errorOf([&] { Session s(std::make_shared<Model>(roundTrip(m))); });
    EXPECT_NE(msg.find("FancyAttention"), std::string::npos) << msg;
    EXPECT_NE(msg.find("relu1"), std::string::npos) << msg;
}

TEST(BadModel, WrongInputShapeIsNamed) {
    Session s(std::make_shared<Model>(roundTrip(reluModel())));
    std::string msg = errorOf([&] { s.runTensors({{"x", Tensor(DType::F32, {2, 4})}}); });
    EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2,4]"), std::string::npos) << msg;
    msg = errorOf([&] { s.runTensors({}); });
    EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
    msg = errorOf([&] { s.runTensors({{"x", Tensor(DType::I64, {1, 4})}}); });
    EXPECT_NE(msg.find("int64"), std::string::npos) << msg;
}

TEST(BadModel, HugeDimensionIsRefused) {
    Model m = reluModel();
    Tensor shape = Tensor::fromVector<int64_t>({2}, {int64_t(1) << 20, int64_t(1) << 20});
    m.graph.initializers["big_shape"] = shape;
    m.graph.nodes.insert(m.graph.nodes.begin(), plainNode("make_big", "ConstantOfShape", {"big_shape"}, {"big"}));
    m.graph.nodes.back() = plainNode("add_big", "Add", {"x", "big"}, {"y"});
    Session s(std::make_shared<Model>(roundTrip(m)));
    std::string msg = errorOf([&] { s.runTensors({{"x", Tensor(DType::F32, {1, 4})}}); });
    EXPECT_NE(msg.find("make_big"), std::string::npos) << msg;
    EXPECT_NE(msg.find("memory"), std::string::npos) << msg;
}

TEST(RoundTrip, ExportThenImportKeepsGraph) {
    Model m = reluModel();
    m.graph.initializers["w"] = Tensor::fromVector<float>({4}, {1, 2, 3, 4});
    m.metadata["scheme"] = "fp32";
    Model back = roundTrip(m);
    ASSERT_EQ(back.graph.nodes.size(), 1u);
    EXPECT_EQ(back.graph.nodes[0].opType, "Relu");
    EXPECT_EQ(back.metadata.at("scheme"), "fp32");
    EXPECT_EQ(back.graph.initializers.at("w").toFloatVector(), (std::vector<float>{1, 2, 3, 4}));
    Session s(std::make_shared<Model>(back));
    auto out = s.runTensors({{"x", Tensor::fromVector<float>({1, 4}, {-1, 2, -3, 4})}});
    EXPECT_EQ(out.at("y").toFloatVector(), (std::vector<float>{0, 2, 0, 4}));
}

// Found by fuzz_onnx_import: ONNX's own shape inference (libonnx 1.12) segfaults on this file. It runs in a child
// process, so loading must end in a model or an npuwb::Error, never a crash.
TEST(BadModel, ShapeInferenceCrashIsContained) {
    const std::string path = std::string(NPUWB_SOURCE_DIR) + "/tests/data/regressions/onnx-shape-inference-crash.onnx";
    try {
        Model m = loadModel(path);
        EXPECT_EQ(m.graph.nodes.size(), 2u);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("onnx-shape-inference-crash.onnx"), std::string::npos) << e.what();
    }
}
