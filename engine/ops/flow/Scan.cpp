// Scan: runs its body once per element of the scan inputs, threading state variables through and stacking the
// per-iteration scan outputs. Opset 8 has a leading batch axis and sequence_lens; opset 9+ scans along
// configurable axes and directions without a batch axis.
#include <algorithm>

#include "npuwb/Limits.h"
#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/flow/FlowUtil.h"

namespace npuwb {
namespace {

struct ScanSpec {
    std::vector<int64_t> inputAxes, inputReversed, outputAxes, outputReversed;
};

struct ScanResult {
    std::vector<Value> states;
    std::vector<Tensor> scanOutputs;
};

/// One scan over `seqLen` steps of `scanInputs` (no batch axis). Scan outputs are stacked along their axes.
ScanResult runScan(const KernelContext& ctx, const Graph& body, std::vector<Value> states,
                   const std::vector<Tensor>& scanInputs, int64_t seqLen, const ScanSpec& spec) {
    size_t nState = states.size(), nIn = scanInputs.size();
    if (body.inputs.size() != nState + nIn) ctx.fail("the body's input count does not match the node's inputs");
    if (body.outputs.size() < nState) ctx.fail("the body returns fewer outputs than there are state variables");
    size_t nOut = body.outputs.size() - nState;
    std::vector<std::vector<Tensor>> perStep(nOut);
    for (int64_t t = 0; t < seqLen; ++t) {
        checkRunLimits();
        std::vector<Value> inputs = states;
        for (size_t j = 0; j < nIn; ++j) {
            int64_t index = spec.inputReversed[j] ? seqLen - 1 - t : t;
            inputs.emplace_back(flow::takeAlongAxis(scanInputs[j], spec.inputAxes[j], index));
        }
        std::vector<Value> out = ctx.runSubgraph(body, inputs);
        if (out.size() != body.outputs.size()) ctx.fail("the body returned an unexpected number of values");
        for (size_t i = 0; i < nState; ++i) states[i] = std::move(out[i]);
        for (size_t k = 0; k < nOut; ++k) {
            if (!out[nState + k].isTensor()) ctx.failUnsupported("scan outputs must be tensors");
            perStep[k].push_back(std::move(out[nState + k].tensor));
        }
    }
    ScanResult result{std::move(states), {}};
    for (size_t k = 0; k < nOut; ++k) {
        std::vector<Tensor>& steps = perStep[k];
        if (steps.empty()) ctx.failUnsupported("Scan over an empty sequence");
        if (spec.outputReversed[k]) std::reverse(steps.begin(), steps.end());
        int64_t axis = normalizeAxis(spec.outputAxes[k], static_cast<int64_t>(steps[0].rank()), /*allowEnd=*/true);
        result.scanOutputs.push_back(flow::stackTensors(steps, axis));
    }
    return result;
}

std::vector<int64_t> listOrZeros(const KernelContext& ctx, const char* name, size_t count) {
    std::vector<int64_t> v = ctx.attrInts(name, std::vector<int64_t>(count, 0));
    if (v.size() != count) ctx.fail(std::string("attribute '") + name + "' must have " + std::to_string(count) + " entries");
    return v;
}

/// Opset 9+: inputs are [states..., scan inputs...].
void scan9(KernelContext& ctx, const Graph& body, size_t nIn) {
    size_t nState = ctx.inputCount() - nIn;
    size_t nOut = body.outputs.size() >= nState ? body.outputs.size() - nState : 0;
    ScanSpec spec{listOrZeros(ctx, "scan_input_axes", nIn), listOrZeros(ctx, "scan_input_directions", nIn),
                  listOrZeros(ctx, "scan_output_axes", nOut), listOrZeros(ctx, "scan_output_directions", nOut)};
    std::vector<Value> states;
    for (size_t i = 0; i < nState; ++i) states.push_back(ctx.inputValue(i));
    std::vector<Tensor> scanInputs;
    int64_t seqLen = -1;
    for (size_t j = 0; j < nIn; ++j) {
        const Tensor& x = ctx.input(nState + j);
        spec.inputAxes[j] = normalizeAxis(spec.inputAxes[j], static_cast<int64_t>(x.rank()));
        int64_t len = x.shape()[static_cast<size_t>(spec.inputAxes[j])];
        if (seqLen >= 0 && len != seqLen) ctx.fail("scan inputs have different sequence lengths");
        seqLen = len;
        scanInputs.push_back(x);
    }
    ScanResult r = runScan(ctx, body, std::move(states), scanInputs, seqLen, spec);
    for (size_t i = 0; i < nState; ++i) ctx.setOutputValue(i, std::move(r.states[i]));
    for (size_t k = 0; k < r.scanOutputs.size(); ++k) ctx.setOutput(nState + k, std::move(r.scanOutputs[k]));
}

/// Opset 8: inputs are [sequence_lens?, states..., scan inputs...], all with a leading batch axis; scan inputs
/// are [batch, sequence, ...]. Steps past a batch entry's length leave zeros in its scan outputs.
void scan8(KernelContext& ctx, const Graph& body, size_t nIn) {
    size_t nState = ctx.inputCount() - 1 - nIn;
    size_t nOut = body.outputs.size() >= nState ? body.outputs.size() - nState : 0;
    ScanSpec spec{std::vector<int64_t>(nIn, 0), listOrZeros(ctx, "directions", nIn), std::vector<int64_t>(nOut, 0),
                  std::vector<int64_t>(nOut, 0)};
    if (nIn == 0) ctx.fail("Scan needs at least one scan input");
    const Tensor& first = ctx.input(1 + nState);
    if (first.rank() < 2) ctx.fail("opset-8 scan inputs must be [batch, sequence, ...]");
    int64_t batch = first.shape()[0], maxLen = first.shape()[1];
    std::vector<int64_t> lens(static_cast<size_t>(batch), maxLen);
    if (ctx.hasInput(0)) lens = ctx.input(0).toInt64Vector();
    if (static_cast<int64_t>(lens.size()) != batch) ctx.fail("sequence_lens must have one entry per batch item");

    std::vector<std::vector<Tensor>> finalStates(nState), scanOutputs(nOut);
    for (int64_t b = 0; b < batch; ++b) {
        if (lens[static_cast<size_t>(b)] < 1 || lens[static_cast<size_t>(b)] > maxLen) ctx.fail("sequence_lens out of range");
        std::vector<Value> states;
        for (size_t i = 0; i < nState; ++i) states.emplace_back(flow::takeAlongAxis(ctx.input(1 + i), 0, b));
        std::vector<Tensor> scanInputs;
        for (size_t j = 0; j < nIn; ++j) {
            Tensor item = flow::takeAlongAxis(ctx.input(1 + nState + j), 0, b);
            scanInputs.push_back(flow::sliceAlongAxis(item, 0, 0, lens[static_cast<size_t>(b)]));
        }
        ScanResult r = runScan(ctx, body, std::move(states), scanInputs, lens[static_cast<size_t>(b)], spec);
        for (size_t i = 0; i < nState; ++i) finalStates[i].push_back(r.states[i].tensor);
        for (size_t k = 0; k < nOut; ++k) {
            Tensor& out = r.scanOutputs[k];
            if (out.shape()[0] < maxLen) {  // pad the sequence axis to the longest length
                Shape padded = out.shape();
                padded[0] = maxLen;
                Tensor full(out.dtype(), padded);
                flow::copyElements(out, 0, full, 0, out.numel());
                out = full;
            }
            scanOutputs[k].push_back(out);
        }
    }
    for (size_t i = 0; i < nState; ++i) ctx.setOutput(i, flow::stackTensors(finalStates[i], 0));
    for (size_t k = 0; k < nOut; ++k) ctx.setOutput(nState + k, flow::stackTensors(scanOutputs[k], 0));
}

void scanOp(KernelContext& ctx) {
    const Graph* body = ctx.node().attrGraph("body");
    if (!body) ctx.fail("attribute 'body' (a graph) is missing");
    int64_t nIn = ctx.attrInt("num_scan_inputs", -1);
    size_t minInputs = ctx.opset() < 9 ? 1 : 0;
    if (nIn < 1 || static_cast<size_t>(nIn) + minInputs > ctx.inputCount()) ctx.fail("invalid num_scan_inputs");
    if (ctx.opset() < 9) scan8(ctx, *body, static_cast<size_t>(nIn));
    else scan9(ctx, *body, static_cast<size_t>(nIn));
}

}  // namespace

NPUWB_KERNEL("Scan", scanOp);

}  // namespace npuwb
