#include "npuwb/ir/Tensor.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace npuwb {

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
    ~Storage() {
        if (owned) ::operator delete(data, std::align_val_t(64));
    }
};

namespace {
uint64_t physicalMemoryBytes() {
    long pages = sysconf(_SC_PHYS_PAGES);
    long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0) return uint64_t(1) << 40;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}
}  // namespace

int64_t shapeNumel(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) failInput("shape " + shapeToString(shape) + " has a negative or unknown dimension");
        if (d != 0 && n > INT64_MAX / d) failInput("shape " + shapeToString(shape) + " has more elements than int64 can count");
        n *= d;
    }
    return n;
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
    storage_ = std::make_shared<Storage>();
    if (dtype_ == DType::String) {
        storage_->strings.resize(static_cast<size_t>(numel_));
        return;
    }
    size_t bytes = byteSize();
    static const uint64_t limit = physicalMemoryBytes();
    if (static_cast<uint64_t>(numel_) > limit || bytes > limit)
        failInput("tensor of shape " + shapeToString(shape_) + " (" + std::string(dtypeName(dtype_)) +
                  ") needs more memory than this machine has");
    if (bytes == 0) return;
    void* p = ::operator new(bytes, std::align_val_t(64), std::nothrow);
    if (!p) failInput("cannot allocate " + std::to_string(bytes) + " bytes for a tensor of shape " + shapeToString(shape_));
    if (zeroed) std::memset(p, 0, bytes);
    storage_->data = p;
    storage_->owned = true;
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
