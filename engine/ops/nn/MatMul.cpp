// MatMul (numpy matmul: batch broadcasting, 1-D operands), Gemm, MatMulInteger and QLinearMatMul.
#include <string>
#include <type_traits>
#include <vector>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/nn/NnUtil.h"

namespace npuwb::nn {
namespace {

/// Integers accumulate in their own type (ONNX's integer MatMul wraps), floats as FloatAcc.
template <class T> using MatAcc = std::conditional_t<std::is_integral_v<T>, T, FloatAcc<T>>;

/// c[M,N] += a[M,K] * b[K,N], all row-major. i-k-j order keeps the inner loop contiguous in b and c.
template <class Acc> void gemmAccumulate(const Acc* a, const Acc* b, Acc* c, int64_t m, int64_t k, int64_t n) {
    for (int64_t i = 0; i < m; ++i) {
        Acc* cRow = c + i * n;
        const Acc* aRow = a + i * k;
        int64_t p = 0;
        for (; p + 4 <= k; p += 4) {  // four rows of b per pass: one load/store of c per four products
            const Acc a0 = aRow[p], a1 = aRow[p + 1], a2 = aRow[p + 2], a3 = aRow[p + 3];
            const Acc* b0 = b + p * n;
            const Acc *b1 = b0 + n, *b2 = b1 + n, *b3 = b2 + n;
            for (int64_t j = 0; j < n; ++j) cRow[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
        for (; p < k; ++p) {
            const Acc av = aRow[p];
            const Acc* bRow = b + p * n;
            for (int64_t j = 0; j < n; ++j) cRow[j] += av * bRow[j];
        }
    }
}

/// The batched problem numpy.matmul describes: 1-D operands are promoted to matrices and the promoted axis is
/// dropped from the result; batch axes broadcast.
struct MatMulProblem {
    int64_t m = 0, k = 0, n = 0;
    Shape batchShape;
    std::vector<int64_t> aBatchOffset, bBatchOffset;  // per output batch: matrix index in a and b
    Shape outputShape;
};

MatMulProblem resolveMatMul(const KernelContext& ctx, const Shape& aShape, const Shape& bShape) {
    if (aShape.empty() || bShape.empty()) ctx.fail("MatMul operands must have rank >= 1");
    Shape a = aShape.size() == 1 ? Shape{1, aShape[0]} : aShape;
    Shape b = bShape.size() == 1 ? Shape{bShape[0], 1} : bShape;
    MatMulProblem p;
    p.m = a[a.size() - 2];
    p.k = a[a.size() - 1];
    p.n = b[b.size() - 1];
    if (b[b.size() - 2] != p.k)
        ctx.fail("inner dimensions do not match: " + shapeToString(aShape) + " x " + shapeToString(bShape));
    Shape aBatch(a.begin(), a.end() - 2), bBatch(b.begin(), b.end() - 2);
    p.batchShape = broadcastShapes({aBatch, bBatch});
    p.aBatchOffset = BroadcastIndex(p.batchShape, aBatch).all();
    p.bBatchOffset = BroadcastIndex(p.batchShape, bBatch).all();
    p.outputShape = p.batchShape;
    if (aShape.size() > 1) p.outputShape.push_back(p.m);
    if (bShape.size() > 1) p.outputShape.push_back(p.n);
    return p;
}

template <class Acc> std::vector<Acc> batchedMatMul(const MatMulProblem& p, const Acc* a, const Acc* b) {
    std::vector<Acc> c(static_cast<size_t>(shapeNumel(p.outputShape)), Acc(0));
    for (size_t i = 0; i < p.aBatchOffset.size(); ++i)
        gemmAccumulate<Acc>(a + p.aBatchOffset[i] * p.m * p.k, b + p.bBatchOffset[i] * p.k * p.n,
                            c.data() + static_cast<int64_t>(i) * p.m * p.n, p.m, p.k, p.n);
    return c;
}

void matMul(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) ctx.fail("A and B must have the same element type");
    MatMulProblem p = resolveMatMul(ctx, a.shape(), b.shape());
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, a.dtype(), p.outputShape);
    visitNumeric(a.dtype(), [&]<typename T>() {
        using Acc = MatAcc<T>;
        std::vector<Acc> c = batchedMatMul<Acc>(p, AccBuffer<Acc>(a).data(), AccBuffer<Acc>(b).data());
        ctx.setOutput(0, tensorFromAcc<T>(a.dtype(), p.outputShape, c));
    }, "MatMul");
}

/// A copy of a 2-D tensor as a row-major [rows, cols] matrix in Acc, transposed when asked.
template <class Acc> std::vector<Acc> matrixOf(const Tensor& t, bool transpose) {
    AccBuffer<Acc> src(t);
    const int64_t r = t.shape()[0], c = t.shape()[1];
    std::vector<Acc> out(static_cast<size_t>(r * c));
    for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j)
            out[static_cast<size_t>(transpose ? j * r + i : i * c + j)] = src.data()[i * c + j];
    return out;
}

void gemm(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) ctx.fail("A and B must be matrices");
    const bool transA = ctx.attrInt("transA", 0) != 0, transB = ctx.attrInt("transB", 0) != 0;
    const int64_t m = transA ? a.shape()[1] : a.shape()[0];
    const int64_t k = transA ? a.shape()[0] : a.shape()[1];
    const int64_t n = transB ? b.shape()[0] : b.shape()[1];
    if ((transB ? b.shape()[1] : b.shape()[0]) != k)
        ctx.fail("inner dimensions do not match: A " + shapeToString(a.shape()) + " and B " + shapeToString(b.shape()));
    const double alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
    const Shape outShape{m, n};
    visitNumeric(a.dtype(), [&]<typename T>() {
        using Acc = MatAcc<T>;
        using Scale = std::conditional_t<std::is_integral_v<T>, double, Acc>;  // float alpha on integer products
        std::vector<Acc> acc(static_cast<size_t>(m * n), Acc(0));
        const std::vector<Acc> aRows = matrixOf<Acc>(a, transA);
        if (transB) {  // B is [N, K]: rows of A and B are both contiguous, so take dot products directly
            AccBuffer<Acc> bRows(b);
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                    Acc dot = 0;
                    for (int64_t p = 0; p < k; ++p) dot += aRows[static_cast<size_t>(i * k + p)] * bRows.data()[j * k + p];
                    acc[static_cast<size_t>(i * n + j)] = dot;
                }
        } else {
            gemmAccumulate<Acc>(aRows.data(), AccBuffer<Acc>(b).data(), acc.data(), m, k, n);
        }
        std::vector<Acc> y(acc.size());
        for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<Acc>(static_cast<Scale>(alpha) * acc[i]);
        if (ctx.hasInput(2) && beta != 0.0) {
            const Tensor& c = ctx.input(2);
            if (c.rank() > 2) ctx.fail("C must have rank <= 2");
            if (broadcastShapes({outShape, c.shape()}) != outShape)
                ctx.fail("C " + shapeToString(c.shape()) + " does not broadcast to " + shapeToString(outShape));
            AccBuffer<Acc> cv(c);
            std::vector<int64_t> index = BroadcastIndex(outShape, c.shape()).all();
            for (size_t i = 0; i < y.size(); ++i)
                y[i] = static_cast<Acc>(static_cast<Scale>(y[i]) + static_cast<Scale>(beta) * cv.data()[index[i]]);
        }
        ctx.setOutput(0, tensorFromAcc<T>(a.dtype(), outShape, y));
    }, "Gemm");
}

