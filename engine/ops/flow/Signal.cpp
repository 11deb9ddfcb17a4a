// Signal processing ops of opset 17: DFT, STFT, the Hann/Hamming/Blackman windows and MelWeightMatrix.
// Complex tensors carry a trailing dimension of 2 (real, imaginary); real ones a trailing 1. The DFT is the
// direct O(n^2) sum in double with exact twiddle indices, which is plenty for reference results.
#include <cmath>
#include <numbers>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/flow/FlowUtil.h"

namespace npuwb {
namespace {

struct Complex {
    double re = 0.0, im = 0.0;
};

/// X[k] = sum_j x[j] e^(-+2 pi i jk/n) for k < outBins; `inverse` uses the + sign and scales by 1/n.
std::vector<Complex> dft(const std::vector<Complex>& x, int64_t outBins, bool inverse) {
    auto n = static_cast<int64_t>(x.size());
    std::vector<double> cosTable(static_cast<size_t>(n)), sinTable(static_cast<size_t>(n));
    for (int64_t m = 0; m < n; ++m) {
        double angle = 2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
        cosTable[static_cast<size_t>(m)] = std::cos(angle);
        sinTable[static_cast<size_t>(m)] = std::sin(angle);
    }
    double sign = inverse ? 1.0 : -1.0;
    std::vector<Complex> out(static_cast<size_t>(outBins));
    for (int64_t k = 0; k < outBins; ++k) {
        Complex sum;
        for (int64_t j = 0; j < n; ++j) {
            auto m = static_cast<size_t>((j * k) % n);
            double c = cosTable[m], s = sign * sinTable[m];
            const Complex& v = x[static_cast<size_t>(j)];
            sum.re += v.re * c - v.im * s;
            sum.im += v.re * s + v.im * c;
        }
        if (inverse) {
            sum.re /= static_cast<double>(n);
            sum.im /= static_cast<double>(n);
        }
        out[static_cast<size_t>(k)] = sum;
    }
    return out;
}

int64_t complexComponents(const KernelContext& ctx, const Tensor& t) {
    if (t.rank() < 2) ctx.fail("the signal must have a trailing [1] (real) or [2] (complex) dimension");
    int64_t c = t.shape().back();
    if (c != 1 && c != 2) ctx.fail("the signal's last dimension must be 1 (real) or 2 (complex)");
    return c;
}

void dftOp(KernelContext& ctx) {
    const Tensor& signal = ctx.input(0);
    int64_t comps = complexComponents(ctx, signal);
    auto rank = static_cast<int64_t>(signal.rank());
    int64_t axis = ctx.attrInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank - 1) ctx.fail("axis " + std::to_string(ctx.attrInt("axis", 1)) + " is out of range");
    bool inverse = ctx.attrInt("inverse", 0) != 0, onesided = ctx.attrInt("onesided", 0) != 0;
    const Shape& s = signal.shape();
    auto a = static_cast<size_t>(axis);
    int64_t n = s[a];
    int64_t length = ctx.hasInput(1) ? ctx.input(1).elementAsInt(0) : n;
    if (length < 1) ctx.fail("dft_length must be positive");
    int64_t bins = onesided ? length / 2 + 1 : length;

    Shape outShape = s;
    outShape[a] = bins;
    outShape.back() = 2;
    int64_t outer = flow::dimProduct(s, 0, a), inner = flow::dimProduct(s, a + 1, s.size() - 1);
    std::vector<double> in = flow::toDoubles(signal);
    std::vector<double> out(static_cast<size_t>(outer * bins * inner * 2));
    std::vector<Complex> line(static_cast<size_t>(length));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            for (int64_t j = 0; j < length; ++j) {  // zero-pads or truncates to dft_length
                Complex v;
                if (j < n) {
                    auto at = static_cast<size_t>(((o * n + j) * inner + i) * comps);
                    v.re = in[at];
                    v.im = comps == 2 ? in[at + 1] : 0.0;
                }
                line[static_cast<size_t>(j)] = v;
            }
            std::vector<Complex> spectrum = dft(line, bins, inverse);
            for (int64_t k = 0; k < bins; ++k) {
                auto at = static_cast<size_t>(((o * bins + k) * inner + i) * 2);
                out[at] = spectrum[static_cast<size_t>(k)].re;
                out[at + 1] = spectrum[static_cast<size_t>(k)].im;
            }
        }
    ctx.setOutput(0, flow::fromDoubles(signal.dtype(), outShape, out));
}

