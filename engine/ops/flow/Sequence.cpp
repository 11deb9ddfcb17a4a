// Sequence ops (a Value of kind Sequence holds a std::vector<Tensor>) and SequenceMap, which runs a body per element.
#include "npuwb/Limits.h"
#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/flow/FlowUtil.h"

namespace npuwb {
namespace {

const std::vector<Tensor>& inputSequence(const KernelContext& ctx, size_t i) {
    const Value& v = ctx.inputValue(i);
    if (!v.isSequence()) ctx.fail("input " + std::to_string(i) + " must be a sequence");
    return v.sequence;
}

Value sequenceOf(std::vector<Tensor> items, DType elementType) {
    Value v = Value::makeSequence(std::move(items));
    v.noneElementType = elementType;
    return v;
}

/// Position input `i` (default `fallback`) mapped into [0, limit]; negative positions count from the back.
int64_t positionInput(const KernelContext& ctx, size_t i, int64_t size, int64_t fallback, bool allowEnd) {
    if (!ctx.hasInput(i)) return fallback;
    int64_t p = ctx.input(i).elementAsInt(0);
    if (p < 0) p += size;
    int64_t limit = allowEnd ? size : size - 1;
    if (p < 0 || p > limit) ctx.fail("position " + std::to_string(ctx.input(i).elementAsInt(0)) +
                                     " is out of range for a sequence of " + std::to_string(size));
    return p;
}

void sequenceConstruct(KernelContext& ctx) {
    std::vector<Tensor> items;
    for (size_t i = 0; i < ctx.inputCount(); ++i) items.push_back(ctx.input(i));
    DType type = items.empty() ? DType::Undefined : items[0].dtype();
    ctx.setOutputValue(0, sequenceOf(std::move(items), type));
}

void sequenceEmpty(KernelContext& ctx) {
    DType type = dtypeFromOnnxCode(ctx.attrInt("dtype", 1));
    if (type == DType::Undefined) ctx.failUnsupported("unsupported dtype attribute");
    ctx.setOutputValue(0, sequenceOf({}, type));
}

void sequenceAt(KernelContext& ctx) {
    const auto& seq = inputSequence(ctx, 0);
    int64_t n = static_cast<int64_t>(seq.size());
    if (!ctx.hasInput(1)) ctx.fail("position is required");
    int64_t p = positionInput(ctx, 1, n, 0, false);
    ctx.setOutput(0, seq[static_cast<size_t>(p)]);
}

void sequenceInsert(KernelContext& ctx) {
    const Value& in = ctx.inputValue(0);
    if (!in.isSequence()) ctx.fail("input 0 must be a sequence");
    std::vector<Tensor> items = in.sequence;
    const Tensor& t = ctx.input(1);
    int64_t n = static_cast<int64_t>(items.size());
    int64_t p = positionInput(ctx, 2, n, n, true);
    items.insert(items.begin() + p, t);
    ctx.setOutputValue(0, sequenceOf(std::move(items), t.dtype()));
}

void sequenceErase(KernelContext& ctx) {
    const Value& in = ctx.inputValue(0);
    if (!in.isSequence()) ctx.fail("input 0 must be a sequence");
    std::vector<Tensor> items = in.sequence;
    int64_t n = static_cast<int64_t>(items.size());
    if (n == 0) ctx.fail("cannot erase from an empty sequence");
    int64_t p = positionInput(ctx, 1, n, n - 1, false);
    items.erase(items.begin() + p);
    ctx.setOutputValue(0, sequenceOf(std::move(items), in.noneElementType));
}

void sequenceLength(KernelContext& ctx) {
    ctx.setOutput(0, Tensor::scalar<int64_t>(static_cast<int64_t>(inputSequence(ctx, 0).size())));
}

void splitToSequence(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    auto rank = static_cast<int64_t>(x.rank());
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 0), rank);
    int64_t dim = x.shape()[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (!ctx.hasInput(1)) {
        sizes.assign(static_cast<size_t>(dim), 1);
        squeeze = ctx.attrInt("keepdims", 1) == 0;
    } else if (ctx.input(1).rank() == 0) {
        int64_t chunk = ctx.input(1).elementAsInt(0);
        if (chunk <= 0) ctx.fail("split must be positive");
        for (int64_t at = 0; at < dim; at += chunk) sizes.push_back(std::min(chunk, dim - at));
    } else {
        sizes = ctx.input(1).toInt64Vector();
        int64_t total = 0;
        for (int64_t s : sizes) {
            if (s < 0) ctx.fail("split sizes must not be negative");
            total += s;
        }
        if (total != dim) ctx.fail("split sizes do not add up to the axis length " + std::to_string(dim));
    }
    std::vector<Tensor> items;
    int64_t at = 0;
    items.reserve(sizes.size());
    for (int64_t s : sizes) {
        // A long axis split one by one makes as many tensors: keep it cancellable and within the run's deadline.
        if (items.size() % 4096 == 4095) checkRunLimits();
        Tensor part = flow::sliceAlongAxis(x, axis, at, at + s);
        if (squeeze) {
            Shape shape = part.shape();
            shape.erase(shape.begin() + axis);
            part = part.reshaped(shape);
        }
        items.push_back(std::move(part));
        at += s;
    }
    ctx.setOutputValue(0, sequenceOf(std::move(items), x.dtype()));
}

void concatFromSequence(KernelContext& ctx) {
    const auto& seq = inputSequence(ctx, 0);
    if (seq.empty()) ctx.fail("cannot concatenate an empty sequence");
    auto rank = static_cast<int64_t>(seq[0].rank());
    bool newAxis = ctx.attrInt("new_axis", 0) != 0;
    if (!ctx.hasAttr("axis")) ctx.fail("attribute 'axis' is required");
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 0), rank, /*allowEnd=*/newAxis);
    ctx.setOutput(0, newAxis ? flow::stackTensors(seq, axis) : flow::concatTensors(seq, axis));
}

