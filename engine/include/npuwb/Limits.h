#pragma once
// Limits that keep a hostile or mistaken model from exhausting the machine or running forever:
// - a memory budget that every tensor allocation is checked against (live tensor bytes + the new one);
// - run limits (a cancel flag, a deadline, a cap on loop iterations) that the executor checks between nodes,
//   inside Loop/Scan/If bodies and in long kernels.
// Both end the work with an npuwb::Error (InvalidInput for memory, Cancelled for time and cancel), never a crash.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "npuwb/ir/Tensor.h"

namespace npuwb {

/// Storage bytes of a tensor of this type and shape, checked: throws InvalidInput when they cannot be counted.
/// For validating declared sizes against the data present before allocating anything.
uint64_t tensorByteSize(DType dtype, const Shape& shape);

/// The budget in bytes. Default: 80% of the memory available when first asked (MemAvailable), or
/// $NPUWB_MEMORY_BUDGET ("4G", "512M", "100000" bytes) when set.
uint64_t memoryBudgetBytes();
/// Overrides the budget for this process (0 restores the default).
void setMemoryBudgetBytes(uint64_t bytes);
/// "4G", "512M", "64K" or plain bytes; throws InvalidInput naming `what` when malformed.
uint64_t parseByteSize(const std::string& text, const std::string& what);
/// Bytes held by live tensors right now.
uint64_t liveTensorBytes();
/// True when `bytes` more fit the budget (no message built: for hot paths).
bool withinMemoryBudget(uint64_t bytes);
/// Throws InvalidInput when `bytes` more would exceed the budget; `what` names the allocation (a tensor's shape).
void checkMemoryBudget(uint64_t bytes, const std::string& what);
/// "1.5 GB", "12 MB", "100 bytes".
std::string formatBytes(uint64_t bytes);

struct RunLimits {
    const std::atomic<bool>* cancel = nullptr;
    std::optional<std::chrono::steady_clock::time_point> deadline{};
    double timeoutSeconds = 0;  // for the message only
    /// Loop iterations allowed in one run over all Loop nodes (0: unbounded). Estimation sets one: it must
    /// never execute an unbounded loop to learn shapes.
    int64_t maxLoopIterations = 0;
    /// Why the loop cap exists, for its message ("estimation learns shapes with one reference run").
    std::string loopCapReason{};
};

/// Installs limits for the current thread while it lives (nested scopes: the innermost wins for the cap, but
/// every enclosing cancel flag and deadline still applies).
class RunLimitsScope {
public:
    explicit RunLimitsScope(RunLimits limits);
    ~RunLimitsScope();
    RunLimitsScope(const RunLimitsScope&) = delete;
    RunLimitsScope& operator=(const RunLimitsScope&) = delete;

private:
    RunLimits limits_;
    const RunLimitsScope* outer_;
    int64_t loopIterations_ = 0;
    friend void checkRunLimits();
    friend void countLoopIteration(const std::string&);
};

/// Limits for the whole process (the CLI's --timeout): apply on every thread, with or without a scope.
void setProcessDeadline(std::optional<std::chrono::steady_clock::time_point> deadline, double timeoutSeconds);
/// Seconds of the process's time limit (setProcessDeadline's), 0 when it has none: what a board job inherits.
double processTimeLimitSeconds();
/// Throws Error(Cancelled) when a cancel flag is set or a deadline has passed. Cheap: call it often.
void checkRunLimits();
/// For Loop kernels, once per iteration: checkRunLimits() plus the iteration cap; `node` names the Loop.
void countLoopIteration(const std::string& node);

}  // namespace npuwb
