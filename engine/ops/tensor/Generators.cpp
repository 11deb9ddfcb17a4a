// Ops that create tensors from attributes or a few scalars: Constant, ConstantOfShape, EyeLike, Range, OneHot.
#include <cmath>

#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

void constant(KernelContext& ctx) {
    const Node& n = ctx.node();
    if (const Attribute* a = n.attribute("value")) return ctx.setOutput(0, a->t);
    if (const Attribute* a = n.attribute("sparse_value"); a && a->t.defined()) return ctx.setOutput(0, a->t);
    if (const Attribute* a = n.attribute("value_float")) return ctx.setOutput(0, Tensor::scalar<float>(a->f));
    if (const Attribute* a = n.attribute("value_int")) return ctx.setOutput(0, Tensor::scalar<int64_t>(a->i));
    if (const Attribute* a = n.attribute("value_string")) return ctx.setOutput(0, Tensor::scalar<std::string>(a->s));
    if (const Attribute* a = n.attribute("value_floats"))
        return ctx.setOutput(0, Tensor::fromVector<float>({static_cast<int64_t>(a->floats.size())}, a->floats));
    if (const Attribute* a = n.attribute("value_ints"))
        return ctx.setOutput(0, Tensor::fromVector<int64_t>({static_cast<int64_t>(a->ints.size())}, a->ints));
    if (const Attribute* a = n.attribute("value_strings"))
        return ctx.setOutput(0, Tensor::fromVector<std::string>({static_cast<int64_t>(a->strings.size())}, a->strings));
    if (n.hasAttribute("sparse_value")) ctx.failUnsupported("sparse_value constants are not supported");
    ctx.fail("Constant needs one of the value* attributes");
}

void constantOfShape(KernelContext& ctx) {
    Shape shape = ctx.input(0).toInt64Vector();
    for (int64_t d : shape)
        if (d < 0) ctx.fail("shape " + shapeToString(shape) + " has a negative dimension");
    const Attribute* a = ctx.node().attribute("value");
    if (!a || !a->t.defined()) return ctx.setOutput(0, Tensor(DType::F32, shape));  // default: float 0
    const Tensor& v = a->t;
    if (v.numel() != 1) ctx.fail("value must hold exactly one element");
    Tensor out(v.dtype(), shape);
    visitAny(v.dtype(), [&]<typename T>() {
        T fill = v.data<T>()[0];
        for (T& x : out.values<T>()) x = fill;
    }, "ConstantOfShape");
    ctx.setOutput(0, std::move(out));
}

void eyeLike(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 2) ctx.fail("input must be 2-D, got " + shapeToString(x.shape()));
    DType dtype = ctx.hasAttr("dtype") ? dtypeFromOnnx(ctx, ctx.attrInt("dtype", 1)) : x.dtype();
    int64_t k = ctx.attrInt("k", 0);
    int64_t rows = x.shape()[0], cols = x.shape()[1];
    Tensor out(dtype, x.shape());
    visitAny(dtype, [&]<typename T>() {
        if constexpr (std::is_same_v<T, std::string>) {
            ctx.failUnsupported("EyeLike of strings");
        } else {
            T* o = out.data<T>();
            for (int64_t r = 0; r < rows; ++r)
                if (r + k >= 0 && r + k < cols) o[r * cols + r + k] = T(1);
        }
    }, "EyeLike");
    ctx.setOutput(0, std::move(out));
}

void range(KernelContext& ctx) {
    const Tensor& start = ctx.input(0);
    const Tensor& limit = ctx.input(1);
    const Tensor& delta = ctx.input(2);
    visitNumeric(start.dtype(), [&]<typename T>() {
        double s = start.elementAsDouble(0), l = limit.elementAsDouble(0), d = delta.elementAsDouble(0);
        if (d == 0.0) ctx.fail("delta must not be zero");
        int64_t count = 0;
        if constexpr (std::is_integral_v<T>) {
            // Exact in integers: the doubles above lose precision past 2^53.
            const __int128 span = static_cast<__int128>(limit.elementAsInt(0)) - start.elementAsInt(0);
            const __int128 step = delta.elementAsInt(0);
            const __int128 n = step > 0 ? (span + step - 1) / step : (span + step + 1) / step;
            if (n > INT64_MAX) ctx.fail("the output would have more elements than int64 can count");
            count = n > 0 ? static_cast<int64_t>(n) : 0;
        } else {
            count = std::max<int64_t>(integerFrom(std::ceil((l - s) / d), "Range's element count"), 0);
        }
        checkOutputBudget(start.dtype(), {count}, 0);
        Tensor out(start.dtype(), {count});
        T* o = out.data<T>();
        if constexpr (std::is_integral_v<T>) {
            int64_t si = start.elementAsInt(0), di = delta.elementAsInt(0);
            for (int64_t i = 0; i < count; ++i) o[i] = static_cast<T>(si + i * di);
        } else {
            for (int64_t i = 0; i < count; ++i) {
                double v = s + static_cast<double>(i) * d;
                if constexpr (std::is_same_v<T, double>) o[i] = v;
                else o[i] = T(static_cast<float>(v));
            }
        }
        ctx.setOutput(0, std::move(out));
    }, "Range");
}

void oneHot(KernelContext& ctx) {
    const Tensor& indices = ctx.input(0);
    int64_t depth = integerFrom(scalarAsDouble(ctx.input(1)), "OneHot's depth");
    const Tensor& values = ctx.input(2);
    if (depth <= 0) ctx.fail("depth must be positive");
    if (values.numel() != 2) ctx.fail("values must hold [off_value, on_value]");
    int64_t rank = rankOf(indices);
    int64_t axis = normalizeAxis(ctx.attrInt("axis", -1), rank + 1);
    Shape outShape = indices.shape();
    outShape.insert(outShape.begin() + axis, depth);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= indices.shape()[uz(d)];
    for (int64_t d = axis; d < rank; ++d) inner *= indices.shape()[uz(d)];
    std::vector<int64_t> idx(uz(indices.numel()));
    for (int64_t i = 0; i < indices.numel(); ++i) idx[uz(i)] = saturatedInteger(indices.elementAsDouble(i));
    Tensor out(values.dtype(), outShape);
    visitAny(values.dtype(), [&]<typename T>() {
        const T off = values.data<T>()[0], on = values.data<T>()[1];
        T* o = out.data<T>();
        for (int64_t a = 0; a < outer; ++a)
            for (int64_t d = 0; d < depth; ++d)
                for (int64_t b = 0; b < inner; ++b) {
                    int64_t v = idx[uz(a * inner + b)];
                    if (v < 0) v += depth;  // negative indices count from the back; out of range stays off
                    o[(a * depth + d) * inner + b] = v == d ? on : off;
                }
    }, "OneHot");
    ctx.setOutput(0, std::move(out));
}

}  // namespace

NPUWB_KERNEL("Constant", constant);
NPUWB_KERNEL("ConstantOfShape", constantOfShape);
NPUWB_KERNEL("EyeLike", eyeLike);
NPUWB_KERNEL("Range", range);
NPUWB_KERNEL("OneHot", oneHot);

}  // namespace npuwb
