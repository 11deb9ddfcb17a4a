// Hand-computed checks of the nn reference kernels (convolution, matmul, pooling, quantization, normalization).
#include <gtest/gtest.h>

#include <cmath>

#include "ops/Kernel.h"

using namespace npuwb;

namespace {

std::vector<Value> run(const std::string& op, std::vector<Tensor> inputs, std::map<std::string, Attribute> attrs = {},
                       size_t outputs = 1, int64_t opset = 17) {
    KernelFn fn = KernelRegistry::instance().find("", op);
    EXPECT_NE(fn, nullptr) << op;
    Node n;
    n.opType = op;
    n.attributes = std::move(attrs);
    std::vector<Value> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
        n.inputs.push_back("in" + std::to_string(i));
        values.emplace_back(std::move(inputs[i]));
    }
    for (size_t i = 0; i < outputs; ++i) n.outputs.push_back("out" + std::to_string(i));
    std::vector<const Value*> ptrs;
    for (const Value& v : values) ptrs.push_back(&v);
    KernelContext ctx(n, opset, ptrs, nullptr);
    fn(ctx);
    return ctx.outputs();
}

}  // namespace

TEST(NnKernels, ConvWithPaddingAndBias) {
    // 1x1x3x3 input, 2x2 all-ones kernel, pad 1 on the top/left only -> each output sums a 2x2 window.
    Tensor x = Tensor::fromVector<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    Tensor w = Tensor::fromVector<float>({1, 1, 2, 2}, {1, 1, 1, 1});
    Tensor b = Tensor::fromVector<float>({1}, {10});
    auto out = run("Conv", {x, w, b}, {{"pads", Attribute::ofInts({1, 1, 0, 0})}});
    const Tensor& y = out[0].tensor;
    ASSERT_EQ(y.shape(), (Shape{1, 1, 3, 3}));
    std::vector<float> expected{11, 13, 15, 15, 22, 26, 21, 34, 38};
    EXPECT_EQ(y.toFloatVector(), expected);
}

TEST(NnKernels, ConvSameLowerStride2) {
    Tensor x = Tensor::fromVector<float>({1, 1, 4}, {1, 2, 3, 4});
    Tensor w = Tensor::fromVector<float>({1, 1, 3}, {1, 1, 1});
    auto out = run("Conv", {x, w}, {{"auto_pad", Attribute::ofString("SAME_LOWER")}, {"strides", Attribute::ofInts({2})}});
    // out = ceil(4/2) = 2, total pad 1 -> at the start: windows [pad,1,2], [2,3,4].
    EXPECT_EQ(out[0].tensor.toFloatVector(), (std::vector<float>{3, 9}));
}

TEST(NnKernels, ConvTransposeStrided) {
    Tensor x = Tensor::fromVector<float>({1, 1, 2}, {1, 2});
    Tensor w = Tensor::fromVector<float>({1, 1, 3}, {1, 10, 100});
    auto out = run("ConvTranspose", {x, w}, {{"strides", Attribute::ofInts({2})}});
    EXPECT_EQ(out[0].tensor.shape(), (Shape{1, 1, 5}));
    EXPECT_EQ(out[0].tensor.toFloatVector(), (std::vector<float>{1, 10, 102, 20, 200}));
}

TEST(NnKernels, MatMulBroadcastsVector) {
    Tensor a = Tensor::fromVector<float>({2}, {1, 2});
    Tensor b = Tensor::fromVector<float>({3, 2, 1}, {1, 1, 2, 2, 3, 3});
    auto out = run("MatMul", {a, b});
    EXPECT_EQ(out[0].tensor.shape(), (Shape{3, 1}));
    EXPECT_EQ(out[0].tensor.toFloatVector(), (std::vector<float>{3, 6, 9}));
}

TEST(NnKernels, GemmTransposedWithBias) {
    Tensor a = Tensor::fromVector<float>({2, 1}, {1, 2});  // transA -> [1, 2]
    Tensor b = Tensor::fromVector<float>({2, 2}, {1, 2, 3, 4});
    Tensor c = Tensor::scalar<float>(1.0f);
    Attribute alpha;
    alpha.kind = Attribute::Kind::Float;
    alpha.f = 2.0f;
    auto out = run("Gemm", {a, b, c}, {{"transA", Attribute::ofInt(1)}, {"alpha", alpha}});
    EXPECT_EQ(out[0].tensor.toFloatVector(), (std::vector<float>{15, 21}));
}

