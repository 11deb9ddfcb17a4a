// Shape folding with fixed input shapes: Shape -> Gather -> (Div) -> Unsqueeze -> Concat -> Reshape sub-graphs are
// constants of a backend plan, so the Reshape (and the channel-shuffle Transpose) run on the backend, with the
// same outputs as the reference kernels, and a new input shape gives a new, correct plan.
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "DifferentialHarness.h"
#include "npuwb/sdk/Backend.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ExecutionObserver.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::difftest;

namespace {

Tensor int64s(std::vector<int64_t> v) { return Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); }

/// Nodes taking dim `axis` of the shape `s` as a 1-element int64 tensor named `out`.
std::vector<Node> dimOf(const std::string& s, int64_t axis, const std::string& out) {
    const std::string idx = out + "_idx", scalar = out + "_scalar";
    Attribute value;
    value.kind = Attribute::Kind::Tensor;
    value.t = Tensor::scalar<int64_t>(axis);
    Node index = makeNode("Constant", {}, {idx}, {{"value", value}});
    return {index, makeNode("Gather", {s, idx}, {scalar}, {{"axis", Attribute::ofInt(0)}}),
            makeNode("Unsqueeze", {scalar, "axes0"}, {out})};
}

void append(std::vector<Node>& to, std::vector<Node> more) { to.insert(to.end(), more.begin(), more.end()); }

/// X -> Conv 1x1 -> Reshape(shape computed as [dim0 of Shape(conv), -1]) -> Relu
Case flattenCase(std::mt19937& rng) {
    std::vector<Node> nodes{makeNode("Conv", {"X", "W"}, {"c"}, {{"kernel_shape", Attribute::ofInts({1, 1})}}),
                            makeNode("Shape", {"c"}, {"s"})};
    append(nodes, dimOf("s", 0, "n"));
    nodes.push_back(makeNode("Concat", {"n", "minus1"}, {"target"}, {{"axis", Attribute::ofInt(0)}}));
    nodes.push_back(makeNode("Reshape", {"c", "target"}, {"r"}));
    nodes.push_back(makeNode("Relu", {"r"}, {"Y"}));
    return makeCase("Shape>Gather>Unsqueeze>Concat>Reshape", nodes, {{"X", {1, 8, 5, 5}}}, {"Y"},
                    {{"W", randomTensor({8, 8, 1, 1}, rng)}, {"axes0", int64s({0})}, {"minus1", int64s({-1})}}, rng);
}

/// ShuffleNet's channel shuffle with the shapes computed from Shape: Reshape [n,2,c/2,h,w], Transpose, Reshape.
Case channelShuffleCase(std::mt19937& rng, const Shape& input) {
    std::vector<Node> nodes{makeNode("Conv", {"X", "W"}, {"c"}, {{"kernel_shape", Attribute::ofInts({1, 1})}}),
                            makeNode("Shape", {"c"}, {"s"})};
    append(nodes, dimOf("s", 0, "n"));
    append(nodes, dimOf("s", 1, "ch"));
    append(nodes, dimOf("s", 2, "h"));
    append(nodes, dimOf("s", 3, "w"));
    nodes.push_back(makeNode("Div", {"ch", "two"}, {"half"}));
    nodes.push_back(makeNode("Concat", {"n", "two", "half", "h", "w"}, {"shape5"}, {{"axis", Attribute::ofInt(0)}}));
    nodes.push_back(makeNode("Reshape", {"c", "shape5"}, {"r5"}));
    nodes.push_back(makeNode("Transpose", {"r5"}, {"t"}, {{"perm", Attribute::ofInts({0, 2, 1, 3, 4})}}));
    nodes.push_back(makeNode("Concat", {"n", "minus1", "h", "w"}, {"shape4"}, {{"axis", Attribute::ofInt(0)}}));
    nodes.push_back(makeNode("Reshape", {"t", "shape4"}, {"Y"}));
    const int64_t c = input[1];
    return makeCase("channel shuffle " + shapeToString(input), nodes, {{"X", input}}, {"Y"},
                    {{"W", randomTensor({c, c, 1, 1}, rng)}, {"axes0", int64s({0})}, {"minus1", int64s({-1})},
                     {"two", int64s({2})}},
                    rng);
}

