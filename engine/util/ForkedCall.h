#pragma once
// Runs a piece of untrusted native work (ONNX's shape inference and version converter trust the model and can
// crash or hang on hostile files) in a forked child process and brings back its result bytes. A crash or a hang
// in the child only fails the call; the caller's process lives on.
#include <functional>
#include <string>

namespace npuwb {

struct ForkedResult {
    enum class Status { Ok, Crashed, TimedOut, CouldNotStart };
    Status status = Status::CouldNotStart;
    std::string output;  // what `work` returned (Ok only)
};

/// `work` runs in the child; what it returns is sent back through a pipe. An exception in `work` counts as Crashed.
ForkedResult runForked(const std::function<std::string()>& work, int timeoutSeconds);

}  // namespace npuwb
