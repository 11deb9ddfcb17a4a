// Hand-computed checks of the math-family reference kernels through the registry.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "ops/Kernel.h"

using namespace npuwb;

namespace {

/// Runs `op` at `opset` on the given inputs; attributes are set on the node by the caller through `setup`.
std::vector<Value> run(const std::string& op, std::vector<Tensor> inputs, int64_t opset = 17,
                       const std::function<void(Node&)>& setup = {}, size_t outputCount = 1) {
    KernelFn fn = KernelRegistry::instance().find("", op);
    EXPECT_NE(fn, nullptr) << op;
    Node n;
    n.opType = op;
    std::vector<Value> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
        n.inputs.push_back("in" + std::to_string(i));
        values.emplace_back(inputs[i]);
    }
    for (size_t i = 0; i < outputCount; ++i) n.outputs.push_back("out" + std::to_string(i));
    if (setup) setup(n);
    std::vector<const Value*> ptrs;
    for (const Value& v : values) ptrs.push_back(&v);
    KernelContext ctx(n, opset, ptrs, nullptr);
    fn(ctx);
    return ctx.outputs();
}


template <class T> std::vector<T> vec(const Value& v) {
    auto s = v.tensor.values<T>();
    return {s.begin(), s.end()};
}

}  // namespace

TEST(MathKernels, UnaryAndActivations) {
    auto y = run("Relu", {Tensor::fromVector<float>({3}, {-1.f, 0.f, 2.f})});
    EXPECT_EQ(vec<float>(y[0]), (std::vector<float>{0.f, 0.f, 2.f}));
    y = run("Neg", {Tensor::fromVector<int32_t>({2}, {3, -4})});
    EXPECT_EQ(vec<int32_t>(y[0]), (std::vector<int32_t>{-3, 4}));
    y = run("Round", {Tensor::fromVector<float>({4}, {0.5f, 1.5f, -2.5f, 2.6f})});
    EXPECT_EQ(vec<float>(y[0]), (std::vector<float>{0.f, 2.f, -2.f, 3.f}));
    y = run("Clip", {Tensor::fromVector<float>({3}, {-2.f, 0.3f, 2.f})}, 6,
            [](Node& n) { n.attributes["min"] = Attribute::ofFloat(-1.f); n.attributes["max"] = Attribute::ofFloat(1.f); });
    EXPECT_EQ(vec<float>(y[0]), (std::vector<float>{-1.f, 0.3f, 1.f}));
    y = run("Clip", {Tensor::fromVector<int8_t>({3}, {-100, 5, 100}), Tensor::scalar<int8_t>(-10)}, 13);
    EXPECT_EQ(vec<int8_t>(y[0]), (std::vector<int8_t>{-10, 5, 100}));
    y = run("IsInf", {Tensor::fromVector<float>({3}, {INFINITY, -INFINITY, 1.f})}, 10,
            [](Node& n) { n.attributes["detect_negative"] = Attribute::ofInt(0); });
    EXPECT_EQ(vec<bool>(y[0]), (std::vector<bool>{true, false, false}));
}

TEST(MathKernels, BinaryBroadcastAndIntegerSemantics) {
    auto y = run("Add", {Tensor::fromVector<float>({2, 2}, {1, 2, 3, 4}), Tensor::fromVector<float>({2}, {10, 20})});
    EXPECT_EQ(vec<float>(y[0]), (std::vector<float>{11, 22, 13, 24}));
    y = run("Div", {Tensor::fromVector<int32_t>({2}, {-7, 7}), Tensor::fromVector<int32_t>({2}, {2, 2})});
    EXPECT_EQ(vec<int32_t>(y[0]), (std::vector<int32_t>{-3, 3}));  // truncation toward zero
    y = run("Mod", {Tensor::fromVector<int64_t>({2}, {-4, 7}), Tensor::fromVector<int64_t>({2}, {3, -3})});
    EXPECT_EQ(vec<int64_t>(y[0]), (std::vector<int64_t>{2, -2}));  // sign of the divisor
    y = run("Pow", {Tensor::fromVector<int64_t>({2}, {2, 3}), Tensor::fromVector<float>({2}, {3.f, 2.f})});
    EXPECT_EQ(vec<int64_t>(y[0]), (std::vector<int64_t>{8, 9}));
    y = run("Less", {Tensor::fromVector<float>({2}, {1, 3}), Tensor::scalar<float>(2)});
    EXPECT_EQ(vec<bool>(y[0]), (std::vector<bool>{true, false}));
    // Opset 6 broadcast=1, axis=0: B [2] is aligned with A's first axis.
    y = run("Add", {Tensor::fromVector<double>({2, 3}, {0, 0, 0, 0, 0, 0}), Tensor::fromVector<double>({2}, {1, 2})}, 6,
            [](Node& n) { n.attributes["broadcast"] = Attribute::ofInt(1); n.attributes["axis"] = Attribute::ofInt(0); });
    EXPECT_EQ(vec<double>(y[0]), (std::vector<double>{1, 1, 1, 2, 2, 2}));
}

