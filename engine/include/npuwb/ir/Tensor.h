#pragma once
// A dense tensor: element type, concrete shape and a reference-counted buffer (64-byte aligned, except the 16-byte
// aligned weights a parsed model hands over with adopt()).
// Copies share the buffer; clone() copies the data. Reshaping views share it too.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "npuwb/ir/DType.h"

namespace npuwb {

using Shape = std::vector<int64_t>;

/// Number of elements; throws InvalidInput on negative dims or when the count overflows int64.
int64_t shapeNumel(const Shape& shape);
std::string shapeToString(const Shape& shape);  // "[1,3,224,224]"

class Tensor {
public:
    Tensor() = default;
    /// Allocates zero-initialised storage. Throws InvalidInput if the size is impossible for this machine.
    Tensor(DType dtype, Shape shape);
    /// Like the constructor, without zeroing: for a buffer a kernel overwrites entirely (a backend segment's
    /// outputs: zeroing them page by page cost calibration a third of its time). Strings are still constructed.
    static Tensor uninitialized(DType dtype, Shape shape);
    /// Takes over `bytes` (a parsed model's raw weights) as storage without copying or zeroing: loading resnet50
    /// spent 85 ms zero-filling and copying 100 MB. Throws InvalidInput when the size does not fit the shape.
    static Tensor adopt(DType dtype, Shape shape, std::string&& bytes);
    /// A tensor whose data `make` computes on first access (raw(), data(), values()), once, on any thread; its
    /// type and shape are known before. `make` must return a tensor of that type and shape. A QDQ model's folded
    /// float weights are such: the int8 backends read the int8 source and never make them (resnet50: 100 MB).
    static Tensor deferred(DType dtype, Shape shape, std::function<Tensor()> make);
    /// True while a deferred tensor's data has not been made.
    bool isDeferred() const;
    /// Wraps caller-owned memory (e.g. a planned arena slot); the caller keeps it alive.
    static Tensor view(DType dtype, Shape shape, void* data);

    template <class T> static Tensor scalar(T value) {
        Tensor t(dtypeOf<T>, {});
        t.data<T>()[0] = value;
        return t;
    }
    template <class T> static Tensor fromVector(Shape shape, const std::vector<T>& values) {
        Tensor t(dtypeOf<T>, std::move(shape));
        if (static_cast<size_t>(t.numel()) != values.size()) failInput("fromVector: element count does not match shape");
        T* out = t.data<T>();
        for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
        return t;
    }

    bool defined() const { return dtype_ != DType::Undefined; }
    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    size_t rank() const { return shape_.size(); }
    int64_t dim(int64_t axis) const;  // negative axes count from the back
    int64_t numel() const { return numel_; }
    size_t byteSize() const;  // storage bytes (packed for 4-bit types; 0 for strings)

    template <class T> T* data() {
        checkType(dtypeOf<T>);
        return static_cast<T*>(raw());
    }
    template <class T> const T* data() const {
        checkType(dtypeOf<T>);
        return static_cast<const T*>(raw());
    }
    template <class T> std::span<T> values() { return {data<T>(), static_cast<size_t>(numel_)}; }
    template <class T> std::span<const T> values() const { return {data<T>(), static_cast<size_t>(numel_)}; }
    void* raw();
    const void* raw() const;

    /// Same buffer, new shape with the same element count.
    Tensor reshaped(Shape shape) const;
    /// Deep copy.
    Tensor clone() const;
    /// Element i converted to double / int64 (any numeric or bool type): for shape-like inputs and tests.
    double elementAsDouble(int64_t i) const;
    int64_t elementAsInt(int64_t i) const;
    /// All elements as int64 (shape tensors, axes, indices).
    std::vector<int64_t> toInt64Vector() const;
    std::vector<float> toFloatVector() const;

private:
    void checkType(DType requested) const;

    struct Storage;
    Tensor(DType dtype, Shape shape, bool zeroed);
    DType dtype_ = DType::Undefined;
    Shape shape_;
    int64_t numel_ = 0;
    std::shared_ptr<Storage> storage_;
};

}  // namespace npuwb
