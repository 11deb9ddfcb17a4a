#pragma once
// The stand-in's test container (README.md in this folder): what it accepts instead of a real .rknn file.
#include <cstdint>
#include <string>

namespace npuwb::standin {

inline constexpr const char* kContainerMagic = "NPUWB-STANDIN-RKNN 1\n";

struct Container {
    std::string targetPlatform;  // lower case, e.g. "rk3588"
    int64_t npuCores = 0;        // 0: not given, take the chip profile's
    int64_t batch = 1;           // rknn_batch_size: inputs and outputs are this many times the ONNX model's
    std::string onnx;            // the embedded ONNX model, byte for byte
};

/// True when the bytes start like Rockchip's own .rknn files ("RKNN").
bool looksLikeRealRknn(const std::string& bytes);
/// Parses a container; throws npuwb::Error(InvalidInput) naming `label` and what is wrong.
Container parseContainer(const std::string& bytes, const std::string& label);

}  // namespace npuwb::standin