/// Records which outputs the learning run computed and which it left as placeholders (shapes only), and whether
/// a Relu was handed real data.
struct LearningWatch : ExecutionObserver {
    std::set<std::string> placeholders, computed;
    bool reluGotData = false;
    bool acceptsPlaceholderOutputs() const override { return true; }
    void nodeFinished(size_t, const Node& n, const std::vector<const Value*>& in, const std::vector<Value>& out) override {
        for (size_t i = 0; i < out.size() && i < n.outputs.size(); ++i)
            if (out[i].isTensor()) (out[i].tensor.raw() ? computed : placeholders).insert(n.outputs[i]);
        for (const Value* v : in)
            reluGotData = reluGotData || (n.opType == "Relu" && v && v->isTensor() && v->tensor.numel() > 0 && v->tensor.raw());
    }
};

/// Output Y of `fast` matches the reference executor's within 1e-4 relative.
void expectMatchesReference(const Session& fast, const std::shared_ptr<Model>& model,
                            const std::map<std::string, Tensor>& inputs) {
    const Tensor got = fast.runTensors(inputs).at("Y"), want = Session(model).runTensors(inputs).at("Y");
    ASSERT_EQ(got.shape(), want.shape());
    auto a = got.values<float>(), b = want.values<float>();
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4 * std::max(1.f, std::abs(b[i]))) << i;
}

class ShapeFolding : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(ShapeFolding, ShapeArithmeticFeedingReshapeRunsOnTheBackend) {
    std::mt19937 rng(7);
    Outcome o = runCase(flattenCase(rng), GetParam());
    EXPECT_TRUE(o.passed) << o.message;
    EXPECT_TRUE(o.claimed) << "the folded Reshape should run on " << GetParam() << ": " << o.message;
}

TEST_P(ShapeFolding, ChannelShuffleMatchesReference) {
    std::mt19937 rng(11);
    Outcome o = runCase(channelShuffleCase(rng, {1, 6, 5, 7}), GetParam());
    EXPECT_TRUE(o.passed) << o.message;
    // cpu-onednn has Transpose; any other backend may leave only the Transpose to the reference kernels.
    if (GetParam() == "cpu-onednn") {
        EXPECT_TRUE(o.claimed) << o.message;
    } else if (!o.claimed) {
        EXPECT_NE(o.message.find("fallback: Transpose"), std::string::npos) << o.message;
    }
}

TEST_P(ShapeFolding, NewInputShapeRecompilesWithNewFoldedShapes) {
    std::mt19937 rng(5);
    Case small = channelShuffleCase(rng, {1, 4, 3, 3});
    // Same model with a symbolic batch: feed two batch sizes to one session.
    small.model->graph.inputs[0].type.shape->at(0) = Dim::named("batch");
    SessionOptions opts;
    opts.executor.backend = GetParam();
    Session fast(small.model, opts);
    for (int64_t batch : {1, 3}) {
        SCOPED_TRACE("batch " + std::to_string(batch));
        std::map<std::string, Tensor> in{{"X", randomTensor({batch, 4, 3, 3}, rng)}};
        fast.prepare(in);
        expectMatchesReference(fast, small.model, in);
    }
}

// ONNX's inference can stop at a Reshape whose target is computed (PP-OCRv4 rec's Slice of a Shape): the learning
// run keeps the nodes it has types for as placeholders (the Conv here) and runs the rest for real, on zeros
// standing in for placeholder inputs; the compiled plan still matches the reference.
TEST_P(ShapeFolding, LearningRunsNodesWithoutInferredTypesOnZeros) {
    std::mt19937 rng(13);
    Case c = channelShuffleCase(rng, {1, 6, 5, 7});
    c.model->graph.valueInfo["c"] =
        ValueInfo{"c", {ValueType::Kind::Tensor, DType::F32, SymShape{Dim::of(1), Dim::of(6), Dim::of(5), Dim::of(7)}, {}}};
    LearningWatch watch;
    auto fast = preparedSession(c.model, GetParam(), c.inputs, watch);
    EXPECT_TRUE(watch.placeholders.count("c")) << "the Conv has an inferred type: it should not run while learning";
    EXPECT_TRUE(watch.computed.count("r5")) << "the Reshape has none: it should run, on zeros for its input";
    expectMatchesReference(*fast, c.model, c.inputs);
}

