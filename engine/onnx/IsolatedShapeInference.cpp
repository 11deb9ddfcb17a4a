#include "onnx/IsolatedShapeInference.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <onnx/shape_inference/implementation.h>
#include <string>

namespace npuwb::onnxconv {

namespace {

/// Inference needs initializer shapes and small integer values (Reshape targets), not float weights: dropping
/// them keeps the copy sent to the child small.
void stripLargeInitializerData(onnx::GraphProto& g) {
    for (auto& t : *g.mutable_initializer()) {
        bool integer = t.data_type() == onnx::TensorProto_DataType_INT64 || t.data_type() == onnx::TensorProto_DataType_INT32;
        bool external = t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
        if (external || (!integer && t.ByteSizeLong() > 4096)) {
            t.clear_raw_data();
            t.clear_float_data();
            t.clear_double_data();
            t.clear_int32_data();
            t.clear_int64_data();
            t.clear_uint64_data();
            t.clear_external_data();
            t.clear_data_location();
        }
    }
}

[[noreturn]] void childMain(onnx::ModelProto& model, int fd) {
    int status = 1;
    try {
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                           onnx::ShapeInferenceOptions(false, 0, true));
        onnx::GraphProto result;  // only what the parent merges back
        *result.mutable_value_info() = model.graph().value_info();
        *result.mutable_output() = model.graph().output();
        std::string bytes = result.SerializeAsString();
        size_t done = 0;
        while (done < bytes.size()) {
            ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (n <= 0) _exit(1);
            done += static_cast<size_t>(n);
        }
        status = 0;
    } catch (...) {
    }
    ::close(fd);
    _exit(status);
}

}  // namespace

bool inferShapesIsolated(onnx::ModelProto& model, int timeoutSeconds) {
    onnx::ModelProto light = model;
    stripLargeInitializerData(*light.mutable_graph());
    int fds[2];
    if (::pipe(fds) != 0) return false;
    pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return false;
    }
    if (pid == 0) {
        ::close(fds[0]);
        childMain(light, fds[1]);
    }
    ::close(fds[1]);
    std::string bytes;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    bool timedOut = false;
    char buf[65536];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) { timedOut = true; break; }
        pollfd p{fds[0], POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(left.count()));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { timedOut = r == 0; break; }
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes.append(buf, static_cast<size_t>(n));
    }
    ::close(fds[0]);
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
    onnx::GraphProto result;
    if (!result.ParseFromString(bytes)) return false;
    *model.mutable_graph()->mutable_value_info() = result.value_info();
    if (result.output_size() == model.graph().output_size()) *model.mutable_graph()->mutable_output() = result.output();
    return true;
}

}  // namespace npuwb::onnxconv