// STFT(signal [batch, length, 1|2], frame_step, window?, frame_length?) -> [batch, frames, bins, 2].
void stftOp(KernelContext& ctx) {
    const Tensor& signal = ctx.input(0);
    int64_t comps = complexComponents(ctx, signal);
    if (signal.rank() != 3) ctx.fail("the signal must be [batch, length, 1|2]");
    int64_t step = ctx.input(1).elementAsInt(0);
    std::vector<double> window;
    if (ctx.hasInput(2)) window = flow::toDoubles(ctx.input(2));
    int64_t frameLength = ctx.hasInput(3) ? ctx.input(3).elementAsInt(0) : static_cast<int64_t>(window.size());
    if (window.empty()) window.assign(static_cast<size_t>(std::max<int64_t>(frameLength, 0)), 1.0);
    if (frameLength < 1 || static_cast<int64_t>(window.size()) != frameLength || step < 1)
        ctx.fail("frame_step, window and frame_length are inconsistent");
    int64_t batch = signal.shape()[0], length = signal.shape()[1];
    if (length < frameLength) ctx.fail("the signal is shorter than one frame");
    int64_t frames = (length - frameLength) / step + 1;
    bool onesided = ctx.attrInt("onesided", 1) != 0;
    int64_t bins = onesided ? frameLength / 2 + 1 : frameLength;

    std::vector<double> in = flow::toDoubles(signal);
    std::vector<double> out(static_cast<size_t>(batch * frames * bins * 2));
    std::vector<Complex> frame(static_cast<size_t>(frameLength));
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t f = 0; f < frames; ++f) {
            for (int64_t j = 0; j < frameLength; ++j) {
                auto at = static_cast<size_t>((b * length + f * step + j) * comps);
                double w = window[static_cast<size_t>(j)];
                frame[static_cast<size_t>(j)] = {in[at] * w, comps == 2 ? in[at + 1] * w : 0.0};
            }
            std::vector<Complex> spectrum = dft(frame, bins, false);
            for (int64_t k = 0; k < bins; ++k) {
                auto at = static_cast<size_t>(((b * frames + f) * bins + k) * 2);
                out[at] = spectrum[static_cast<size_t>(k)].re;
                out[at + 1] = spectrum[static_cast<size_t>(k)].im;
            }
        }
    ctx.setOutput(0, flow::fromDoubles(signal.dtype(), {batch, frames, bins, 2}, out));
}

DType outputDatatype(const KernelContext& ctx) {
    DType t = dtypeFromOnnxCode(ctx.attrInt("output_datatype", 1));
    if (t == DType::Undefined || t == DType::String || t == DType::Bool) ctx.failUnsupported("unsupported output_datatype");
    return t;
}

/// Generalised cosine window sum_k a_k cos(2 pi k n / N) (with alternating signs folded into a_k); N is the size
/// for periodic windows and size - 1 for symmetric ones.
void cosineWindow(KernelContext& ctx, const std::vector<double>& coefficients) {
    int64_t size = ctx.input(0).elementAsInt(0);
    if (size < 0) ctx.fail("the window size must not be negative");
    bool periodic = ctx.attrInt("periodic", 1) != 0;
    double denominator = static_cast<double>(periodic ? size : size - 1);
    std::vector<double> w(static_cast<size_t>(size));
    for (int64_t n = 0; n < size; ++n) {
        double v = 0.0;
        for (size_t k = 0; k < coefficients.size(); ++k)
            v += coefficients[k] * std::cos(2.0 * std::numbers::pi * static_cast<double>(k * static_cast<size_t>(n)) / denominator);
        w[static_cast<size_t>(n)] = v;
    }
    ctx.setOutput(0, flow::fromDoubles(outputDatatype(ctx), {size}, w));
}