TEST(MathKernels, CastStrings) {
    auto y = run("Cast", {Tensor::fromVector<float>({3}, {0.47892547f, 1e-5f, 2.f})}, 13,
                 [](Node& n) { n.attributes["to"] = Attribute::ofInt(8); });
    EXPECT_EQ(vec<std::string>(y[0]), (std::vector<std::string>{"0.47892547", "1e-05", "2.0"}));
    y = run("Cast", {Tensor::fromVector<std::string>({3}, {"+INF", "NaN", "-1.5"})}, 13,
            [](Node& n) { n.attributes["to"] = Attribute::ofInt(1); });
    auto f = vec<float>(y[0]);
    EXPECT_TRUE(std::isinf(f[0]) && f[0] > 0);
    EXPECT_TRUE(std::isnan(f[1]));
    EXPECT_EQ(f[2], -1.5f);
}

TEST(MathKernels, SoftmaxAndReductions) {
    auto y = run("Softmax", {Tensor::fromVector<float>({2}, {0.f, 0.f})});
    EXPECT_EQ(vec<float>(y[0]), (std::vector<float>{0.5f, 0.5f}));
    y = run("ReduceSum", {Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor::fromVector<int64_t>({1}, {1})},
            13, [](Node& n) { n.attributes["keepdims"] = Attribute::ofInt(0); });
    EXPECT_EQ(y[0].tensor.shape(), (Shape{2}));
    EXPECT_EQ(vec<float>(y[0]), (std::vector<float>{6, 15}));
    y = run("ReduceMax", {Tensor::fromVector<int32_t>({2, 2}, {1, 9, 4, 3})}, 13,
            [](Node& n) { n.attributes["axes"] = Attribute::ofInts({0}); });
    EXPECT_EQ(y[0].tensor.shape(), (Shape{1, 2}));
    EXPECT_EQ(vec<int32_t>(y[0]), (std::vector<int32_t>{4, 9}));
    y = run("ArgMax", {Tensor::fromVector<float>({4}, {1, 3, 3, 0})}, 13,
            [](Node& n) { n.attributes["select_last_index"] = Attribute::ofInt(1); });
    EXPECT_EQ(vec<int64_t>(y[0]), (std::vector<int64_t>{2}));
    y = run("CumSum", {Tensor::fromVector<double>({3}, {1, 2, 3}), Tensor::scalar<int32_t>(0)}, 14,
            [](Node& n) { n.attributes["exclusive"] = Attribute::ofInt(1); n.attributes["reverse"] = Attribute::ofInt(1); });
    EXPECT_EQ(vec<double>(y[0]), (std::vector<double>{5, 3, 0}));
}

TEST(MathKernels, EinsumDetAndLoss) {
    auto y = run("Einsum", {Tensor::fromVector<double>({2, 2}, {1, 2, 3, 4})}, 12,
                 [](Node& n) { n.attributes["equation"] = Attribute::ofString("ii"); });
    EXPECT_EQ(vec<double>(y[0]), (std::vector<double>{5}));  // trace, implicit scalar output
    y = run("Einsum", {Tensor::fromVector<double>({2, 2}, {1, 2, 3, 4}), Tensor::fromVector<double>({2}, {1, 1})}, 12,
            [](Node& n) { n.attributes["equation"] = Attribute::ofString("ij,j->i"); });
    EXPECT_EQ(vec<double>(y[0]), (std::vector<double>{3, 7}));
    y = run("Det", {Tensor::fromVector<float>({2, 2}, {1, 2, 3, 4})});
    EXPECT_FLOAT_EQ(vec<float>(y[0])[0], -2.f);
    // NLL mean with one ignored target: only the other contributes, divided by its weight.
    y = run("NegativeLogLikelihoodLoss",
            {Tensor::fromVector<float>({2, 2}, {-1, -2, -3, -4}), Tensor::fromVector<int64_t>({2}, {1, 0})}, 13,
            [](Node& n) { n.attributes["ignore_index"] = Attribute::ofInt(0); });
    EXPECT_FLOAT_EQ(vec<float>(y[0])[0], 2.f);
}

TEST(MathKernels, CastLikeBFloat16TruncatesLikeTheOnnxReference) {
    // 0.47892547f is 0x3EF536..: the upper half 0x3EF5 is kept (round-to-nearest would give 0x3EF6).
    Tensor like(DType::BF16, {1});
    auto y = run("CastLike", {Tensor::fromVector<float>({1}, {0.47892547f}), like}, 15);
    EXPECT_EQ(y[0].tensor.data<BFloat16>()[0].bits, 0x3EF5);
    y = run("CastLike", {y[0].tensor, Tensor::scalar<float>(0.f)}, 15);
    EXPECT_EQ(vec<float>(y[0])[0], bfloat16BitsToFloat(0x3EF5));
}
