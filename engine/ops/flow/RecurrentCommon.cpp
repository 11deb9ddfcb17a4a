#include "ops/flow/RecurrentCommon.h"

#include <algorithm>
#include <cctype>

#include "ops/flow/FlowUtil.h"

namespace npuwb::flow {

double Activation::operator()(double x) const {
    if (name == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (name == "tanh") return std::tanh(x);
    if (name == "relu") return std::max(x, 0.0);
    if (name == "affine") return alpha * x + beta;
    if (name == "leakyrelu") return x >= 0 ? x : alpha * x;
    if (name == "thresholdedrelu") return x > alpha ? x : 0.0;
    if (name == "scaledtanh") return alpha * std::tanh(beta * x);
    if (name == "hardsigmoid") return std::clamp(alpha * x + beta, 0.0, 1.0);
    if (name == "elu") return x >= 0 ? x : alpha * (std::exp(x) - 1.0);
    if (name == "softsign") return x / (1.0 + std::fabs(x));
    if (name == "softplus") return std::log1p(std::exp(x));
    failUnsupported("unknown recurrent activation '" + name + "'");
}

namespace {

/// Builds activations in order, consuming activation_alpha/beta entries only for functions that take them
/// (the same convention as onnxruntime), with the ONNX defaults otherwise.
std::vector<Activation> parseActivations(const KernelContext& ctx, const std::vector<std::string>& names) {
    std::vector<float> alphas = ctx.attrFloats("activation_alpha"), betas = ctx.attrFloats("activation_beta");
    size_t ai = 0, bi = 0;
    auto next = [](const std::vector<float>& list, size_t& i, double fallback) {
        return i < list.size() ? static_cast<double>(list[i++]) : fallback;
    };
    std::vector<Activation> out;
    for (const std::string& raw : names) {
        Activation a;
        for (char c : raw) a.name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (a.name == "affine" || a.name == "scaledtanh") {
            a.alpha = next(alphas, ai, 1.0);
            a.beta = next(betas, bi, a.name == "affine" ? 0.0 : 1.0);
        } else if (a.name == "leakyrelu") {
            a.alpha = next(alphas, ai, 0.01);
        } else if (a.name == "thresholdedrelu" || a.name == "elu") {
            a.alpha = next(alphas, ai, 1.0);
        } else if (a.name == "hardsigmoid") {
            a.alpha = next(alphas, ai, 0.2);
            a.beta = next(betas, bi, 0.5);
        }
        (void)a(0.0);  // rejects unknown names up front
        out.push_back(a);
    }
    return out;
}

}  // namespace

double dot(const double* a, const double* b, int64_t n) {
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

std::vector<double> readState(const KernelContext& ctx, size_t input, const RecurrentProblem& p) {
    std::vector<double> state(static_cast<size_t>(p.directions * p.batch * p.hidden), 0.0);
    if (!ctx.hasInput(input)) return state;
    const Tensor& t = ctx.input(input);
    if (t.numel() != static_cast<int64_t>(state.size())) ctx.fail("initial state has shape " + shapeToString(t.shape()));
    std::vector<double> raw = toDoubles(t);
    for (int64_t d = 0; d < p.directions; ++d)
        for (int64_t b = 0; b < p.batch; ++b) {
            int64_t src = p.batchFirst ? (b * p.directions + d) : (d * p.batch + b);
            std::copy_n(&raw[static_cast<size_t>(src * p.hidden)], p.hidden, &state[static_cast<size_t>((d * p.batch + b) * p.hidden)]);
        }
    return state;
}

RecurrentProblem readRecurrentProblem(const KernelContext& ctx, int64_t gates, const std::vector<std::string>& defaults) {
    RecurrentProblem p;
    p.gates = gates;
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& r = ctx.input(2);
    if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3) ctx.fail("X, W and R must have rank 3");
    p.dtype = x.dtype();
    p.batchFirst = ctx.attrInt("layout", 0) == 1;
    p.seqLen = p.batchFirst ? x.shape()[1] : x.shape()[0];
    p.batch = p.batchFirst ? x.shape()[0] : x.shape()[1];
    p.inputSize = x.shape()[2];
    p.directions = w.shape()[0];
    p.hidden = ctx.attrInt("hidden_size", r.shape()[2]);
    if (w.shape()[1] != gates * p.hidden || w.shape()[2] != p.inputSize) ctx.fail("W has shape " + shapeToString(w.shape()));
    if (r.shape() != Shape{p.directions, gates * p.hidden, p.hidden}) ctx.fail("R has shape " + shapeToString(r.shape()));

    std::string direction = ctx.attrString("direction", "forward");
    int64_t expectedDirs = direction == "bidirectional" ? 2 : 1;
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
        ctx.fail("unknown direction '" + direction + "'");
    if (p.directions != expectedDirs) ctx.fail("W's first dimension does not match direction '" + direction + "'");
    p.reversed = direction == "bidirectional" ? std::vector<bool>{false, true} : std::vector<bool>{direction == "reverse"};

    std::vector<double> xs = toDoubles(x);
    if (p.batchFirst) {  // to [seq, batch, input]
        p.x.resize(xs.size());
        for (int64_t b = 0; b < p.batch; ++b)
            for (int64_t t = 0; t < p.seqLen; ++t)
                std::copy_n(&xs[static_cast<size_t>((b * p.seqLen + t) * p.inputSize)], p.inputSize,
                            &p.x[static_cast<size_t>((t * p.batch + b) * p.inputSize)]);
    } else {
        p.x = std::move(xs);
    }
    p.w = toDoubles(w);
    p.r = toDoubles(r);
    p.b.assign(static_cast<size_t>(p.directions * 2 * gates * p.hidden), 0.0);
    if (ctx.hasInput(3)) {
        if (ctx.input(3).numel() != static_cast<int64_t>(p.b.size())) ctx.fail("B has shape " + shapeToString(ctx.input(3).shape()));
        p.b = toDoubles(ctx.input(3));
    }
    p.seqLens.assign(static_cast<size_t>(p.batch), p.seqLen);
    if (ctx.hasInput(4)) {
        p.seqLens = ctx.input(4).toInt64Vector();
        if (static_cast<int64_t>(p.seqLens.size()) != p.batch) ctx.fail("sequence_lens must have one entry per batch item");
        for (int64_t len : p.seqLens)
            if (len < 0 || len > p.seqLen) ctx.fail("sequence_lens entry " + std::to_string(len) + " is out of range");
    }
    p.initialH = readState(ctx, 5, p);

    std::vector<std::string> names;
    if (ctx.hasAttr("activations")) {
        names = ctx.node().attrStrings("activations");
        if (names.size() != defaults.size() * static_cast<size_t>(p.directions))
            ctx.fail("expected " + std::to_string(defaults.size() * static_cast<size_t>(p.directions)) + " activations");
    } else {
        for (int64_t d = 0; d < p.directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    }
    p.activations = parseActivations(ctx, names);
    p.activationsPerDirection = defaults.size();
    if (ctx.hasAttr("clip")) p.clip = ctx.attrFloat("clip", 0.0f);
    return p;
}

std::vector<double> runRecurrence(const RecurrentProblem& p, std::vector<double>& h,
                                  const std::function<void(int64_t, int64_t, const double*, double*)>& cell) {
    std::vector<double> y(static_cast<size_t>(p.seqLen * p.directions * p.batch * p.hidden), 0.0);
    for (int64_t d = 0; d < p.directions; ++d)
        for (int64_t b = 0; b < p.batch; ++b) {
            int64_t len = p.seqLens[static_cast<size_t>(b)];
            double* state = &h[static_cast<size_t>((d * p.batch + b) * p.hidden)];
            for (int64_t step = 0; step < len; ++step) {
                int64_t t = p.reversed[static_cast<size_t>(d)] ? len - 1 - step : step;
                cell(d, b, &p.x[static_cast<size_t>((t * p.batch + b) * p.inputSize)], state);
                std::copy_n(state, p.hidden, &y[static_cast<size_t>(((t * p.directions + d) * p.batch + b) * p.hidden)]);
            }
        }
    return y;
}

void writeSequenceOutput(KernelContext& ctx, const RecurrentProblem& p, const std::vector<double>& y) {
    if (!ctx.wantsOutput(0)) return;
    if (!p.batchFirst) {
        ctx.setOutput(0, fromDoubles(p.dtype, {p.seqLen, p.directions, p.batch, p.hidden}, y));
        return;
    }
    std::vector<double> out(y.size());  // [batch, seq, dirs, hidden]
    for (int64_t t = 0; t < p.seqLen; ++t)
        for (int64_t d = 0; d < p.directions; ++d)
            for (int64_t b = 0; b < p.batch; ++b)
                std::copy_n(&y[static_cast<size_t>(((t * p.directions + d) * p.batch + b) * p.hidden)], p.hidden,
                            &out[static_cast<size_t>(((b * p.seqLen + t) * p.directions + d) * p.hidden)]);
    ctx.setOutput(0, fromDoubles(p.dtype, {p.batch, p.seqLen, p.directions, p.hidden}, out));
}

void writeStateOutput(KernelContext& ctx, size_t output, const RecurrentProblem& p, const std::vector<double>& state) {
    if (!ctx.wantsOutput(output)) return;
    if (!p.batchFirst) {
        ctx.setOutput(output, fromDoubles(p.dtype, {p.directions, p.batch, p.hidden}, state));
        return;
    }
    std::vector<double> out(state.size());  // [batch, dirs, hidden]
    for (int64_t d = 0; d < p.directions; ++d)
        for (int64_t b = 0; b < p.batch; ++b)
            std::copy_n(&state[static_cast<size_t>((d * p.batch + b) * p.hidden)], p.hidden,
                        &out[static_cast<size_t>((b * p.directions + d) * p.hidden)]);
    ctx.setOutput(output, fromDoubles(p.dtype, {p.batch, p.directions, p.hidden}, out));
}

}  // namespace npuwb::flow