void hannWindow(KernelContext& ctx) { cosineWindow(ctx, {0.5, -0.5}); }
void hammingWindow(KernelContext& ctx) { cosineWindow(ctx, {25.0 / 46.0, -21.0 / 46.0}); }
void blackmanWindow(KernelContext& ctx) { cosineWindow(ctx, {0.42, -0.5, 0.08}); }

/// Triangular filters evenly spaced on the mel scale, as the ONNX reference computes them (bins are whole DFT
/// indices: floor((dft_length + 1) * hz / sample_rate)).
void melWeightMatrix(KernelContext& ctx) {
    int64_t melBins = ctx.input(0).elementAsInt(0);
    int64_t dftLength = ctx.input(1).elementAsInt(0);
    double sampleRate = ctx.input(2).elementAsDouble(0);
    double lowHz = ctx.input(3).elementAsDouble(0), highHz = ctx.input(4).elementAsDouble(0);
    if (melBins < 1 || dftLength < 1 || sampleRate <= 0) ctx.fail("num_mel_bins, dft_length and sample_rate must be positive");
    int64_t spectrogramBins = dftLength / 2 + 1;
    checkOutputBudget(DType::F64, {addDims(melBins, 2, "num_mel_bins"), mulDims(spectrogramBins, melBins, "the mel matrix")}, 0);
    auto toMel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
    double lowMel = toMel(lowHz), highMel = toMel(highHz);
    double melStep = (highMel - lowMel) / static_cast<double>(melBins + 2);
    std::vector<int64_t> edges(static_cast<size_t>(melBins + 2));
    for (int64_t i = 0; i < melBins + 2; ++i) {
        double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * melStep + lowMel) / 2595.0) - 1.0);
        edges[static_cast<size_t>(i)] = saturatedInteger(std::floor(static_cast<double>(dftLength + 1) * hz / sampleRate));
    }
    std::vector<double> out(static_cast<size_t>(spectrogramBins * melBins), 0.0);
    auto at = [&](int64_t bin, int64_t mel) -> double& {
        if (bin < 0 || bin >= spectrogramBins) ctx.fail("mel filter edge falls outside the spectrogram");
        return out[static_cast<size_t>(bin * melBins + mel)];
    };
    for (int64_t i = 0; i < melBins; ++i) {
        int64_t lower = edges[static_cast<size_t>(i)], center = edges[static_cast<size_t>(i + 1)],
                upper = edges[static_cast<size_t>(i + 2)];
        if (center == lower) at(center, i) = 1.0;
        else
            for (int64_t j = lower; j <= center; ++j) at(j, i) = static_cast<double>(j - lower) / static_cast<double>(center - lower);
        for (int64_t j = center; j < upper; ++j) at(j, i) = static_cast<double>(upper - j) / static_cast<double>(upper - center);
    }
    ctx.setOutput(0, flow::fromDoubles(outputDatatype(ctx), {spectrogramBins, melBins}, out));
}

}  // namespace

NPUWB_KERNEL("DFT", dftOp);
NPUWB_KERNEL("STFT", stftOp);
NPUWB_KERNEL("HannWindow", hannWindow);
NPUWB_KERNEL("HammingWindow", hammingWindow);
NPUWB_KERNEL("BlackmanWindow", blackmanWindow);
NPUWB_KERNEL("MelWeightMatrix", melWeightMatrix);

}  // namespace npuwb
