#pragma once
// A compiled run of nodes executed with XNNPACK operators. Every value inside lives at a fixed address in one
// arena (planned from lifetimes at compile time), so each XNNPACK operator is set up exactly once and a run is
// only: import boundary inputs (NCHW -> NHWC), run the operators, export boundary outputs (NHWC -> NCHW).
#include <xnnpack.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "npuwb/sdk/Backend.h"

namespace npuwb::xnn {

/// A value inside the segment. Rank-4 values are stored NHWC (the shape stays the ONNX NCHW one); the rest
/// row-major. Aliases (Reshape/Flatten that need no data movement) share their source's memory.
struct SegValue {
    std::string name;
    DType dtype = DType::F32;
    Shape shape;
    bool nhwc = false;
    bool u8AsS8 = false;  // a uint8 value stored as int8 q - 128 (QuantParams.h); boundaries flip the sign bit
    int aliasOf = -1;
    int64_t firstStep = -1;
    int64_t lastStep = -1;
    size_t offset = 0;
    int64_t bytes() const { return shapeNumel(shape) * static_cast<int64_t>(dtypeSize(dtype)); }
    DType boundaryType() const { return u8AsS8 ? DType::U8 : dtype; }
};

struct Step {
    std::vector<std::string> nodes;        // ONNX nodes this kernel covers (for per-layer timing)
    xnn_operator_t op = nullptr;           // owned; nullptr for steps that run plain code
    std::function<xnn_status()> setup;     // binds arena pointers once the arena exists
    std::function<void()> run;             // plain-code steps
};

class XnnSegment final : public PreparedSegment {
public:
    explicit XnnSegment(std::shared_ptr<pthreadpool> pool) : pool_(std::move(pool)) {}
    ~XnnSegment() override;
    XnnSegment(const XnnSegment&) = delete;
    XnnSegment& operator=(const XnnSegment&) = delete;

    pthreadpool_t pool() const { return pool_.get(); }
    /// A uint8 value is stored as int8 (see SegValue::u8AsS8).
    int addValue(const std::string& name, DType dtype, const Shape& shape);
    int addAlias(const std::string& name, const Shape& shape, int source);
    SegValue& value(int id) { return values_[static_cast<size_t>(id)]; }
    const SegValue& value(int id) const { return values_[static_cast<size_t>(id)]; }
    /// Arena address of a value (valid after finalize()).
    void* data(int id);
    template <class T> T* as(int id) { return static_cast<T*>(data(id)); }

    /// Records that `step` (the index addStep will return) reads / writes these values, for the arena plan.
    void touch(int id, int64_t step);
    int64_t nextStep() const { return static_cast<int64_t>(steps_.size()) + 1; }  // step 0 is the import
    void addStep(Step step) { steps_.push_back(std::move(step)); }
    /// Keeps compile-time data (e.g. a transposed constant operand) alive and padded for XNNPACK's over-reads.
    const float* keepConstant(std::vector<float> data);

    void setBoundary(std::vector<int> inputs, std::vector<int> outputs);
    /// Plans the arena and sets every operator up. Throws Unsupported when XNNPACK refuses a setup.
    void finalize();
    int64_t arenaBytes() const { return static_cast<int64_t>(arena_.size()); }
    int64_t scratchBytes() const override { return arenaBytes(); }

    /// Watched values are segment outputs here (see partition): the engine observes them.
    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs, const RunHooks& hooks) override;

private:
    int root(int id) const;

    std::shared_ptr<pthreadpool> pool_;  // the session's pool; nullptr runs on the calling thread
    std::vector<SegValue> values_;
    std::vector<Step> steps_;
    std::vector<std::vector<float>> constants_;
    std::vector<int> inputs_, outputs_;
    std::vector<std::byte> arena_;
    std::byte* arenaBase_ = nullptr;
    std::mutex runMutex_;  // the arena is shared state: one run at a time per segment
};

/// Throws Error(Unsupported) naming `what` when an XNNPACK call did not succeed.
void check(xnn_status status, const std::string& what);

}  // namespace npuwb::xnn
