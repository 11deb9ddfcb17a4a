// Hand-computed checks of the shape and data-movement kernels (engine/ops/tensor) through the registry.
#include <gtest/gtest.h>

#include "ops/Kernel.h"

using namespace npuwb;

namespace {

/// Runs a registered kernel on tensors; absent optional inputs are passed as nullptr via `present`.
struct KernelRun {
    Node node;
    std::vector<Value> inputs;
    std::vector<Value> outputs;

    KernelRun(const std::string& op, std::vector<Tensor> in, size_t outputCount = 1, int64_t opset = 17,
        std::map<std::string, Attribute> attrs = {}) {
        node.opType = op;
        node.attributes = std::move(attrs);
        for (size_t i = 0; i < in.size(); ++i) {
            node.inputs.push_back(in[i].defined() ? "in" + std::to_string(i) : "");
            inputs.emplace_back(std::move(in[i]));
        }
        for (size_t i = 0; i < outputCount; ++i) node.outputs.push_back("out" + std::to_string(i));
        std::vector<const Value*> ptrs;
        for (const Value& v : inputs) ptrs.push_back(v.tensor.defined() ? &v : nullptr);
        KernelFn fn = KernelRegistry::instance().find("", op);
        if (!fn) throw std::runtime_error("no kernel " + op);
        KernelContext ctx(node, opset, ptrs, nullptr);
        fn(ctx);
        outputs = ctx.outputs();
    }
    const Tensor& out(size_t i = 0) const { return outputs[i].tensor; }
};

Tensor i64(Shape s, std::vector<int64_t> v) { return Tensor::fromVector<int64_t>(std::move(s), v); }
Tensor f32(Shape s, std::vector<float> v) { return Tensor::fromVector<float>(std::move(s), v); }
template <class T> std::vector<T> vals(const Tensor& t) { return {t.values<T>().begin(), t.values<T>().end()}; }

}  // namespace

TEST(TensorOps, ReshapeHandlesZeroAndMinusOne) {
    KernelRun r("Reshape", {f32({2, 3, 4}, std::vector<float>(24, 1.f)), i64({3}, {0, -1, 2})});
    EXPECT_EQ(r.out().shape(), (Shape{2, 6, 2}));
    KernelRun z("Reshape", {f32({0, 3}, {}), i64({2}, {3, 0})}, 1, 14, {{"allowzero", Attribute::ofInt(1)}});
    EXPECT_EQ(z.out().shape(), (Shape{3, 0}));
}

