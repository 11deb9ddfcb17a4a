// cpu-xnnpack on multi-node graphs: one segment across layout changes (Flatten/Reshape between NHWC and
// row-major), fusion across a chain, fallbacks with reasons, thread-count independence and per-kernel timing.
#include <gtest/gtest.h>

#include "npuwb/Session.h"
#include "xnnpack_harness.h"

using namespace npuwb;
using namespace npuwb::test;

namespace {

std::string conv(GraphBuilder& b, std::mt19937& rng, const std::string& x, int64_t cin, int64_t cout, int64_t k,
                 int64_t stride, int64_t group = 1) {
    return b.node("Conv", {x, b.constant(randomTensor(rng, {cout, cin / group, k, k})),
                           b.constant(randomTensor(rng, {cout}))},
                  {{"strides", Attribute::ofInts({stride, stride})}, {"pads", Attribute::ofInts({k / 2, k / 2, k / 2, k / 2})},
                   {"group", Attribute::ofInt(group)}});
}

std::string batchNorm(GraphBuilder& b, std::mt19937& rng, const std::string& x, int64_t c) {
    return b.node("BatchNormalization", {x, b.constant(randomTensor(rng, {c}, 0.5f, 1.5f)),
                                         b.constant(randomTensor(rng, {c})), b.constant(randomTensor(rng, {c})),
                                         b.constant(randomTensor(rng, {c}, 0.5f, 2.0f))});
}

/// A small residual network: conv-bn-relu, maxpool, depthwise block with a residual Add, concat, GAP, Flatten, Gemm,
/// Softmax, built with seeded random sizes.
GraphBuilder residualNet(std::mt19937& rng, int64_t c) {
    GraphBuilder b(13);
    const int64_t hw = std::uniform_int_distribution<int64_t>(9, 23)(rng);
    std::string x = b.input(rng, {1, 3, hw, hw});
    x = b.node("Relu", {batchNorm(b, rng, conv(b, rng, x, 3, c, 3, 2), c)});
    x = b.node("MaxPool", {x}, {{"kernel_shape", Attribute::ofInts({3, 3})}, {"strides", Attribute::ofInts({2, 2})},
                                {"pads", Attribute::ofInts({1, 1, 1, 1})}});
    std::string y = b.node("Clip", {batchNorm(b, rng, conv(b, rng, x, c, c, 3, 1, c), c),
                                    b.constant(Tensor::scalar(0.0f)), b.constant(Tensor::scalar(6.0f))});
    y = batchNorm(b, rng, conv(b, rng, y, c, c, 1, 1), c);
    x = b.node("Relu", {b.node("Add", {x, y})});
    x = b.node("Concat", {x, b.node("HardSwish", {conv(b, rng, x, c, 7, 1, 1)})}, {{"axis", Attribute::ofInt(1)}});
    x = b.node("Flatten", {b.node("GlobalAveragePool", {x})});
    x = b.node("Gemm", {x, b.constant(randomTensor(rng, {17, c + 7})), b.constant(randomTensor(rng, {17}))},
               {{"transB", Attribute::ofInt(1)}});
    b.output(b.node("Softmax", {x}, {{"axis", Attribute::ofInt(1)}}));
    return b;
}

TEST(XnnNetwork, ResidualNetRunsAsOneSegment) {
    for (int64_t c : {3, 7, 17, 33}) {
        std::mt19937 rng(static_cast<unsigned>(c));
        const GraphBuilder b = residualNet(rng, c);
        auto backend = xnnpackBackend(2);
        const DiffResult r = runDifferential(*b.model(), b.inputs(), *backend);
        EXPECT_TRUE(r.fallbacks.empty()) << r.fallbackText();
        EXPECT_EQ(r.segments, 1u);
        EXPECT_EQ(r.segmentNodes, b.model()->graph.nodes.size());
        EXPECT_LE(r.worstError, 1e-4) << "C=" << c << " " << r.worstWhere;
    }
}

TEST(XnnNetwork, ThreadCountDoesNotChangeResults) {
    std::mt19937 rng(77);
    const GraphBuilder b = residualNet(rng, 17);
    for (int threads : {1, 2, 3}) {
        auto backend = xnnpackBackend(threads);
        const DiffResult r = runDifferential(*b.model(), b.inputs(), *backend);
        EXPECT_LE(r.worstError, 1e-4) << threads << " threads: " << r.worstWhere;
    }
}

TEST(XnnNetwork, ReshapesBetweenLayoutsStayInSegment) {
    for (int seed = 0; seed < 12; ++seed) {
        std::mt19937 rng(900 + seed);
        GraphBuilder b;
        const int64_t c = std::vector<int64_t>{3, 7, 17}[seed % 3], hw = 3 + seed % 4;
        std::string x = conv(b, rng, b.input(rng, {2, c, hw, hw}), c, c, 3, 1);
        if (seed % 2 == 0) {  // NHWC -> row-major -> NHWC
            x = b.node("Reshape", {x, b.constant(Tensor::fromVector<int64_t>({2}, {2, -1}))});
            x = b.node("Gemm", {x, b.constant(randomTensor(rng, {c * hw * hw, c * hw * hw}))});
            x = b.node("Reshape", {x, b.constant(Tensor::fromVector<int64_t>({4}, {2, c, hw, hw}))});
        } else {  // NHWC -> NHWC with different channels (goes through NCHW order)
            x = b.node("Reshape", {x, b.constant(Tensor::fromVector<int64_t>({4}, {2, c * hw, hw, 1}))});
        }
        b.output(conv(b, rng, x, seed % 2 == 0 ? c : c * hw, 5, 1, 1));
        auto backend = xnnpackBackend(2);
        const DiffResult r = runDifferential(*b.model(), b.inputs(), *backend);
        EXPECT_TRUE(r.fallbacks.empty()) << r.fallbackText();
        EXPECT_EQ(r.segments, 1u);
        EXPECT_LE(r.worstError, 1e-4) << "seed " << seed << " " << r.worstWhere;
    }
}

TEST(XnnNetwork, UnclaimedNodesFallBackWithReasonsAndSplitSegments) {
    std::mt19937 rng(5);
    GraphBuilder b;
    std::string x = conv(b, rng, b.input(rng, {1, 7, 9, 9}), 7, 7, 3, 1);
    x = b.node("LRN", {x}, {{"size", Attribute::ofInt(3)}});  // not an XNNPACK op
    x = b.node("AveragePool", {x}, {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})},
                                    {"count_include_pad", Attribute::ofInt(1)}});  // unsupported attribute
    x = conv(b, rng, x, 7, 5, 1, 1);
    b.output(x);
    auto backend = xnnpackBackend(2);
    const DiffResult r = runDifferential(*b.model(), b.inputs(), *backend);
    ASSERT_EQ(r.fallbacks.size(), 2u) << r.fallbackText();
    EXPECT_EQ(r.fallbacks[0].opType, "LRN");
    EXPECT_NE(r.fallbacks[0].reason.find("not implemented"), std::string::npos);
    EXPECT_EQ(r.fallbacks[1].opType, "AveragePool");
    EXPECT_NE(r.fallbacks[1].reason.find("count_include_pad"), std::string::npos);
    EXPECT_EQ(r.segments, 2u);
    EXPECT_LE(r.worstError, 1e-4) << r.worstWhere;
}