/// Quantized operand minus its zero point, as int32. The zero point is a scalar, per row of A ([M] or [..., M, 1])
/// or per column of B ([N] or [..., 1, N]).
std::vector<int32_t> centeredOperand(const KernelContext& ctx, const Tensor& q, size_t zeroIndex, bool perRow) {
    std::vector<int32_t> zero{0};
    if (ctx.hasInput(zeroIndex)) {
        const Tensor& z = ctx.input(zeroIndex);
        if (z.dtype() != q.dtype()) ctx.fail("zero point type must match its operand");
        zero.clear();
        for (int64_t i = 0; i < z.numel(); ++i) zero.push_back(static_cast<int32_t>(z.elementAsInt(i)));
    }
    const int64_t rows = q.rank() >= 2 ? q.shape()[q.rank() - 2] : 1;
    const int64_t cols = q.shape().empty() ? 1 : q.shape().back();
    const int64_t channels = perRow ? rows : cols;
    if (zero.size() != 1 && static_cast<int64_t>(zero.size()) != channels)
        ctx.fail("zero point must be a scalar or have one value per " + std::string(perRow ? "row" : "column"));
    std::vector<int32_t> out(static_cast<size_t>(q.numel()));
    visitQuantized(q.dtype(), [&]<typename Q>() {
        const Q* src = q.data<Q>();
        for (int64_t i = 0; i < q.numel(); ++i) {
            int64_t ch = zero.size() == 1 ? 0 : (perRow ? (i / cols) % rows : i % cols);
            out[static_cast<size_t>(i)] = static_cast<int32_t>(src[i]) - zero[static_cast<size_t>(ch)];
        }
    }, ctx.node().opType);
    return out;
}

