#include "ops/flow/FlowUtil.h"

#include <cstring>
#include <string>

#include "ops/KernelUtil.h"

namespace npuwb::flow {

void copyElements(const Tensor& src, int64_t srcOffset, Tensor& dst, int64_t dstOffset, int64_t count) {
    if (src.dtype() != dst.dtype()) failInput("copyElements: element types differ");
    if (count <= 0) return;
    if (src.dtype() == DType::String) {
        const std::string* s = src.data<std::string>() + srcOffset;
        std::string* d = dst.data<std::string>() + dstOffset;
        for (int64_t i = 0; i < count; ++i) d[i] = s[i];
        return;
    }
    if (src.dtype() == DType::I4 || src.dtype() == DType::U4) failUnsupported("4-bit tensors cannot be sliced here");
    size_t esize = dtypeSize(src.dtype());
    if (esize == 0) failInput("copyElements: tensors of element type " + std::string(dtypeName(src.dtype())) + " hold no data");
    std::memcpy(static_cast<char*>(dst.raw()) + static_cast<size_t>(dstOffset) * esize,
                static_cast<const char*>(src.raw()) + static_cast<size_t>(srcOffset) * esize,
                static_cast<size_t>(count) * esize);
}

int64_t dimProduct(const Shape& shape, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t i = begin; i < end && i < shape.size(); ++i) n *= shape[i];
    return n;
}

Tensor takeAlongAxis(const Tensor& t, int64_t axis, int64_t index) {
    const Shape& s = t.shape();
    auto a = static_cast<size_t>(normalizeAxis(axis, static_cast<int64_t>(s.size())));
    if (index < 0 || index >= s[a]) failInput("index " + std::to_string(index) + " out of range along axis");
    Shape outShape = s;
    outShape.erase(outShape.begin() + static_cast<std::ptrdiff_t>(a));
    Tensor out(t.dtype(), outShape);
    int64_t outer = dimProduct(s, 0, a), n = s[a], inner = dimProduct(s, a + 1, s.size());
    for (int64_t o = 0; o < outer; ++o) copyElements(t, (o * n + index) * inner, out, o * inner, inner);
    return out;
}

void putAlongAxis(Tensor& dst, int64_t axis, int64_t index, const Tensor& slice) {
    const Shape& s = dst.shape();
    auto a = static_cast<size_t>(axis);
    int64_t outer = dimProduct(s, 0, a), n = s[a], inner = dimProduct(s, a + 1, s.size());
    if (slice.numel() != outer * inner) failInput("putAlongAxis: slice " + shapeToString(slice.shape()) +
                                                  " does not fit " + shapeToString(s));
    for (int64_t o = 0; o < outer; ++o) copyElements(slice, o * inner, dst, (o * n + index) * inner, inner);
}

Tensor sliceAlongAxis(const Tensor& t, int64_t axis, int64_t begin, int64_t end) {
    const Shape& s = t.shape();
    auto a = static_cast<size_t>(axis);
    Shape outShape = s;
    outShape[a] = end - begin;
    Tensor out(t.dtype(), outShape);
    int64_t outer = dimProduct(s, 0, a), n = s[a], inner = dimProduct(s, a + 1, s.size());
    int64_t len = end - begin;
    for (int64_t o = 0; o < outer; ++o) copyElements(t, (o * n + begin) * inner, out, o * len * inner, len * inner);
    return out;
}

Tensor stackTensors(const std::vector<Tensor>& items, int64_t axis) {
    if (items.empty()) failInput("cannot stack an empty list of tensors");
    const Tensor& first = items.front();
    for (const Tensor& t : items)
        if (t.shape() != first.shape() || t.dtype() != first.dtype())
            failInput("cannot stack tensors of shapes " + shapeToString(first.shape()) + " and " +
                      shapeToString(t.shape()));
    Shape outShape = first.shape();
    outShape.insert(outShape.begin() + axis, static_cast<int64_t>(items.size()));
    Tensor out(first.dtype(), outShape);
    for (size_t i = 0; i < items.size(); ++i) putAlongAxis(out, axis, static_cast<int64_t>(i), items[i]);
    return out;
}

Tensor concatTensors(const std::vector<Tensor>& items, int64_t axis) {
    if (items.empty()) failInput("cannot concatenate an empty list of tensors");
    const Tensor& first = items.front();
    auto a = static_cast<size_t>(axis);
    Shape outShape = first.shape();
    outShape[a] = 0;
    for (const Tensor& t : items) {
        bool compatible = t.dtype() == first.dtype() && t.rank() == first.rank();
        for (size_t d = 0; compatible && d < t.rank(); ++d)
            if (d != a && t.shape()[d] != first.shape()[d]) compatible = false;
        if (!compatible)
            failInput("cannot concatenate shapes " + shapeToString(first.shape()) + " and " + shapeToString(t.shape()));
        outShape[a] += t.shape()[a];
    }
    Tensor out(first.dtype(), outShape);
    int64_t outer = dimProduct(outShape, 0, a), inner = dimProduct(outShape, a + 1, outShape.size());
    int64_t offset = 0;  // along the axis
    for (const Tensor& t : items) {
        int64_t len = t.shape()[a];
        for (int64_t o = 0; o < outer; ++o)
            copyElements(t, o * len * inner, out, (o * outShape[a] + offset) * inner, len * inner);
        offset += len;
    }
    return out;
}

std::vector<double> toDoubles(const Tensor& t) {
    std::vector<double> out(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) out[static_cast<size_t>(i)] = t.elementAsDouble(i);
    return out;
}

Tensor fromDoubles(DType dtype, Shape shape, const std::vector<double>& values) {
    Tensor out(dtype, std::move(shape));
    if (static_cast<size_t>(out.numel()) != values.size()) failInput("fromDoubles: element count does not match shape");
    visitNumeric(dtype, [&]<typename T>() {
        T* d = out.data<T>();
        for (size_t i = 0; i < values.size(); ++i) d[i] = static_cast<T>(values[i]);
    }, "fromDoubles");
    return out;
}

}  // namespace npuwb::flow