TEST(XnnNetwork, CapabilityQueryRejectsWhatItCannotRun) {
    auto backend = xnnpackBackend(1);
    Node conv1d;
    conv1d.opType = "Conv";
    conv1d.inputs = {"x", "w"};
    conv1d.outputs = {"y"};
    Tensor w(DType::F32, {4, 3, 3});
    NodeQuery q{conv1d, 17, {DType::F32, DType::F32}, {{1, 3, 10}, {4, 3, 3}}, {nullptr, &w}, {DType::F32}, {{1, 4, 8}}};
    const Capability c = backend->supports(q);
    EXPECT_FALSE(c.supported);
    EXPECT_FALSE(c.reason.empty());
    Node conv2d = conv1d;
    Tensor w2(DType::F32, {4, 3, 3, 3});
    NodeQuery q2{conv2d, 17, {DType::F32, DType::F32}, {{1, 3, 10, 10}, {4, 3, 3, 3}}, {nullptr, nullptr}, {DType::F32}, {{1, 4, 8, 8}}};
    EXPECT_FALSE(backend->supports(q2).supported) << "runtime weights must be refused";
    q2.constants = {nullptr, &w2};
    EXPECT_TRUE(backend->supports(q2).supported);
    q2.inputTypes = {DType::F16, DType::F32};
    EXPECT_FALSE(backend->supports(q2).supported);
}

class CountingSink final : public KernelTimingSink {
public:
    std::vector<std::vector<std::string>> kernels;
    void kernelTimed(const std::vector<std::string>& names, double us) override {
        EXPECT_GE(us, 0.0);
        kernels.push_back(names);
    }
};

TEST(XnnNetwork, FusedKernelsNameEveryNodeTheyCover) {
    std::mt19937 rng(11);
    GraphBuilder b;
    const std::string in = b.input(rng, {1, 3, 8, 8});
    const std::string c = conv(b, rng, in, 3, 7, 3, 1), n = batchNorm(b, rng, c, 7), r = b.node("Relu", {n});
    const std::string p = b.node("MaxPool", {r}, {{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})}});
    b.output(p);
    auto backend = xnnpackBackend(2);
    EXPECT_LE(runDifferential(*b.model(), b.inputs(), *backend).worstError, 1e-4);

    Session session(b.model());
    std::map<std::string, ValueDesc> descs;
    for (const auto& [name, t] : b.model()->graph.initializers) descs[name] = {t.dtype(), t.shape(), &t};
    descs[in] = {DType::F32, {1, 3, 8, 8}, nullptr};
    descs[c] = descs[n] = descs[r] = {DType::F32, {1, 7, 8, 8}, nullptr};
    descs[p] = {DType::F32, {1, 7, 4, 4}, nullptr};
    const GraphQuery q{b.model()->graph, 17, session.executionOrder(), [&](const std::string& v) -> const ValueDesc* {
                           return descs.count(v) ? &descs.at(v) : nullptr;
                       }};
    CompileResult compiled = backend->compile(q);
    ASSERT_EQ(compiled.segments.size(), 1u);
    std::vector<Tensor> outs(1);
    const Tensor& input = b.inputs().at(in);
    CountingSink sink;
    compiled.segments[0].prepared->run({&input}, outs, {.timing = &sink});
    ASSERT_EQ(sink.kernels.size(), 2u);  // conv+bn+relu, maxpool
    EXPECT_EQ(sink.kernels[0].size(), 3u);
    EXPECT_EQ(sink.kernels[1].size(), 1u);
    EXPECT_EQ(outs[0].shape(), (Shape{1, 7, 4, 4}));
}

}  // namespace
