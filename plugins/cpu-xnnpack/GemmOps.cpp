// Gemm and MatMul with constant right-hand side on xnn_fully_connected_nc_f32 (alpha/beta folded into the
// packed weights and bias; a following Relu/Clip fused as the output clamp).
#include "Ops.h"

namespace npuwb::xnn {
namespace {

void addFullyConnected(LowerContext& ctx, const FusedGroup& g, const std::string& input, size_t k, size_t n,
                       const std::vector<float>& weightsNK, const std::vector<float>& bias) {
    const int a = ctx.read(input);
    const int y = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const auto batch = static_cast<size_t>(shapeNumel(seg->value(a).shape)) / k;
    xnn_operator_t op = nullptr;
    check(xnn_create_fully_connected_nc_f32(k, n, k, n, weightsNK.data(), bias.data(), g.outputMin, g.outputMax, 0,
                                            &op),
          "fully connected " + g.nodeNames[0]);
    ctx.addStep(g, op, [=] {
        return xnn_setup_fully_connected_nc_f32(op, batch, seg->as<float>(a), seg->as<float>(y), seg->pool());
    });
}

/// Row-major [rows, cols] -> [cols, rows], scaled.
std::vector<float> transposed(const std::vector<float>& m, size_t rows, size_t cols, float scale) {
    std::vector<float> t(m.size());
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) t[c * rows + r] = m[r * cols + c] * scale;
    return t;
}

}  // namespace

Capability supportsGemm(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0, 1, 2}); !c.supported) return c;
    if (q.inputShapes.size() < 2 || q.inputShapes[0].size() != 2 || q.inputShapes[1].size() != 2)
        return Capability::no("Gemm needs rank-2 inputs");
    if (q.node.attrInt("transA", 0) != 0) return Capability::no("transA not supported");
    if (!isConst(q, 1)) return Capability::no("B is not a constant");
    const int64_t n = q.node.attrInt("transB", 0) ? q.inputShapes[1][0] : q.inputShapes[1][1];
    if (hasInput(q, 2)) {
        if (!isConst(q, 2)) return Capability::no("C is not a constant");
        const Shape& c = q.inputShapes[2];
        const int64_t count = shapeNumel(c);
        const bool rowVector = count == 1 || (count == n && (c.size() == 1 || (c.size() == 2 && c[0] == 1)));
        if (!rowVector) return Capability::no("C must broadcast as a row vector");
    }
    return Capability::yes();
}

void lowerGemm(LowerContext& ctx, const FusedGroup& g) {
    const Node& node = *g.main;
    const Tensor& b = *ctx.constant(node.inputs[1]);
    const bool transB = node.attrInt("transB", 0) != 0;
    const auto k = static_cast<size_t>(transB ? b.shape()[1] : b.shape()[0]);
    const auto n = static_cast<size_t>(transB ? b.shape()[0] : b.shape()[1]);
    const float alpha = node.attrFloat("alpha", 1.0f), beta = node.attrFloat("beta", 1.0f);
    std::vector<float> weights = b.toFloatVector();
    if (transB) {
        for (float& v : weights) v *= alpha;
    } else {
        weights = transposed(weights, k, n, alpha);
    }
    std::vector<float> bias(n, 0.0f);
    if (const Tensor* c = node.inputs.size() > 2 ? ctx.constant(node.inputs[2]) : nullptr) {
        const std::vector<float> cv = c->toFloatVector();
        for (size_t j = 0; j < n; ++j) bias[j] = beta * cv[cv.size() == 1 ? 0 : j];
    }
    addFullyConnected(ctx, g, node.inputs[0], k, n, weights, bias);
}

Capability supportsMatMul(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0, 1}); !c.supported) return c;
    if (q.inputShapes.size() < 2 || q.inputShapes[1].size() != 2 || !isConst(q, 1))
        return Capability::no("only a constant rank-2 right-hand side is supported");
    const size_t rank = q.inputShapes[0].size();
    if (rank < 1 || rank == 4) return Capability::no("rank-4 left-hand side not supported (NHWC inside segments)");
    if (q.inputShapes[0].back() != q.inputShapes[1][0]) return Capability::no("inner dimensions differ");
    return Capability::yes();
}

void lowerMatMul(LowerContext& ctx, const FusedGroup& g) {
    const Tensor& b = *ctx.constant(g.main->inputs[1]);
    const auto k = static_cast<size_t>(b.shape()[0]), n = static_cast<size_t>(b.shape()[1]);
    addFullyConnected(ctx, g, g.main->inputs[0], k, n, transposed(b.toFloatVector(), k, n, 1.0f),
                      std::vector<float>(n, 0.0f));
}

}  // namespace npuwb::xnn
