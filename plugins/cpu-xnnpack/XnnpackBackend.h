#pragma once
// The cpu-xnnpack backend: claims the nodes XNNPACK runs (float32, and int8 QDQ / QLinear* patterns as qs8 kernels,
// Int8Ops.cpp; NHWC inside segments), groups consecutive claimed nodes into segments, fuses BatchNormalization and
// Relu/Clip into the operator before them, and owns the session's thread pool.
#include <pthreadpool.h>

#include <memory>
#include <set>

#include "npuwb/sdk/Backend.h"

namespace npuwb::xnn {

class XnnpackBackend final : public Backend {
public:
    XnnpackBackend();
    std::string name() const override { return "cpu-xnnpack"; }
    void setThreads(int threads) override;
    Capability supports(const NodeQuery& query) const override;
    CompileResult compile(const GraphQuery& query) override;

private:
    /// One partitioning attempt; a node whose lowering XNNPACK refuses is added to `refused` and the caller retries.
    CompileResult partition(const GraphQuery& query, std::map<size_t, std::string>& refused, bool& retry);

    bool initialized_ = false;
    std::shared_ptr<pthreadpool> pool_;
};

}  // namespace npuwb::xnn
