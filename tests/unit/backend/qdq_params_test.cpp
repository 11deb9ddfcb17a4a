// The QDQ parameter parsing both int8 backends share (backend/QdqParams.h), on small hand-built graphs.
#include <gtest/gtest.h>

#include <map>

#include "npuwb/sdk/QdqParams.h"
#include "npuwb/Error.h"

using namespace npuwb;

namespace {

/// A graph under construction with its value descriptions, queried like a backend's compile() does.
struct QdqGraph {
    Graph graph;
    std::vector<size_t> order;
    std::map<std::string, ValueDesc> values;
    std::map<std::string, Tensor> constants;

    QdqGraph() { graph.nodes.reserve(16); }  // node() hands out references that must stay valid

    void constant(const std::string& name, Tensor t) {
        auto& c = constants[name] = std::move(t);
        values[name] = ValueDesc{c.dtype(), c.shape(), &c};
    }
    void value(const std::string& name, DType type, Shape shape) { values[name] = ValueDesc{type, std::move(shape)}; }
    const Node& node(const std::string& op, std::vector<std::string> inputs, const std::string& output) {
        EXPECT_LT(graph.nodes.size(), graph.nodes.capacity());
        Node n;
        n.opType = op;
        n.inputs = std::move(inputs);
        n.outputs = {output};
        graph.nodes.push_back(std::move(n));
        order.push_back(graph.nodes.size() - 1);
        return graph.nodes.back();
    }
    GraphQuery query() const {
        return GraphQuery{graph, 17, order, [this](const std::string& name) -> const ValueDesc* {
                              auto it = values.find(name);
                              return it == values.end() ? nullptr : &it->second;
                          }};
    }
};

}  // namespace

TEST(QdqParams, PerTensorQuantizeAndDequantizeParameters) {
    QdqGraph g;
    g.value("x", DType::F32, {1, 4});
    g.value("q", DType::U8, {1, 4});
    g.value("s8", DType::I8, {1, 4});
    g.constant("scale", Tensor::scalar<float>(0.5f));
    g.constant("zero", Tensor::scalar<uint8_t>(7));
    g.constant("bad_scale", Tensor::scalar<float>(0.f));
    g.constant("axis_scale", Tensor::fromVector<float>({2}, {0.5f, 0.25f}));
    const Node& quantize = g.node("QuantizeLinear", {"x", "scale", "zero"}, "q");
    const Node& dequantize = g.node("DequantizeLinear", {"s8", "scale"}, "f");
    const Node& computed = g.node("QuantizeLinear", {"x", "scale", "x"}, "q2");
    const Node& zeroScale = g.node("QuantizeLinear", {"x", "bad_scale", "zero"}, "q3");
    const Node& perAxis = g.node("DequantizeLinear", {"s8", "axis_scale"}, "f2");
    const GraphQuery q = g.query();

    ASSERT_TRUE(isQuantOp(quantize.opType));
    EXPECT_FALSE(isQuantOp("QLinearConv"));
    const auto p = quantParamsOf(q, quantize);
    ASSERT_TRUE(p);
    EXPECT_EQ(*p, (QuantParams{0.5f, 7, DType::U8}));
    const auto d = quantParamsOf(q, dequantize);  // no zero point: the input's type, zero 0
    ASSERT_TRUE(d);
    EXPECT_EQ(*d, (QuantParams{0.5f, 0, DType::I8}));
    EXPECT_FALSE(quantParamsOf(q, computed));
    EXPECT_FALSE(quantParamsOf(q, zeroScale));
    EXPECT_FALSE(quantParamsOf(q, perAxis));
    EXPECT_EQ(producerOf(g.graph, "f"), &dequantize);
    EXPECT_EQ(producerOf(g.graph, "x"), nullptr);
    EXPECT_EQ(constantInput(q, quantize, 2), &g.constants.at("zero"));
    EXPECT_EQ(constantInput(q, quantize, 0), nullptr);  // computed at run time
    EXPECT_EQ(constantInput(q, dequantize, 2), nullptr);  // absent

    const Tensor s = Tensor::scalar<float>(0.25f), z = Tensor::scalar<int8_t>(-3), wide = Tensor::scalar<int32_t>(0);
    EXPECT_EQ(scalarQuantParams(&s, &z), (QuantParams{0.25f, -3, DType::I8}));
    EXPECT_FALSE(scalarQuantParams(&s, &wide));
    EXPECT_FALSE(scalarQuantParams(&s, nullptr));
}

TEST(QdqParams, PerTensorCapability) {
    QdqGraph g;
    const Tensor scale = Tensor::scalar<float>(0.5f), axis = Tensor::fromVector<float>({2}, {0.5f, 1.f});
    const Tensor zero = Tensor::scalar<int8_t>(0);
    Node n;
    n.opType = "QuantizeLinear";
    n.inputs = {"x", "s", "z"};
    NodeQuery q{n, 17, {DType::F32, DType::F32, DType::I8}, {{4}, {}, {}}, {nullptr, &scale, &zero}, {DType::I8}, {{4}}};
    EXPECT_TRUE(supportsPerTensorQdq(q).supported) << supportsPerTensorQdq(q).reason;
    q.constants[1] = &axis;
    EXPECT_FALSE(supportsPerTensorQdq(q).supported);
    q.constants[1] = &scale;
    q.constants[2] = nullptr;  // computed zero point
    EXPECT_FALSE(supportsPerTensorQdq(q).supported);
    q.constants[2] = &zero;
    Attribute noSaturate;
    noSaturate.i = 0;
    n.attributes["saturate"] = noSaturate;
    EXPECT_FALSE(supportsPerTensorQdq(q).supported);
}

