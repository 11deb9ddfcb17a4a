// MaxUnpool: scatters pooled values back to the positions MaxPool's Indices recorded; everything else is zero.
#include <string>
#include <vector>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/nn/WindowGeometry.h"

namespace npuwb::nn {
namespace {

void maxUnpool(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (x.rank() < 3) ctx.fail("X must have rank >= 3 ([N, C, spatial...])");
    if (indices.shape() != x.shape()) ctx.fail("I must have the shape of X");
    const size_t rank = x.rank() - 2;
    const std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
    if (kernel.size() != rank) ctx.fail("kernel_shape must have one value per spatial axis");
    const std::vector<int64_t> strides = spatialAttr(ctx, "strides", rank, 1);
    const std::vector<int64_t> pads = spatialAttr(ctx, "pads", 2 * rank, 0);

    // Indices address the unpooled tensor of the default (inferred) shape.
    Shape inferred{x.shape()[0], x.shape()[1]};
    for (size_t i = 0; i < rank; ++i)
        inferred.push_back((x.shape()[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + rank]);
    Shape outShape = inferred;
    if (ctx.hasInput(2)) {
        outShape = ctx.input(2).toInt64Vector();
        if (outShape.size() != x.rank()) ctx.fail("output_shape must have the rank of X");
    }
    // A larger requested output_shape keeps the inferred layout and pads at the end of each axis, as the
    // reference does.
    const std::vector<int64_t> inferredStrides = stridesOf(inferred);
    const std::vector<int64_t> outStrides = stridesOf(outShape);
    const int64_t inferredCount = shapeNumel(inferred);
    Tensor y(x.dtype(), outShape);
    const int64_t* idx = indices.data<int64_t>();
    visitNumeric(x.dtype(), [&]<typename T>() {
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        for (int64_t i = 0; i < x.numel(); ++i) {
            int64_t flat = idx[i];
            if (flat < 0 || flat >= inferredCount) ctx.fail("index " + std::to_string(flat) + " is out of range");
            int64_t target = 0;
            bool inside = true;
            for (size_t d = 0; d < inferred.size(); ++d) {
                const int64_t coord = flat / inferredStrides[d];
                flat -= coord * inferredStrides[d];
                inside = inside && coord < outShape[d];
                target += coord * outStrides[d];
            }
            if (inside) dst[target] = src[i];
        }
    }, "MaxUnpool");
    ctx.setOutput(0, std::move(y));
}

}  // namespace

NPUWB_KERNEL("MaxUnpool", maxUnpool);

}  // namespace npuwb::nn
