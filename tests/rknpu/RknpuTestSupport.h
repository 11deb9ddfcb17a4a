#pragma once
// Shared by the rknpu plugin's tests: a small ONNX model wrapped into the stand-in runtime's test container
// (standin/README.md, written by its own tool, make_standin_rknn.py), and options that point at the stand-in.
#include <string>

#include "npuwb/Error.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::rknpu_test {

/// x float32 [1,3,8,8] -> Conv 3x3 (4 filters, pad 1) -> Relu -> y float32 [1,4,8,8]: every output element depends on
/// its own neighbourhood of the input, so a batch slice fed the wrong input shows.
inline constexpr int kInputElems = 3 * 8 * 8;
inline constexpr int kOutputElems = 4 * 8 * 8;
inline constexpr int kWeightBytes = (4 * 3 * 3 * 3 + 4) * 4;

/// A container for `target` ("rk3588", "rk3566", ...) with the stand-in's own multi-batch `batch`, made once per
/// process in the test work folder.
std::string standinModel(const std::string& target, int batch = 1);
/// A file in the test work folder (unique per process).
std::string workFile(const std::string& name);
/// Options running on the stand-in.
ModelRunOptions standinOptions(int runs = 3, int warmup = 1);

template <class F> Error thrownBy(F f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    return Error(ErrorKind::Internal, "no npuwb::Error thrown");
}

}  // namespace npuwb::rknpu_test