TEST(QdqParams, FoldedInt8WeightsAndBiases) {
    QdqGraph g;
    g.constant("w_q", Tensor::fromVector<int8_t>({2, 1, 1, 1}, {5, -7}));
    g.constant("w_scale", Tensor::fromVector<float>({2}, {0.5f, 0.25f}));
    g.constant("w_zero", Tensor::fromVector<int8_t>({2}, {0, 0}));
    g.constant("w_zero_bad", Tensor::fromVector<int8_t>({2}, {0, 1}));
    g.constant("w", Tensor::fromVector<float>({2, 1, 1, 1}, {2.5f, -1.75f}));  // the engine's folded value
    g.constant("w2", Tensor::fromVector<float>({2, 1, 1, 1}, {2.5f, -1.75f}));
    Attribute axis0;  // per output channel of OIHW weights
    axis0.i = 0;
    g.node("DequantizeLinear", {"w_q", "w_scale", "w_zero"}, "w");
    g.graph.nodes.back().attributes["axis"] = axis0;
    g.node("DequantizeLinear", {"w_q", "w_scale", "w_zero_bad"}, "w2");
    g.graph.nodes.back().attributes["axis"] = axis0;
    g.constant("b_q", Tensor::fromVector<int32_t>({2}, {100, -40}));
    g.constant("b_scale", Tensor::fromVector<float>({2}, {0.05f, 0.025f}));  // x_scale 0.1 * w_scale
    g.constant("b", Tensor::fromVector<float>({2}, {5.f, -1.f}));
    g.constant("b_other", Tensor::fromVector<float>({2}, {5.f, -1.f}));
    g.constant("b_short", Tensor::fromVector<float>({1}, {5.f}));
    g.node("DequantizeLinear", {"b_q", "b_scale"}, "b");
    const GraphQuery q = g.query();

    const auto w = int8WeightsOf(q, "w", 0, 2);
    ASSERT_TRUE(w);
    EXPECT_EQ(std::vector<int8_t>(w->values.begin(), w->values.end()), (std::vector<int8_t>{5, -7}));
    EXPECT_EQ(w->scales, (std::vector<float>{0.5f, 0.25f}));
    EXPECT_FALSE(int8WeightsOf(q, "w", 1, 2)) << "scales along another axis";
    EXPECT_FALSE(int8WeightsOf(q, "w", 0, 3)) << "two scales for three channels";
    EXPECT_FALSE(int8WeightsOf(q, "w2", 0, 2)) << "asymmetric weights";
    EXPECT_FALSE(int8WeightsOf(q, "b_other", 0, 2)) << "not from a DequantizeLinear";

    const auto exact = exactInt32Bias(q, "b", 0.1f, w->scales);
    ASSERT_TRUE(exact);
    EXPECT_EQ(*exact, (std::vector<int32_t>{100, -40}));
    EXPECT_FALSE(exactInt32Bias(q, "b", 0.2f, w->scales)) << "other accumulator scales";
    EXPECT_FALSE(exactInt32Bias(q, "b_other", 0.1f, w->scales));
    EXPECT_EQ(constantBias(q, "b_other", 2), (std::vector<float>{5.f, -1.f}));
    try {
        constantBias(q, "b_short", 2);
        ADD_FAILURE() << "no error for a bias of the wrong size";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
        EXPECT_NE(std::string(e.what()).find("b_short"), std::string::npos) << e.what();
    }
}

TEST(QdqParams, QLinearWeights) {
    const Tensor conv = Tensor::fromVector<int8_t>({3, 1, 1, 1}, {1, 2, 3});
    const Tensor matmul = Tensor::fromVector<int8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor one = Tensor::scalar<float>(0.5f), three = Tensor::fromVector<float>({3}, {1.f, 2.f, 4.f});
    const Tensor zero = Tensor::scalar<int8_t>(0), nonzero = Tensor::scalar<int8_t>(2);
    std::string why;
    auto w = qlinearWeights(&conv, &one, &zero, true, why);
    ASSERT_TRUE(w) << why;
    EXPECT_EQ(w->scales, (std::vector<float>{0.5f, 0.5f, 0.5f}));  // per tensor, one per output channel
    EXPECT_EQ(std::vector<int8_t>(w->values.begin(), w->values.end()), (std::vector<int8_t>{1, 2, 3}));
    w = qlinearWeights(&matmul, &three, &zero, false, why);  // B is K x N: N output channels
    ASSERT_TRUE(w) << why;
    EXPECT_EQ(w->scales, (std::vector<float>{1.f, 2.f, 4.f}));
    EXPECT_FALSE(qlinearWeights(&conv, &one, &nonzero, true, why));
    EXPECT_NE(why.find("zero points"), std::string::npos) << why;
    EXPECT_FALSE(qlinearWeights(&matmul, &three, &zero, true, why));
    EXPECT_NE(why.find("2-D convolutions"), std::string::npos) << why;
    const Tensor two = Tensor::fromVector<float>({2}, {1.f, 2.f});
    EXPECT_FALSE(qlinearWeights(&conv, &two, &zero, true, why));
    EXPECT_NE(why.find("per output channel"), std::string::npos) << why;
}
