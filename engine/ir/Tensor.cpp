#include "npuwb/ir/Tensor.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "npuwb/Limits.h"

namespace npuwb {

// util/Limits.cpp keeps the count the memory budget is checked against.
void addLiveTensorBytes(uint64_t bytes);
void removeLiveTensorBytes(uint64_t bytes);

struct Tensor::Storage {
    void* data = nullptr;
    bool owned = false;
    std::vector<std::string> strings;
    std::string adopted;
    // Deferred data: made once on first access, then held through `made`.
    std::function<Tensor()> make;
    std::atomic<bool> pending{false};
    std::once_flag once;
    std::shared_ptr<Storage> made;
    uint64_t countedBytes = 0;  // reported to the memory budget's live count (util/Limits.cpp)
    ~Storage() {
        if (owned) ::operator delete(data, std::align_val_t(64));
        if (countedBytes) removeLiveTensorBytes(countedBytes);
    }
};

int64_t shapeNumel(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) failInput("shape " + shapeToString(shape) + " has a negative or unknown dimension");
        if (d != 0 && n > INT64_MAX / d) failInput("shape " + shapeToString(shape) + " has more elements than int64 can count");
        n *= d;
    }
    return n;
}

uint64_t tensorByteSize(DType dtype, const Shape& shape) {
    const auto numel = static_cast<uint64_t>(shapeNumel(shape));
    if (dtype == DType::String) return 0;
    if (dtype == DType::I4 || dtype == DType::U4) return (numel + 1) / 2;
    const uint64_t size = dtypeSize(dtype);
    if (size && numel > UINT64_MAX / size)
        failInput("shape " + shapeToString(shape) + " of " + std::string(dtypeName(dtype)) + " has more bytes than can be counted");
    return numel * size;
}

