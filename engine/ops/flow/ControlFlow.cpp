// If and Loop: run attribute subgraphs through the executor (ctx.runSubgraph). Values flowing through them may be
// tensors, sequences or optionals (an optional holding a value is that value; an empty one is Value::none()).
#include <limits>

#include "npuwb/Limits.h"
#include "ops/Kernel.h"
#include "ops/flow/FlowUtil.h"

namespace npuwb {
namespace {

const Graph& requireGraph(const KernelContext& ctx, const char* name) {
    const Graph* g = ctx.node().attrGraph(name);
    if (!g) ctx.fail(std::string("attribute '") + name + "' (a graph) is missing");
    return *g;
}

bool scalarTrue(const KernelContext& ctx, const Value& v, const char* what) {
    if (!v.isTensor() || v.tensor.numel() < 1) ctx.fail(std::string(what) + " must be a non-empty tensor");
    return v.tensor.elementAsInt(0) != 0;
}

void ifOp(KernelContext& ctx) {
    bool cond = scalarTrue(ctx, ctx.inputValue(0), "the condition");
    const Graph& branch = requireGraph(ctx, cond ? "then_branch" : "else_branch");
    std::vector<Value> results = ctx.runSubgraph(branch, {});
    if (results.size() < ctx.outputCount())
        ctx.fail("the branch returns " + std::to_string(results.size()) + " values, the node expects " +
                 std::to_string(ctx.outputCount()));
    for (size_t i = 0; i < ctx.outputCount(); ++i) ctx.setOutputValue(i, std::move(results[i]));
}

/// An empty scan output for a loop that ran zero times: shape [0, declared dims...] (unknown dims become 0).
Tensor emptyScanOutput(const ValueInfo& declared) {
    Shape shape{0};
    if (declared.type.shape)
        for (const Dim& d : *declared.type.shape) shape.push_back(d.known() ? d.value : 0);
    DType dtype = declared.type.dtype == DType::Undefined ? DType::F32 : declared.type.dtype;
    return Tensor(dtype, shape);
}

void loopOp(KernelContext& ctx) {
    const Graph& body = requireGraph(ctx, "body");
    int64_t maxTrips = std::numeric_limits<int64_t>::max();
    if (ctx.hasInput(0)) maxTrips = ctx.input(0).elementAsInt(0);
    bool cond = ctx.hasInput(1) ? scalarTrue(ctx, ctx.inputValue(1), "the loop condition") : true;

    size_t nCarried = ctx.inputCount() > 2 ? ctx.inputCount() - 2 : 0;
    if (body.inputs.size() != nCarried + 2)
        ctx.fail("the body takes " + std::to_string(body.inputs.size()) + " inputs, expected " +
                 std::to_string(nCarried + 2));
    if (body.outputs.size() < nCarried + 1) ctx.fail("the body returns too few outputs");
    size_t nScan = body.outputs.size() - 1 - nCarried;

    std::vector<Value> carried;
    for (size_t i = 0; i < nCarried; ++i) carried.push_back(ctx.hasInput(i + 2) ? ctx.inputValue(i + 2) : Value::none());
    std::vector<std::vector<Tensor>> scans(nScan);

    for (int64_t iter = 0; iter < maxTrips && cond; ++iter) {
        countLoopIteration(ctx.node().label());  // cancel, time limit and estimation's iteration cap
        std::vector<Value> inputs;
        inputs.reserve(nCarried + 2);
        inputs.emplace_back(Tensor::scalar<int64_t>(iter));
        inputs.emplace_back(Tensor::scalar<bool>(cond));
        for (Value& v : carried) inputs.push_back(std::move(v));
        std::vector<Value> out = ctx.runSubgraph(body, inputs);
        if (out.size() != body.outputs.size()) ctx.fail("the body returned an unexpected number of values");
        cond = scalarTrue(ctx, out[0], "the body's condition output");
        for (size_t i = 0; i < nCarried; ++i) carried[i] = std::move(out[1 + i]);
        for (size_t k = 0; k < nScan; ++k) {
            Value& v = out[1 + nCarried + k];
            if (!v.isTensor()) ctx.failUnsupported("scan outputs of a Loop must be tensors");
            scans[k].push_back(std::move(v.tensor));
        }
    }

    for (size_t i = 0; i < nCarried; ++i) ctx.setOutputValue(i, std::move(carried[i]));
    for (size_t k = 0; k < nScan; ++k) {
        if (scans[k].empty()) ctx.setOutput(nCarried + k, emptyScanOutput(body.outputs[1 + nCarried + k]));
        else ctx.setOutput(nCarried + k, flow::stackTensors(scans[k], 0));
    }
}

}  // namespace

NPUWB_KERNEL("If", ifOp);
NPUWB_KERNEL("Loop", loopOp);

}  // namespace npuwb
