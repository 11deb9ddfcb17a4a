#include "XnnSegment.h"

#include <chrono>
#include <cstring>

#include "Layout.h"
#include "QuantParams.h"
#include "npuwb/sdk/MemoryPlanner.h"

namespace npuwb::xnn {
namespace {
// XNNPACK micro-kernels may read (never write) up to XNN_EXTRA_BYTES past the end of a tensor.
constexpr int64_t kOverReadBytes = 64;
}  // namespace

void check(xnn_status status, const std::string& what) {
    if (status != xnn_status_success)
        failUnsupported("XNNPACK refused " + what + " (xnn_status " + std::to_string(static_cast<int>(status)) + ")");
}

XnnSegment::~XnnSegment() {
    for (Step& step : steps_)
        if (step.op) xnn_delete_operator(step.op);
}

int XnnSegment::addValue(const std::string& name, DType dtype, const Shape& shape) {
    SegValue v;
    v.name = name;
    v.dtype = dtype == DType::U8 ? DType::I8 : dtype;
    v.u8AsS8 = dtype == DType::U8;
    v.shape = shape;
    v.nhwc = shape.size() == 4;
    values_.push_back(std::move(v));
    return static_cast<int>(values_.size()) - 1;
}

int XnnSegment::addAlias(const std::string& name, const Shape& shape, int source) {
    const int id = addValue(name, value(source).dtype, shape);
    values_.back().u8AsS8 = value(source).u8AsS8;
    values_.back().aliasOf = root(source);
    return id;
}

int XnnSegment::root(int id) const {
    while (values_[static_cast<size_t>(id)].aliasOf >= 0) id = values_[static_cast<size_t>(id)].aliasOf;
    return id;
}

void XnnSegment::touch(int id, int64_t step) {
    SegValue& v = value(id);
    if (v.firstStep < 0 || step < v.firstStep) v.firstStep = step;
    v.lastStep = std::max(v.lastStep, step);
}

void* XnnSegment::data(int id) { return arenaBase_ + value(root(id)).offset; }

const float* XnnSegment::keepConstant(std::vector<float> data) {
    data.resize(data.size() + kOverReadBytes / sizeof(float), 0.0f);
    constants_.push_back(std::move(data));
    return constants_.back().data();
}

void XnnSegment::setBoundary(std::vector<int> inputs, std::vector<int> outputs) {
    inputs_ = std::move(inputs);
    outputs_ = std::move(outputs);
}

void XnnSegment::finalize() {
    const int64_t exportStep = static_cast<int64_t>(steps_.size()) + 1;
    for (int id : inputs_) touch(id, 0);
    for (int id : outputs_) touch(id, exportStep);
    // An alias keeps its source's memory alive for as long as either is used.
    std::vector<TensorLifetime> lifetimes;
    std::vector<int> planned;
    for (size_t i = 0; i < values_.size(); ++i) {
        const SegValue& v = values_[i];
        if (v.aliasOf < 0 || v.firstStep < 0) continue;
        SegValue& r = value(root(static_cast<int>(i)));
        r.firstStep = r.firstStep < 0 ? v.firstStep : std::min(r.firstStep, v.firstStep);
        r.lastStep = std::max(r.lastStep, v.lastStep);
    }
    for (size_t i = 0; i < values_.size(); ++i) {
        const SegValue& v = values_[i];
        if (v.aliasOf >= 0 || v.firstStep < 0) continue;
        lifetimes.push_back({v.name, v.bytes() + kOverReadBytes, 0, v.firstStep, v.lastStep});
        planned.push_back(static_cast<int>(i));
    }
    const MemoryPlan plan = planMemory(lifetimes, 64);
    arena_.assign(static_cast<size_t>(plan.arenaBytes + 64), std::byte{0});
    const auto base = reinterpret_cast<uintptr_t>(arena_.data());
    arenaBase_ = arena_.data() + ((64 - base % 64) % 64);
    for (size_t k = 0; k < planned.size(); ++k) value(planned[k]).offset = static_cast<size_t>(plan.tensors[k].offset);
    for (Step& step : steps_)
        if (step.setup) check(step.setup(), "setup of " + (step.nodes.empty() ? std::string("?") : step.nodes[0]));
}

void XnnSegment::run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs, const RunHooks& hooks) {
    std::lock_guard lock(runMutex_);
    KernelTimingSink* timing = hooks.timing;
    if (inputs.size() != inputs_.size()) failInput("xnnpack segment: wrong number of inputs");
    for (size_t i = 0; i < inputs_.size(); ++i) {
        const SegValue& v = value(inputs_[i]);
        const Tensor& t = *inputs[i];
        if (t.dtype() != v.boundaryType() || t.shape() != v.shape)
            failInput("xnnpack segment: input '" + v.name + "' is " + shapeToString(t.shape()) + ", compiled for " +
                      shapeToString(v.shape));
        if (v.nhwc)
            nchwToNhwc(t.raw(), data(inputs_[i]), dtypeSize(v.dtype), static_cast<size_t>(v.shape[0]),
                       static_cast<size_t>(v.shape[1]), static_cast<size_t>(v.shape[2] * v.shape[3]), pool());
        else
            std::memcpy(data(inputs_[i]), t.raw(), static_cast<size_t>(v.bytes()));
        if (v.u8AsS8) flipSign(data(inputs_[i]), static_cast<size_t>(v.bytes()));
    }
    using Clock = std::chrono::steady_clock;
    for (Step& step : steps_) {
        const auto start = timing ? Clock::now() : Clock::time_point{};
        if (step.op)
            check(xnn_run_operator(step.op, pool()), "run of " + step.nodes[0]);
        else
            step.run();
        if (timing)
            timing->kernelTimed(step.nodes, std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    outputs.resize(outputs_.size());
    for (size_t i = 0; i < outputs_.size(); ++i) {
        const SegValue& v = value(outputs_[i]);
        Tensor& out = outputs[i];
        if (!out.defined() || out.dtype() != v.boundaryType() || out.shape() != v.shape)
            out = Tensor::uninitialized(v.boundaryType(), v.shape);  // fully written below
        if (v.nhwc)
            nhwcToNchw(data(outputs_[i]), out.raw(), dtypeSize(v.dtype), static_cast<size_t>(v.shape[0]),
                       static_cast<size_t>(v.shape[1]), static_cast<size_t>(v.shape[2] * v.shape[3]), pool());
        else
            std::memcpy(out.raw(), data(outputs_[i]), static_cast<size_t>(v.bytes()));
        if (v.u8AsS8) flipSign(out.raw(), static_cast<size_t>(v.bytes()));
    }
}

}  // namespace npuwb::xnn