std::string shapeToString(const Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ",";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

Tensor::Tensor(DType dtype, Shape shape) : Tensor(dtype, std::move(shape), true) {}

Tensor Tensor::uninitialized(DType dtype, Shape shape) { return Tensor(dtype, std::move(shape), false); }

Tensor::Tensor(DType dtype, Shape shape, bool zeroed) : dtype_(dtype), shape_(std::move(shape)) {
    numel_ = shapeNumel(shape_);
    if (dtype_ == DType::String && static_cast<uint64_t>(numel_) > UINT64_MAX / sizeof(std::string))
        failInput("string tensor of shape " + shapeToString(shape_) + " has more elements than can be counted");
    const uint64_t bytes = dtype_ == DType::String ? static_cast<uint64_t>(numel_) * sizeof(std::string)
                                                   : tensorByteSize(dtype_, shape_);
    if (!withinMemoryBudget(bytes))  // the message is built only when it is needed
        checkMemoryBudget(bytes, "a " + std::string(dtypeName(dtype_)) + " tensor of shape " + shapeToString(shape_));
    storage_ = std::make_shared<Storage>();
    if (dtype_ == DType::String) {
        storage_->strings.resize(static_cast<size_t>(numel_));
        return;
    }
    if (bytes == 0) return;
    void* p = ::operator new(static_cast<size_t>(bytes), std::align_val_t(64), std::nothrow);
    if (!p) failInput("cannot allocate " + formatBytes(bytes) + " for a tensor of shape " + shapeToString(shape_));
    if (zeroed) std::memset(p, 0, static_cast<size_t>(bytes));
    storage_->data = p;
    storage_->owned = true;
    storage_->countedBytes = bytes;
    addLiveTensorBytes(bytes);
}

Tensor Tensor::adopt(DType dtype, Shape shape, std::string&& bytes) {
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    t.numel_ = shapeNumel(t.shape_);
    if (dtype == DType::String || bytes.size() != t.byteSize())
        failInput("cannot adopt " + std::to_string(bytes.size()) + " bytes as a " + std::string(dtypeName(dtype)) +
                  " tensor of shape " + shapeToString(t.shape_));
    t.storage_ = std::make_shared<Storage>();
    t.storage_->adopted = std::move(bytes);
    t.storage_->countedBytes = t.storage_->adopted.size();
    addLiveTensorBytes(t.storage_->countedBytes);
    t.storage_->data = t.storage_->adopted.empty() ? nullptr : t.storage_->adopted.data();
    return t;
}

Tensor Tensor::deferred(DType dtype, Shape shape, std::function<Tensor()> make) {
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    t.numel_ = shapeNumel(t.shape_);
    if (dtype == DType::String) fail(ErrorKind::Internal, "string tensors cannot be deferred");
    t.storage_ = std::make_shared<Storage>();
    t.storage_->make = std::move(make);
    t.storage_->pending.store(true, std::memory_order_release);
    return t;
}

bool Tensor::isDeferred() const { return storage_ && storage_->pending.load(std::memory_order_acquire); }

Tensor Tensor::view(DType dtype, Shape shape, void* data) {
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    t.numel_ = shapeNumel(t.shape_);
    t.storage_ = std::make_shared<Storage>();
    t.storage_->data = data;
    return t;
}

int64_t Tensor::dim(int64_t axis) const {
    int64_t r = static_cast<int64_t>(shape_.size());
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) failInput("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(r));
    return shape_[static_cast<size_t>(axis)];
}

size_t Tensor::byteSize() const {
    if (dtype_ == DType::String) return 0;
    if (dtype_ == DType::I4 || dtype_ == DType::U4) return static_cast<size_t>((numel_ + 1) / 2);
    return static_cast<size_t>(numel_) * dtypeSize(dtype_);
}

void* Tensor::raw() {
    if (!storage_) return nullptr;
    if (dtype_ == DType::String) return storage_->strings.data();
    if (storage_->pending.load(std::memory_order_acquire)) {
        Storage& s = *storage_;
        std::call_once(s.once, [&] {
            Tensor t = s.make();
            if (t.dtype() != dtype_ || t.numel() != numel_)
                fail(ErrorKind::Internal, "a deferred tensor was made as " + std::string(dtypeName(t.dtype())) + " " +
                                              shapeToString(t.shape()) + ", not " + std::string(dtypeName(dtype_)) +
                                              " " + shapeToString(shape_));
            s.made = t.storage_;
            s.data = t.raw();
            s.make = nullptr;
            s.pending.store(false, std::memory_order_release);
        });
    }
    return storage_->data;
}
const void* Tensor::raw() const { return const_cast<Tensor*>(this)->raw(); }

void Tensor::checkType(DType requested) const {
    if (requested != dtype_)
        fail(ErrorKind::Internal, "tensor holds " + std::string(dtypeName(dtype_)) + ", accessed as " +
                                      std::string(dtypeName(requested)));
}

Tensor Tensor::reshaped(Shape shape) const {
    if (shapeNumel(shape) != numel_)
        failInput("cannot reshape " + shapeToString(shape_) + " to " + shapeToString(shape));
    Tensor t = *this;
    t.shape_ = std::move(shape);
    return t;
}

Tensor Tensor::clone() const {
    if (!defined()) return {};
    Tensor t(dtype_, shape_);
    if (dtype_ == DType::String)
        t.storage_->strings = storage_->strings;
    else if (byteSize())
        std::memcpy(t.raw(), raw(), byteSize());
    return t;
}

double Tensor::elementAsDouble(int64_t i) const {
    if (dtype_ == DType::Bool) return data<bool>()[i] ? 1.0 : 0.0;
    return visitNumeric(dtype_, [&]<typename T>() { return static_cast<double>(data<T>()[i]); }, "elementAsDouble");
}

int64_t Tensor::elementAsInt(int64_t i) const {
    if (dtype_ == DType::Bool) return data<bool>()[i] ? 1 : 0;
    return visitNumeric(dtype_, [&]<typename T>() {
        if constexpr (std::is_integral_v<T>) return static_cast<int64_t>(data<T>()[i]);
        else return static_cast<int64_t>(static_cast<double>(data<T>()[i]));
    }, "elementAsInt");
}

std::vector<int64_t> Tensor::toInt64Vector() const {
    std::vector<int64_t> out(static_cast<size_t>(numel_));
    for (int64_t i = 0; i < numel_; ++i) out[static_cast<size_t>(i)] = elementAsInt(i);
    return out;
}

std::vector<float> Tensor::toFloatVector() const {
    if (dtype_ == DType::F32) {  // weights: a plain copy, not a conversion per element
        const float* p = data<float>();
        return std::vector<float>(p, p + numel_);
    }
    std::vector<float> out(static_cast<size_t>(numel_));
    for (int64_t i = 0; i < numel_; ++i) out[static_cast<size_t>(i)] = static_cast<float>(elementAsDouble(i));
    return out;
}

}  // namespace npuwb