TEST(NnKernels, QuantizeRoundsHalfToEvenAndSaturates) {
    Tensor x = Tensor::fromVector<float>({5}, {1.0f, 3.0f, 5.0f, -1000.0f, 1000.0f});
    Tensor scale = Tensor::scalar<float>(2.0f);
    Tensor zero = Tensor::scalar<int8_t>(0);
    auto out = run("QuantizeLinear", {x, scale, zero});
    const int8_t* y = out[0].tensor.data<int8_t>();
    EXPECT_EQ(y[0], 0);  // 0.5 -> 0
    EXPECT_EQ(y[1], 2);  // 1.5 -> 2
    EXPECT_EQ(y[2], 2);  // 2.5 -> 2
    EXPECT_EQ(y[3], -128);
    EXPECT_EQ(y[4], 127);
}

TEST(NnKernels, MaxPoolIndicesColumnMajor) {
    Tensor x = Tensor::fromVector<float>({1, 1, 2, 3}, {1, 9, 2, 3, 4, 8});
    auto out = run("MaxPool", {x}, {{"kernel_shape", Attribute::ofInts({2, 2})}, {"storage_order", Attribute::ofInt(1)}}, 2);
    EXPECT_EQ(out[0].tensor.toFloatVector(), (std::vector<float>{9, 9}));
    // 9 is at (h=0, w=1): column-major index h + w * H = 2.
    EXPECT_EQ(out[1].tensor.toInt64Vector(), (std::vector<int64_t>{2, 2}));
}

TEST(NnKernels, AveragePoolExcludesPadding) {
    Tensor x = Tensor::fromVector<float>({1, 1, 3}, {2, 4, 6});
    auto out = run("AveragePool", {x}, {{"kernel_shape", Attribute::ofInts({2})}, {"pads", Attribute::ofInts({1, 1})}});
    EXPECT_EQ(out[0].tensor.toFloatVector(), (std::vector<float>{2, 3, 5, 6}));
}

TEST(NnKernels, LayerNormalizationOutputsStatistics) {
    Tensor x = Tensor::fromVector<float>({2, 2}, {1, 3, 2, 2});
    Tensor scale = Tensor::fromVector<float>({2}, {1, 1});
    Attribute eps;
    eps.kind = Attribute::Kind::Float;
    eps.f = 0.0f;
    auto out = run("LayerNormalization", {x, scale}, {{"epsilon", eps}}, 3);
    std::vector<float> y = out[0].tensor.toFloatVector();
    EXPECT_FLOAT_EQ(y[0], -1.0f);
    EXPECT_FLOAT_EQ(y[1], 1.0f);
    EXPECT_EQ(out[1].tensor.shape(), (Shape{2, 1}));
    EXPECT_EQ(out[1].tensor.toFloatVector(), (std::vector<float>{2, 2}));
    EXPECT_TRUE(std::isinf(out[2].tensor.toFloatVector()[1]));  // zero variance, zero epsilon
}

TEST(NnKernels, LargeConvMatchesNaiveLoop) {
    // Big enough that the unfolded column matrix is processed in several row blocks; strided, dilated, padded.
    const int64_t c = 64, h = 100, w = 100, k = 3;
    std::vector<float> xv(static_cast<size_t>(c * h * w)), wv(static_cast<size_t>(2 * c * k * k));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 7919) % 13) - 6.0f;
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 104729) % 5) - 2.0f;
    Tensor x = Tensor::fromVector<float>({1, c, h, w}, xv);
    Tensor wt = Tensor::fromVector<float>({2, c, k, k}, wv);
    auto out = run("Conv", {x, wt}, {{"pads", Attribute::ofInts({1, 2, 1, 2})}, {"dilations", Attribute::ofInts({1, 2})}, {"strides", Attribute::ofInts({1, 1})}});
    const Tensor& y = out[0].tensor;
    const int64_t oh = h + 2 - 3 + 1, ow = w + 4 - 5 + 1;
    ASSERT_EQ(y.shape(), (Shape{1, 2, oh, ow}));
    const float* yp = y.data<float>();
    for (int64_t m = 0; m < 2; ++m)
        for (int64_t i = 0; i < oh; i += 7)
            for (int64_t j = 0; j < ow; j += 3) {
                double ref = 0;
                for (int64_t ch = 0; ch < c; ++ch)
                    for (int64_t a = 0; a < k; ++a)
                        for (int64_t b = 0; b < k; ++b) {
                            int64_t ii = i + a - 1, jj = j + 2 * b - 2;
                            if (ii < 0 || ii >= h || jj < 0 || jj >= w) continue;
                            ref += xv[static_cast<size_t>((ch * h + ii) * w + jj)] *
                                   wv[static_cast<size_t>(((m * c + ch) * k + a) * k + b)];
                        }
                ASSERT_FLOAT_EQ(yp[(m * oh + i) * ow + j], static_cast<float>(ref)) << m << " " << i << " " << j;
            }
}