// ShuffleNet v2's split: Slice ends computed by Div, where ONNX 1.12's inference stops. Conv, Relu, Slice and
// Concat then learn their output shapes without computing (placeholders out, no zeros in); the plan still matches.
TEST_P(ShapeFolding, KernelsPastInferenceLearnShapesWithoutComputing) {
    std::mt19937 rng(19);
    std::vector<Node> nodes{makeNode("Conv", {"X", "W"}, {"c"}, {{"kernel_shape", Attribute::ofInts({1, 1})}}),
                            makeNode("Shape", {"c"}, {"s"})};
    append(nodes, dimOf("s", 1, "ch"));
    nodes.push_back(makeNode("Div", {"ch", "two"}, {"half"}));
    nodes.push_back(makeNode("Slice", {"c", "zero", "half", "axes1"}, {"lo"}));
    nodes.push_back(makeNode("Slice", {"c", "half", "big", "axes1"}, {"hi"}));
    nodes.push_back(makeNode("Conv", {"hi", "W2"}, {"c2"}, {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}}));
    nodes.push_back(makeNode("Relu", {"c2"}, {"r"}));
    nodes.push_back(makeNode("Concat", {"lo", "r"}, {"Y"}, {{"axis", Attribute::ofInt(1)}}));
    Case c = makeCase("split by computed Slice", nodes, {{"X", {1, 6, 5, 7}}}, {"Y"},
                      {{"W", randomTensor({6, 6, 1, 1}, rng)}, {"W2", randomTensor({3, 3, 3, 3}, rng)},
                       {"axes0", int64s({0})}, {"axes1", int64s({1})}, {"two", int64s({2})}, {"zero", int64s({0})},
                       {"big", int64s({1000})}},
                      rng);
    auto model = std::make_shared<Model>(loadModelFromBytes(serializeModel(*c.model), ".", "split.onnx"));
    ASSERT_FALSE(model->graph.valueInfo.count("c2") && model->graph.valueInfo.at("c2").type.shape)
        << "ONNX's inference got past the computed Slice: the test no longer covers kernels without types";
    LearningWatch watch;
    auto fast = preparedSession(model, GetParam(), c.inputs, watch);
    for (const char* name : {"lo", "hi", "c2", "r", "Y"})
        EXPECT_TRUE(watch.placeholders.count(name)) << name << " was computed while learning";
    EXPECT_FALSE(watch.reluGotData) << "the Relu got zeros instead of a placeholder";
    EXPECT_EQ(fast->runTensors(c.inputs).at("Y").shape(), (Shape{1, 6, 5, 7}));
    expectMatchesReference(*fast, model, c.inputs);
}

TEST_P(ShapeFolding, CeilModePoolingLearnsTheKernelsShape) {
    for (const bool padded : {true, false}) {
        std::mt19937 rng(17);
        std::map<std::string, Attribute> pool{{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})},
                                              {"ceil_mode", Attribute::ofInt(1)}};
        if (padded) pool["pads"] = Attribute::ofInts({0, 0, 1, 1});
        Case c = makeCase(padded ? "ceil pool, end padding" : "ceil pool", {makeNode("Conv", {"X", "W"}, {"c"}, {{"kernel_shape", Attribute::ofInts({1, 1})}}),
                                                                            makeNode("MaxPool", {"c"}, {"p"}, pool),
                                                                            makeNode("Relu", {"p"}, {"Y"})},
                          {{"X", {1, 3, 4, 5}}}, {"Y"}, {{"W", randomTensor({3, 3, 1, 1}, rng)}}, rng);
        auto model = std::make_shared<Model>(loadModelFromBytes(serializeModel(*c.model), ".", "ceil.onnx"));
        LearningWatch watch;
        auto fast = preparedSession(model, GetParam(), c.inputs, watch);
        EXPECT_EQ(watch.placeholders.count("c"), padded ? 0u : 1u) << (padded ? "padded" : "unpadded");
        expectMatchesReference(*fast, model, c.inputs);
    }
}

INSTANTIATE_TEST_SUITE_P(Plugins, ShapeFolding, ::testing::ValuesIn(availableBackends()), [](const auto& info) {
    std::string n = info.param;
    for (char& ch : n) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ShapeFolding);
