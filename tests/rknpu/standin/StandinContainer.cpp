#include "StandinContainer.h"

#include <nlohmann/json.hpp>

#include "npuwb/Error.h"

namespace npuwb::standin {

bool looksLikeRealRknn(const std::string& bytes) { return bytes.rfind("RKNN", 0) == 0; }

Container parseContainer(const std::string& bytes, const std::string& label) {
    const std::string magic = kContainerMagic;
    if (bytes.rfind(magic, 0) != 0)
        failInput(label + ": not a stand-in test container (it must start with the line '" +
                  magic.substr(0, magic.size() - 1) + "')");
    const size_t headerEnd = bytes.find('\n', magic.size());
    if (headerEnd == std::string::npos) failInput(label + ": the JSON header line has no end");
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(bytes.substr(magic.size(), headerEnd - magic.size()));
    } catch (const nlohmann::json::exception& e) {
        failInput(label + ": the JSON header line is not JSON: " + e.what());
    }
    if (!header.is_object()) failInput(label + ": the JSON header is not an object");
    Container c;
    auto field = [&](const char* name) -> const nlohmann::json& {
        if (!header.contains(name)) failInput(label + ": the JSON header has no '" + name + "'");
        return header.at(name);
    };
    if (!field("target_platform").is_string() || field("target_platform").get<std::string>().empty())
        failInput(label + ": 'target_platform' must be a chip name such as \"rk3588\"");
    c.targetPlatform = field("target_platform").get<std::string>();
    for (auto& ch : c.targetPlatform) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (header.contains("npu_cores")) {
        const auto& cores = header["npu_cores"];
        if (!cores.is_number_integer() || cores.get<int64_t>() < 1 || cores.get<int64_t>() > 16)
            failInput(label + ": 'npu_cores' must be an integer from 1 to 16");
        c.npuCores = cores.get<int64_t>();
    }
    if (header.contains("batch")) {
        if (!header["batch"].is_number_integer() || header["batch"].get<int64_t>() < 1 || header["batch"].get<int64_t>() > 64)
            failInput(label + ": 'batch' must be an integer from 1 to 64");
        c.batch = header["batch"].get<int64_t>();
    }
    if (!field("onnx_bytes").is_number_unsigned()) failInput(label + ": 'onnx_bytes' must be a byte count");
    const uint64_t onnxBytes = field("onnx_bytes").get<uint64_t>();
    const size_t onnxAt = headerEnd + 1;
    if (bytes.size() - onnxAt != onnxBytes)
        failInput(label + ": the header announces " + std::to_string(onnxBytes) + " ONNX bytes but " +
                  std::to_string(bytes.size() - onnxAt) + " follow (cut short or padded)");
    c.onnx = bytes.substr(onnxAt);
    return c;
}

}  // namespace npuwb::standin
