// Hand-computed checks of the "flow" kernels (engine/ops/flow): sequences, optionals, control flow with a fake
// subgraph runner, a one-step RNN, windows, DFT, strings and an optimizer step.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/Kernel.h"

using namespace npuwb;

namespace {

struct FlowRun {
    Node node;
    std::vector<Value> inputs;
    std::vector<Value> outputs;

    FlowRun(const std::string& op, std::vector<Value> in, size_t outputCount = 1,
            std::map<std::string, Attribute> attrs = {}, KernelContext::SubgraphRunner runner = nullptr,
            const std::string& domain = "", int64_t opset = 17) {
        node.opType = op;
        node.domain = domain;
        node.attributes = std::move(attrs);
        inputs = std::move(in);
        std::vector<const Value*> ptrs;
        for (size_t i = 0; i < inputs.size(); ++i) {
            bool absent = inputs[i].isTensor() && !inputs[i].tensor.defined();
            node.inputs.push_back(absent ? "" : "in" + std::to_string(i));
            ptrs.push_back(absent ? nullptr : &inputs[i]);
        }
        for (size_t i = 0; i < outputCount; ++i) node.outputs.push_back("out" + std::to_string(i));
        KernelFn fn = KernelRegistry::instance().find(domain, op);
        if (!fn) throw std::runtime_error("no kernel " + op);
        KernelContext ctx(node, opset, ptrs, std::move(runner));
        fn(ctx);
        outputs = ctx.outputs();
    }
    const Tensor& out(size_t i = 0) const { return outputs[i].tensor; }
};

Attribute graphAttr(size_t inputs, size_t outputs) {
    Attribute a;
    a.kind = Attribute::Kind::Graph;
    a.g = std::make_shared<Graph>();
    a.g->inputs.resize(inputs);
    a.g->outputs.resize(outputs);
    return a;
}

TEST(FlowSequence, InsertAtEraseLength) {
    Value seq = Value::makeSequence({Tensor::fromVector<float>({1}, {1.f}), Tensor::fromVector<float>({1}, {2.f})});
    FlowRun ins("SequenceInsert", {seq, Tensor::fromVector<float>({1}, {9.f}), Tensor::scalar<int64_t>(-1)});
    ASSERT_TRUE(ins.outputs[0].isSequence());
    ASSERT_EQ(ins.outputs[0].sequence.size(), 3u);
    EXPECT_EQ(ins.outputs[0].sequence[1].data<float>()[0], 9.f);
    FlowRun at("SequenceAt", {ins.outputs[0], Tensor::scalar<int32_t>(-1)});
    EXPECT_EQ(at.out().data<float>()[0], 2.f);
    FlowRun erase("SequenceErase", {ins.outputs[0]});
    FlowRun len("SequenceLength", {erase.outputs[0]});
    EXPECT_EQ(len.out().data<int64_t>()[0], 2);
}

TEST(FlowSequence, SplitAndConcat) {
    Tensor x = Tensor::fromVector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
    FlowRun split("SplitToSequence", {x, Tensor::scalar<int64_t>(2)}, 1, {{"axis", Attribute::ofInt(1)}});
    ASSERT_EQ(split.outputs[0].sequence.size(), 2u);
    EXPECT_EQ(split.outputs[0].sequence[0].shape(), (Shape{2, 2}));
    EXPECT_EQ(split.outputs[0].sequence[1].shape(), (Shape{2, 1}));
    EXPECT_EQ(split.outputs[0].sequence[1].data<int32_t>()[1], 6);
    FlowRun cat("ConcatFromSequence", {split.outputs[0]}, 1, {{"axis", Attribute::ofInt(1)}});
    EXPECT_EQ(cat.out().shape(), (Shape{2, 3}));
    EXPECT_EQ(cat.out().data<int32_t>()[4], 5);
    FlowRun stack("ConcatFromSequence", {Value::makeSequence({x, x})}, 1, {{"axis", Attribute::ofInt(-1)}, {"new_axis", Attribute::ofInt(1)}});
    EXPECT_EQ(stack.out().shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(stack.out().data<int32_t>()[3], 2);
}

TEST(FlowOptional, HasAndGet) {
    FlowRun empty("OptionalHasElement", {Value::none()});
    EXPECT_FALSE(empty.out().data<bool>()[0]);
    FlowRun full("OptionalHasElement", {Tensor::scalar<float>(1.f)});
    EXPECT_TRUE(full.out().data<bool>()[0]);
    EXPECT_THROW(FlowRun("OptionalGetElement", {Value::none()}), Error);
}

TEST(FlowControl, LoopAccumulatesAndScans) {
    // body(i, cond, acc) = (cond, acc + i, acc + i): sums 0..3
    auto body = [](const Graph&, const std::vector<Value>& in) {
        Tensor acc = Tensor::scalar<int64_t>(in[2].tensor.data<int64_t>()[0] + in[0].tensor.data<int64_t>()[0]);
        return std::vector<Value>{in[1], acc, acc};
    };
    FlowRun loop("Loop", {Tensor::scalar<int64_t>(4), Tensor(), Tensor::scalar<int64_t>(0)}, 2,
                 {{"body", graphAttr(3, 3)}}, body);
    EXPECT_EQ(loop.out(0).data<int64_t>()[0], 6);
    EXPECT_EQ(loop.out(1).shape(), (Shape{4}));
    EXPECT_EQ(loop.out(1).data<int64_t>()[2], 3);
}

TEST(FlowControl, ScanReverseInput) {
    // body(sum, x) = (sum + x, sum + x) over x = [1, 2, 3] read backwards
    auto body = [](const Graph&, const std::vector<Value>& in) {
        Tensor s = Tensor::scalar<float>(in[0].tensor.data<float>()[0] + in[1].tensor.data<float>()[0]);
        return std::vector<Value>{s, s};
    };
    Attribute dirs;
    dirs.kind = Attribute::Kind::Ints;
    dirs.ints = {1};
    FlowRun scan("Scan", {Tensor::scalar<float>(0.f), Tensor::fromVector<float>({3}, {1.f, 2.f, 3.f})}, 2,
                 {{"body", graphAttr(2, 2)}, {"num_scan_inputs", Attribute::ofInt(1)}, {"scan_input_directions", dirs}}, body);
    EXPECT_EQ(scan.out(0).data<float>()[0], 6.f);
    EXPECT_EQ(scan.out(1).data<float>()[0], 3.f);
    EXPECT_EQ(scan.out(1).data<float>()[1], 5.f);
}

TEST(FlowRecurrent, RnnOneStep) {
    // hidden 1, input 1: h = tanh(w x + r h0 + wb + rb) = tanh(0.5 * 2 + 0 + 0.25 + 0.25)
    FlowRun rnn("RNN",
                {Tensor::fromVector<float>({1, 1, 1}, {2.f}), Tensor::fromVector<float>({1, 1, 1}, {0.5f}),
                 Tensor::fromVector<float>({1, 1, 1}, {3.f}), Tensor::fromVector<float>({1, 2}, {0.25f, 0.25f})},
                2, {{"hidden_size", Attribute::ofInt(1)}});
    EXPECT_NEAR(rnn.out(0).data<float>()[0], std::tanh(1.5f), 1e-6);
    EXPECT_EQ(rnn.out(1).shape(), (Shape{1, 1, 1}));
}

TEST(FlowSignal, HannWindowAndDft) {
    FlowRun hann("HannWindow", {Tensor::scalar<int32_t>(4)});
    EXPECT_NEAR(hann.out().data<float>()[2], 1.0f, 1e-6);
    EXPECT_NEAR(hann.out().data<float>()[1], 0.5f, 1e-6);
    // DFT of [1, 2, 3, 4] (real): [10, -2+2i, -2, -2-2i]
    FlowRun dft("DFT", {Tensor::fromVector<float>({1, 4, 1}, {1.f, 2.f, 3.f, 4.f})});
    const float* y = dft.out().data<float>();
    EXPECT_NEAR(y[0], 10.f, 1e-5);
    EXPECT_NEAR(y[2], -2.f, 1e-5);
    EXPECT_NEAR(y[3], 2.f, 1e-5);
    EXPECT_NEAR(y[7], -2.f, 1e-5);
}

TEST(FlowStrings, NormalizerAndTfIdf) {
    Tensor words(DType::String, {3});
    words.data<std::string>()[0] = "The";
    words.data<std::string>()[1] = "cat";
    words.data<std::string>()[2] = "the";
    Attribute stop;
    stop.kind = Attribute::Kind::Strings;
    stop.strings = {"the"};
    FlowRun norm("StringNormalizer", {words}, 1, {{"stopwords", stop}, {"case_change_action", Attribute::ofString("UPPER")}});
    ASSERT_EQ(norm.out().numel(), 1);
    EXPECT_EQ(norm.out().data<std::string>()[0], "CAT");

    Attribute counts, indexes, pool;
    counts.kind = indexes.kind = pool.kind = Attribute::Kind::Ints;
    counts.ints = {0, 2};
    indexes.ints = {0, 1, 2};
    pool.ints = {1, 2, 1, 2};  // unigrams 1, 2; bigram (1, 2)
    FlowRun tf("TfIdfVectorizer", {Tensor::fromVector<int64_t>({4}, {1, 2, 1, 2})}, 1,
               {{"mode", Attribute::ofString("TF")}, {"min_gram_length", Attribute::ofInt(1)}, {"max_gram_length", Attribute::ofInt(2)},
                {"max_skip_count", Attribute::ofInt(0)}, {"ngram_counts", counts}, {"ngram_indexes", indexes},
                {"pool_int64s", pool}});
    const float* y = tf.out().data<float>();
    EXPECT_EQ(y[0], 2.f);
    EXPECT_EQ(y[1], 2.f);
    EXPECT_EQ(y[2], 2.f);
}

TEST(FlowTraining, MomentumFirstStep) {
    FlowRun m("Momentum", {Tensor::scalar<float>(0.1f), Tensor::scalar<int64_t>(0), Tensor::fromVector<float>({1}, {1.f}),
                           Tensor::fromVector<float>({1}, {2.f}), Tensor::fromVector<float>({1}, {1.f})},
              2, {{"alpha", Attribute::ofInt(1)}, {"beta", Attribute::ofInt(0)}, {"norm_coefficient", Attribute::ofInt(0)}, {"mode", Attribute::ofString("standard")}},
              nullptr, "ai.onnx.preview.training");
    // v = 1 * 1 + 1 * 2 = 3; x = 1 - 0.1 * 3
    EXPECT_NEAR(m.out(1).data<float>()[0], 3.f, 1e-6);
    EXPECT_NEAR(m.out(0).data<float>()[0], 0.7f, 1e-6);
}

}  // namespace