TEST(TensorOps, TransposeDefaultReversesAxes) {
    KernelRun r("Transpose", {f32({2, 3}, {1, 2, 3, 4, 5, 6})});
    EXPECT_EQ(r.out().shape(), (Shape{3, 2}));
    EXPECT_EQ(vals<float>(r.out()), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(TensorOps, SliceWithNegativeStepAndClamping) {
    Tensor x = f32({5}, {0, 1, 2, 3, 4});
    KernelRun r("Slice", {x, i64({1}, {100}), i64({1}, {-100}), i64({1}, {0}), i64({1}, {-2})});
    EXPECT_EQ(vals<float>(r.out()), (std::vector<float>{4, 2, 0}));
    KernelRun old("Slice", {x}, 1, 9, {{"starts", Attribute::ofInts({1})}, {"ends", Attribute::ofInts({INT64_MAX})}});
    EXPECT_EQ(vals<float>(old.out()), (std::vector<float>{1, 2, 3, 4}));
}

TEST(TensorOps, ConcatAndUnevenSplit) {
    KernelRun c("Concat", {f32({1, 2}, {1, 2}), f32({1, 1}, {3})}, 1, 13, {{"axis", Attribute::ofInt(-1)}});
    EXPECT_EQ(vals<float>(c.out()), (std::vector<float>{1, 2, 3}));
    KernelRun s("Split", {f32({5}, {1, 2, 3, 4, 5})}, 2, 18, {{"num_outputs", Attribute::ofInt(2)}});
    EXPECT_EQ(vals<float>(s.out(0)), (std::vector<float>{1, 2, 3}));
    EXPECT_EQ(vals<float>(s.out(1)), (std::vector<float>{4, 5}));
}

TEST(TensorOps, PadReflectAndEdge) {
    Tensor x = f32({3}, {1, 2, 3});
    KernelRun r("Pad", {x, i64({2}, {2, 1})}, 1, 13, {{"mode", Attribute::ofString("reflect")}});
    EXPECT_EQ(vals<float>(r.out()), (std::vector<float>{3, 2, 1, 2, 3, 2}));
    KernelRun e("Pad", {x, i64({2}, {1, -1})}, 1, 13, {{"mode", Attribute::ofString("edge")}});
    EXPECT_EQ(vals<float>(e.out()), (std::vector<float>{1, 1, 2}));
}

TEST(TensorOps, GatherNegativeIndicesAndGatherND) {
    KernelRun g("Gather", {f32({3, 2}, {1, 2, 3, 4, 5, 6}), i64({2}, {-1, 0})});
    EXPECT_EQ(vals<float>(g.out()), (std::vector<float>{5, 6, 1, 2}));
    KernelRun nd("GatherND", {f32({2, 2}, {1, 2, 3, 4}), i64({2, 1}, {1, 0})});
    EXPECT_EQ(vals<float>(nd.out()), (std::vector<float>{3, 4, 1, 2}));
}

TEST(TensorOps, ScatterNDAdd) {
    KernelRun r("ScatterND", {f32({4}, {1, 2, 3, 4}), i64({2, 1}, {1, 1}), f32({2}, {10, 20})}, 1, 16,
          {{"reduction", Attribute::ofString("add")}});
    EXPECT_EQ(vals<float>(r.out()), (std::vector<float>{1, 32, 3, 4}));
}

TEST(TensorOps, TopKPrefersLowerIndexOnTies) {
    KernelRun r("TopK", {f32({4}, {1, 3, 3, 2}), i64({1}, {2})}, 2, 11);
    EXPECT_EQ(vals<float>(r.out(0)), (std::vector<float>{3, 3}));
    EXPECT_EQ(vals<int64_t>(r.out(1)), (std::vector<int64_t>{1, 2}));
}

TEST(TensorOps, UniqueUnsortedKeepsFirstOccurrenceOrder) {
    KernelRun r("Unique", {f32({6}, {2, 1, 1, 3, 4, 3})}, 4, 11, {{"sorted", Attribute::ofInt(0)}});
    EXPECT_EQ(vals<float>(r.out(0)), (std::vector<float>{2, 1, 3, 4}));
    EXPECT_EQ(vals<int64_t>(r.out(1)), (std::vector<int64_t>{0, 1, 3, 4}));
    EXPECT_EQ(vals<int64_t>(r.out(2)), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
    EXPECT_EQ(vals<int64_t>(r.out(3)), (std::vector<int64_t>{1, 2, 2, 1}));
}

TEST(TensorOps, ResizeNearestUpsample) {
    Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
    KernelRun r("Resize", {x, Tensor(), f32({4}, {1, 1, 2, 2})}, 1, 13, {{"mode", Attribute::ofString("nearest")}});
    EXPECT_EQ(r.out().shape(), (Shape{1, 1, 4, 4}));
    EXPECT_EQ(vals<float>(r.out()), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(TensorOps, NonMaxSuppressionSuppressesOverlaps) {
    Tensor boxes = f32({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11});
    Tensor scores = f32({1, 1, 3}, {0.9f, 0.8f, 0.7f});
    KernelRun r("NonMaxSuppression", {boxes, scores, i64({1}, {3}), f32({1}, {0.5f})});
    EXPECT_EQ(vals<int64_t>(r.out()), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
}

TEST(TensorOps, BadInputThrowsInsteadOfAborting) {
    EXPECT_THROW(KernelRun("Reshape", {f32({4}, {1, 2, 3, 4}), i64({1}, {3})}), Error);
    EXPECT_THROW(KernelRun("Gather", {f32({2}, {1, 2}), i64({1}, {5})}), Error);
    EXPECT_THROW(KernelRun("Transpose", {f32({2, 2}, {1, 2, 3, 4})}, 1, 13, {{"perm", Attribute::ofInts({0, 0})}}), Error);
}

TEST(TensorOps, FlattenNegativeAxisCountsFromRank) {
    KernelRun r("Flatten", {f32({2, 3, 4}, std::vector<float>(24, 0.f))}, 1, 13, {{"axis", Attribute::ofInt(-1)}});
    EXPECT_EQ(r.out().shape(), (Shape{6, 4}));
}

TEST(TensorOps, PadWrapRepeatsFromTheOtherSide) {
    KernelRun r("Pad", {f32({3}, {1, 2, 3}), i64({2}, {2, 1})}, 1, 19, {{"mode", Attribute::ofString("wrap")}});
    EXPECT_EQ(vals<float>(r.out()), (std::vector<float>{2, 3, 1, 2, 3, 1}));
}

TEST(TensorOps, DropoutInferenceIsIdentityWithAllTrueMask) {
    KernelRun r("Dropout", {f32({3}, {1, 2, 3}), f32({}, {0.5f})}, 2, 13);
    EXPECT_EQ(vals<float>(r.out(0)), (std::vector<float>{1, 2, 3}));
    EXPECT_EQ(r.out(1).dtype(), DType::Bool);
    for (bool m : r.out(1).values<bool>()) EXPECT_TRUE(m);
}
