#include "ops/tensor/TensorOpsUtil.h"

#include <cmath>

namespace npuwb::tensorops {

Tensor gatherByIndex(const Tensor& src, Shape outShape, std::span<const int64_t> srcIndex) {
    Tensor out(src.dtype(), std::move(outShape));
    if (static_cast<size_t>(out.numel()) != srcIndex.size())
        fail(ErrorKind::Internal, "gatherByIndex: index count does not match the output shape");
    visitAny(src.dtype(), [&]<typename T>() {
        const T* s = src.data<T>();
        T* o = out.data<T>();
        for (size_t i = 0; i < srcIndex.size(); ++i) o[i] = s[srcIndex[i]];
    }, "data movement");
    return out;
}

std::vector<int64_t> stridedIndex(const Shape& outShape, const std::vector<int64_t>& strides, int64_t offset) {
    std::vector<int64_t> idx;
    idx.reserve(uz(shapeNumel(outShape)));
    // Odometer walk: keeps the current offset instead of recomputing it from the coordinates.
    int64_t cur = offset;
    forEachCoord(outShape, [&](const std::vector<int64_t>& coord) {
        idx.push_back(cur);
        for (int64_t d = static_cast<int64_t>(coord.size()) - 1; d >= 0; --d) {
            size_t du = uz(d);
            if (coord[du] + 1 < outShape[du]) { cur += strides[du]; return; }
            cur -= strides[du] * coord[du];
        }
    });
    return idx;
}

std::vector<double> toDoubles(const Tensor& t) {
    std::vector<double> v(uz(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) v[uz(i)] = t.elementAsDouble(i);
    return v;
}

Tensor fromDoubles(DType dtype, Shape shape, const std::vector<double>& values) {
    Tensor out(dtype, std::move(shape));
    visitNumeric(dtype, [&]<typename T>() {
        T* o = out.data<T>();
        for (size_t i = 0; i < values.size(); ++i) {
            if constexpr (std::is_integral_v<T>) o[i] = static_cast<T>(std::nearbyint(values[i]));
            else if constexpr (std::is_same_v<T, double>) o[i] = values[i];
            else o[i] = T(static_cast<float>(values[i]));
        }
    }, "fromDoubles");
    return out;
}

std::vector<int64_t> intsFromInputOrAttr(const KernelContext& ctx, size_t index, const std::string& attr) {
    if (ctx.hasInput(index)) return ctx.input(index).toInt64Vector();
    return ctx.attrInts(attr);
}

Tensor filledTensor(DType dtype, const Shape& shape, double value) {
    Tensor out(dtype, shape);
    visitAny(dtype, [&]<typename T>() {
        T v{};
        if constexpr (std::is_same_v<T, std::string>) v = std::string();
        else if constexpr (std::is_same_v<T, bool>) v = value != 0.0;
        else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) v = T(static_cast<float>(value));
        else v = static_cast<T>(value);
        for (T& x : out.values<T>()) x = v;
    }, "fill");
    return out;
}

}  // namespace npuwb::tensorops

namespace npuwb::tensorops {
DType dtypeFromOnnx(const KernelContext& ctx, int64_t onnxType) {
    DType d = dtypeFromOnnxCode(onnxType);
    if (d == DType::Undefined) ctx.failUnsupported("element type number " + std::to_string(onnxType) + " is not supported");
    return d;
}
}  // namespace npuwb::tensorops