/// Runs the body once per element of the input sequence; extra inputs are sequences (indexed alongside) or tensors
/// (passed whole). Every body output becomes a sequence.
void sequenceMap(KernelContext& ctx) {
    const Graph* body = ctx.node().attrGraph("body");
    if (!body) ctx.fail("attribute 'body' (a graph) is missing");
    size_t n = inputSequence(ctx, 0).size();
    for (size_t i = 1; i < ctx.inputCount(); ++i) {
        const Value& v = ctx.inputValue(i);
        if (v.isSequence() && v.sequence.size() != n) ctx.fail("all input sequences must have the same length");
    }
    std::vector<std::vector<Tensor>> results(body->outputs.size());
    for (size_t e = 0; e < n; ++e) {
        std::vector<Value> inputs;
        for (size_t i = 0; i < ctx.inputCount(); ++i) {
            const Value& v = ctx.inputValue(i);
            inputs.push_back(v.isSequence() ? Value(v.sequence[e]) : v);
        }
        std::vector<Value> out = ctx.runSubgraph(*body, inputs);
        for (size_t k = 0; k < results.size() && k < out.size(); ++k) {
            if (!out[k].isTensor()) ctx.failUnsupported("SequenceMap bodies must return tensors");
            results[k].push_back(std::move(out[k].tensor));
        }
    }
    for (size_t k = 0; k < results.size(); ++k) {
        DType type = body->outputs[k].type.dtype;
        if (!results[k].empty()) type = results[k][0].dtype();
        ctx.setOutputValue(k, sequenceOf(std::move(results[k]), type));
    }
}

}  // namespace

NPUWB_KERNEL("SequenceConstruct", sequenceConstruct);
NPUWB_KERNEL("SequenceEmpty", sequenceEmpty);
NPUWB_KERNEL("SequenceAt", sequenceAt);
NPUWB_KERNEL("SequenceInsert", sequenceInsert);
NPUWB_KERNEL("SequenceErase", sequenceErase);
NPUWB_KERNEL("SequenceLength", sequenceLength);
NPUWB_KERNEL("SplitToSequence", splitToSequence);
NPUWB_KERNEL("ConcatFromSequence", concatFromSequence);
NPUWB_KERNEL("SequenceMap", sequenceMap);

}  // namespace npuwb
