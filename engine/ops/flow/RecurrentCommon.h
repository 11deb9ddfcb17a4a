#pragma once
// Shared plumbing of the recurrent kernels (RNN, GRU, LSTM): reading X/W/R/B/sequence_lens/initial_h in either
// layout, the activation functions with their alpha/beta attributes, the time loop per direction and writing
// Y / Y_h in the requested layout. All arithmetic runs in double; outputs take X's element type.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ops/Kernel.h"

namespace npuwb::flow {

/// One activation function of the ONNX RNN family ("Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", ...).
struct Activation {
    std::string name;  // lower case
    double alpha = 0.0;
    double beta = 0.0;
    double operator()(double x) const;
};

struct RecurrentProblem {
    int64_t seqLen = 0, batch = 0, inputSize = 0, hidden = 0, directions = 1, gates = 1;
    bool batchFirst = false;  // layout == 1
    DType dtype = DType::F32;
    std::vector<double> x;         // [seq, batch, input]
    std::vector<double> w, r, b;   // [dirs, gates*hidden, input], [dirs, gates*hidden, hidden], [dirs, 2*gates*hidden]
    std::vector<int64_t> seqLens;  // [batch]
    std::vector<double> initialH;  // [dirs, batch, hidden]
    std::vector<Activation> activations;  // activationsPerDirection entries per direction
    size_t activationsPerDirection = 1;
    double clip = INFINITY;
    std::vector<bool> reversed;  // per direction

    const double* wRow(int64_t d, int64_t gate, int64_t unit) const { return &w[static_cast<size_t>(((d * gates + gate) * hidden + unit) * inputSize)]; }
    const double* rRow(int64_t d, int64_t gate, int64_t unit) const { return &r[static_cast<size_t>(((d * gates + gate) * hidden + unit) * hidden)]; }
    double wBias(int64_t d, int64_t gate, int64_t unit) const { return b[static_cast<size_t>(d * 2 * gates * hidden + gate * hidden + unit)]; }
    double rBias(int64_t d, int64_t gate, int64_t unit) const { return b[static_cast<size_t>(d * 2 * gates * hidden + (gates + gate) * hidden + unit)]; }
    const Activation& activation(int64_t d, size_t i) const { return activations[static_cast<size_t>(d) * activationsPerDirection + i]; }
    double clipped(double v) const { return std::fmin(std::fmax(v, -clip), clip); }
};

/// Reads inputs 0..5 (X, W, R, B, sequence_lens, initial_h) and the shared attributes.
RecurrentProblem readRecurrentProblem(const KernelContext& ctx, int64_t gates, const std::vector<std::string>& defaultActivations);

/// Reads an optional [dirs, batch, hidden] (or [batch, dirs, hidden] with layout 1) state input; zeros when absent.
std::vector<double> readState(const KernelContext& ctx, size_t input, const RecurrentProblem& p);

double dot(const double* a, const double* b, int64_t n);

/// Runs `cell(direction, batchIndex, x_t, h)` over each batch item's valid time steps (reversed for backward
/// directions); the cell updates h (size hidden) in place. Returns Y as [seq, dirs, batch, hidden] (zeros past
/// each sequence's length) and leaves the final hidden states in `h` ([dirs, batch, hidden]).
std::vector<double> runRecurrence(const RecurrentProblem& p, std::vector<double>& h,
                                  const std::function<void(int64_t, int64_t, const double*, double*)>& cell);

/// Writes Y (output 0) and the [dirs, batch, hidden] state `state` as output `stateOutput`, honouring the layout.
void writeSequenceOutput(KernelContext& ctx, const RecurrentProblem& p, const std::vector<double>& y);
void writeStateOutput(KernelContext& ctx, size_t output, const RecurrentProblem& p, const std::vector<double>& state);

}  // namespace npuwb::flow
