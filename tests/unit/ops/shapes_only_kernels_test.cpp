// Kernels registered with NPUWB_KERNEL_SHAPES: in shapes-only mode, with data-less placeholders for the inputs
// that matter by shape alone, they give the shapes (and types) a real run gives, and no data.
#include <gtest/gtest.h>

#include <random>

#include "ops/Kernel.h"
#include "passes/GraphEdit.h"

using namespace npuwb;

namespace {

struct OpCase {
    std::string op;
    std::vector<Tensor> inputs;
    std::vector<bool> byShape;  // inputs given as placeholders in shapes-only mode
    std::map<std::string, Attribute> attrs;
};

Tensor randomFloats(const Shape& shape, std::mt19937& rng) {
    Tensor t(DType::F32, shape);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (float& v : t.values<float>()) v = u(rng);
    return t;
}

Tensor int64s(std::vector<int64_t> v) { return Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); }

std::vector<Value> run(const OpCase& c, bool shapesOnly) {
    Node node;
    node.opType = c.op;
    node.attributes = c.attrs;
    node.outputs = {"y"};
    std::vector<Value> values;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        node.inputs.push_back(std::string(1, static_cast<char>('a' + i)));  // "x" + to_string(i) trips GCC 12's -Wrestrict
        const Tensor& t = c.inputs[i];
        values.emplace_back(shapesOnly && c.byShape[i] ? Tensor::view(t.dtype(), t.shape(), nullptr) : t);
    }
    std::vector<const Value*> ptrs;
    for (const Value& v : values) ptrs.push_back(&v);
    KernelContext ctx(node, 17, ptrs, nullptr);
    ctx.setShapesOnly(shapesOnly);
    KernelRegistry::instance().find("", c.op)(ctx);
    return ctx.outputs();
}

}  // namespace

TEST(ShapesOnlyKernels, GiveTheShapesOfARealRunWithoutData) {
    std::mt19937 rng(29);
    std::vector<OpCase> cases = {
        {"Conv", {randomFloats({1, 4, 9, 7}, rng), randomFloats({6, 2, 3, 3}, rng), randomFloats({6}, rng)},
         {true, true, true},
         {{"group", Attribute::ofInt(2)}, {"strides", Attribute::ofInts({2, 1})}, {"pads", Attribute::ofInts({1, 0, 1, 2})}}},
        {"MatMul", {randomFloats({2, 1, 5, 3}, rng), randomFloats({4, 3, 6}, rng)}, {true, true}, {}},
        {"Add", {randomFloats({3, 1, 5}, rng), randomFloats({4, 1}, rng)}, {true, true}, {}},
        {"Sub", {randomFloats({1, 4}, rng), randomFloats({3, 1}, rng)}, {true, true}, {}},
        {"Mul", {randomFloats({2, 3}, rng), randomFloats({}, rng)}, {true, true}, {}},
        {"Div", {randomFloats({2, 3}, rng), randomFloats({3}, rng)}, {true, true}, {}},
        {"Softmax", {randomFloats({2, 3, 4}, rng)}, {true}, {{"axis", Attribute::ofInt(1)}}},
        {"Relu", {randomFloats({5, 2}, rng)}, {true}, {}},
        {"Slice", {randomFloats({4, 6, 5}, rng), int64s({1, -4}), int64s({100, -1}), int64s({0, 2}), int64s({2, 1})},
         {true, false, false, false, false}, {}},
        {"Concat", {randomFloats({2, 3, 4}, rng), randomFloats({2, 5, 4}, rng)}, {true, true}, {{"axis", Attribute::ofInt(1)}}},
        {"QuantizeLinear", {randomFloats({2, 3, 4}, rng), Tensor::scalar<float>(0.01f), Tensor::scalar<int8_t>(3)},
         {true, true, true}, {}},
        {"DequantizeLinear",
         {Tensor::fromVector<uint8_t>({2, 3}, {0, 9, 200, 255, 7, 128}), Tensor::fromVector<float>({3}, {0.1f, 0.2f, 0.3f}),
          Tensor::fromVector<uint8_t>({3}, {128, 120, 0})},
         {true, true, true}, {}},
    };
    for (const auto& op : KernelRegistry::instance().opTypes()) {
        bool covered = false;
        for (const auto& c : cases) covered = covered || c.op == op;
        if (KernelRegistry::instance().handlesShapesOnly("", op)) {
            EXPECT_TRUE(covered) << op << " has no case here";
        }
    }
    for (const auto& c : cases) {
        ASSERT_TRUE(KernelRegistry::instance().handlesShapesOnly("", c.op)) << c.op;
        const Tensor real = run(c, false)[0].tensor;
        const Tensor shapes = run(c, true)[0].tensor;
        EXPECT_EQ(shapes.shape(), real.shape()) << c.op;
        EXPECT_EQ(shapes.dtype(), real.dtype()) << c.op;
        EXPECT_EQ(shapes.raw(), nullptr) << c.op << " computed in shapes-only mode";
        EXPECT_NE(real.raw(), nullptr) << c.op;
    }
}