void matMulInteger(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    MatMulProblem p = resolveMatMul(ctx, a.shape(), b.shape());
    std::vector<int32_t> c =
        batchedMatMul<int32_t>(p, centeredOperand(ctx, a, 2, true).data(), centeredOperand(ctx, b, 3, false).data());
    ctx.setOutput(0, tensorFromAcc<int32_t>(DType::I32, p.outputShape, c));
}

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
void qlinearMatMul(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    MatMulProblem p = resolveMatMul(ctx, a.shape(), b.shape());
    std::vector<int32_t> acc =
        batchedMatMul<int32_t>(p, centeredOperand(ctx, a, 2, true).data(), centeredOperand(ctx, b, 5, false).data());
    const std::vector<float> aScale = ctx.input(1).toFloatVector();
    const std::vector<float> bScale = ctx.input(4).toFloatVector();
    const float yScale = ctx.input(6).toFloatVector().at(0);
    if (aScale.size() != 1 && static_cast<int64_t>(aScale.size()) != p.m) ctx.fail("a_scale must be scalar or per row");
    if (bScale.size() != 1 && static_cast<int64_t>(bScale.size()) != p.n) ctx.fail("b_scale must be scalar or per column");
    const DType yType = ctx.hasInput(7) ? ctx.input(7).dtype() : a.dtype();
    const int32_t yZero = ctx.hasInput(7) ? static_cast<int32_t>(ctx.input(7).elementAsInt(0)) : 0;
    Tensor y(yType, p.outputShape);
    visitQuantized(yType, [&]<typename Q>() {
        Q* dst = y.data<Q>();
        for (size_t i = 0; i < acc.size(); ++i) {
            const int64_t flat = static_cast<int64_t>(i);
            const float as = aScale.size() == 1 ? aScale[0] : aScale[static_cast<size_t>((flat / p.n) % p.m)];
            const float bs = bScale.size() == 1 ? bScale[0] : bScale[static_cast<size_t>(flat % p.n)];
            dst[i] = saturateRound<Q>(static_cast<double>(static_cast<float>(acc[i]) * (as * bs / yScale)) + yZero);
        }
    }, "QLinearMatMul");
    ctx.setOutput(0, std::move(y));
}

}  // namespace

NPUWB_KERNEL_SHAPES("MatMul", matMul);
NPUWB_KERNEL("Gemm", gemm);
NPUWB_KERNEL("MatMulInteger", matMulInteger);
NPUWB_KERNEL("QLinearMatMul", qlinearMatMul);

}  // namespace npuwb::nn
