#pragma once
// One exception type for the whole engine: the CLI maps kind() to exit codes, the GUI to a message box.
#include <stdexcept>
#include <string>

namespace npuwb {

enum class ErrorKind {
    InvalidInput,  // malformed model, wrong input, impossible shape: the user's to fix (exit 1)
    Unsupported,   // a valid model uses something we do not implement (exit 1)
    Io,            // file cannot be read or written (exit 1)
    Cancelled,     // the user asked to stop
    Internal,      // a bug in the engine (exit 2)
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const { return kind_; }

private:
    ErrorKind kind_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }
[[noreturn]] inline void failInput(const std::string& message) { throw Error(ErrorKind::InvalidInput, message); }
[[noreturn]] inline void failUnsupported(const std::string& message) { throw Error(ErrorKind::Unsupported, message); }

}  // namespace npuwb
