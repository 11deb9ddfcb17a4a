// The ONNX recurrent layers RNN, GRU and LSTM. Each kernel supplies its cell update; RecurrentCommon runs the
// time loop, directions, sequence_lens and layouts. Equations follow the ONNX operator specification.
#include "ops/flow/FlowUtil.h"
#include "ops/flow/RecurrentCommon.h"

#include "ops/flow/FlowUtil.h"

namespace npuwb {
namespace {

using flow::dot;
using flow::RecurrentProblem;

/// Gate pre-activation for one unit: W x + R h + Wb + Rb.
double gateInput(const RecurrentProblem& p, int64_t d, int64_t gate, int64_t unit, const double* x, const double* h) {
    return dot(p.wRow(d, gate, unit), x, p.inputSize) + dot(p.rRow(d, gate, unit), h, p.hidden) +
           p.wBias(d, gate, unit) + p.rBias(d, gate, unit);
}

// Ht = f(W x + R Ht-1 + Wb + Rb)
void rnnOp(KernelContext& ctx) {
    RecurrentProblem p = flow::readRecurrentProblem(ctx, 1, {"Tanh"});
    std::vector<double> h = p.initialH;
    std::vector<double> next(static_cast<size_t>(p.hidden));
    auto cell = [&](int64_t d, int64_t, const double* x, double* state) {
        for (int64_t j = 0; j < p.hidden; ++j)
            next[static_cast<size_t>(j)] = p.activation(d, 0)(p.clipped(gateInput(p, d, 0, j, x, state)));
        std::copy(next.begin(), next.end(), state);
    };
    std::vector<double> y = flow::runRecurrence(p, h, cell);
    flow::writeSequenceOutput(ctx, p, y);
    flow::writeStateOutput(ctx, 1, p, h);
}

// Gates z, r, h (in that order in W, R, B):
//   z = f(...), r = f(...)
//   h~ = g(W_h x + R_h (r . Ht-1) + Rb_h + Wb_h)        (linear_before_reset = 0)
//   h~ = g(W_h x + r . (R_h Ht-1 + Rb_h) + Wb_h)        (linear_before_reset = 1)
//   Ht = (1 - z) . h~ + z . Ht-1
void gruOp(KernelContext& ctx) {
    RecurrentProblem p = flow::readRecurrentProblem(ctx, 3, {"Sigmoid", "Tanh"});
    bool linearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
    std::vector<double> h = p.initialH;
    auto n = static_cast<size_t>(p.hidden);
    std::vector<double> z(n), r(n), resetH(n), next(n);
    auto cell = [&](int64_t d, int64_t, const double* x, double* state) {
        const flow::Activation& f = p.activation(d, 0);
        const flow::Activation& g = p.activation(d, 1);
        for (int64_t j = 0; j < p.hidden; ++j) {
            auto u = static_cast<size_t>(j);
            z[u] = f(p.clipped(gateInput(p, d, 0, j, x, state)));
            r[u] = f(p.clipped(gateInput(p, d, 1, j, x, state)));
            resetH[u] = r[u] * state[j];
        }
        for (int64_t j = 0; j < p.hidden; ++j) {
            auto u = static_cast<size_t>(j);
            double fromInput = dot(p.wRow(d, 2, j), x, p.inputSize) + p.wBias(d, 2, j);
            double recurrent = linearBeforeReset
                                   ? r[u] * (dot(p.rRow(d, 2, j), state, p.hidden) + p.rBias(d, 2, j))
                                   : dot(p.rRow(d, 2, j), resetH.data(), p.hidden) + p.rBias(d, 2, j);
            double candidate = g(p.clipped(fromInput + recurrent));
            next[u] = (1.0 - z[u]) * candidate + z[u] * state[j];
        }
        std::copy(next.begin(), next.end(), state);
    };
    std::vector<double> y = flow::runRecurrence(p, h, cell);
    flow::writeSequenceOutput(ctx, p, y);
    flow::writeStateOutput(ctx, 1, p, h);
}

// Gates i, o, f, c (in that order in W, R, B); peepholes P are i, o, f:
//   i = f(... + Pi . Ct-1), f = f(... + Pf . Ct-1) (or 1 - i with input_forget), c~ = g(...)
//   Ct = f . Ct-1 + i . c~,  o = f(... + Po . Ct),  Ht = o . h(Ct)
void lstmOp(KernelContext& ctx) {
    RecurrentProblem p = flow::readRecurrentProblem(ctx, 4, {"Sigmoid", "Tanh", "Tanh"});
    bool inputForget = ctx.attrInt("input_forget", 0) != 0;
    std::vector<double> h = p.initialH;
    std::vector<double> c = flow::readState(ctx, 6, p);
    std::vector<double> peep(static_cast<size_t>(p.directions * 3 * p.hidden), 0.0);
    if (ctx.hasInput(7)) {
        if (ctx.input(7).numel() != static_cast<int64_t>(peep.size())) ctx.fail("P has shape " + shapeToString(ctx.input(7).shape()));
        peep = flow::toDoubles(ctx.input(7));
    }
    auto n = static_cast<size_t>(p.hidden);
    std::vector<double> next(n);
    auto cell = [&](int64_t d, int64_t b, const double* x, double* state) {
        const flow::Activation& f = p.activation(d, 0);
        const flow::Activation& g = p.activation(d, 1);
        const flow::Activation& hAct = p.activation(d, 2);
        double* cs = &c[static_cast<size_t>((d * p.batch + b) * p.hidden)];
        const double* pi = &peep[static_cast<size_t>(d * 3 * p.hidden)];
        const double* po = pi + p.hidden;
        const double* pf = po + p.hidden;
        for (int64_t j = 0; j < p.hidden; ++j) {
            double in = f(p.clipped(gateInput(p, d, 0, j, x, state) + pi[j] * cs[j]));
            double forget = inputForget ? 1.0 - in : f(p.clipped(gateInput(p, d, 2, j, x, state) + pf[j] * cs[j]));
            double candidate = g(p.clipped(gateInput(p, d, 3, j, x, state)));
            double cellState = forget * cs[j] + in * candidate;
            double out = f(p.clipped(gateInput(p, d, 1, j, x, state) + po[j] * cellState));
            next[static_cast<size_t>(j)] = out * hAct(cellState);
            cs[j] = cellState;  // gate inputs of later units only read the previous hidden state, not c
        }
        std::copy(next.begin(), next.end(), state);
    };
    std::vector<double> y = flow::runRecurrence(p, h, cell);
    flow::writeSequenceOutput(ctx, p, y);
    flow::writeStateOutput(ctx, 1, p, h);
    flow::writeStateOutput(ctx, 2, p, c);
}

}  // namespace

NPUWB_KERNEL("RNN", rnnOp);
NPUWB_KERNEL("GRU", gruOp);
NPUWB_KERNEL("LSTM", lstmOp);

}  // namespace npuwb
