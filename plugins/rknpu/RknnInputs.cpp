// Batch input buffers from .npy files or seeded random values (see RknnInputs.h).
#include "RknnInputs.h"

#include <cstring>
#include <random>

#include "npuwb/Error.h"
#include "npuwb/Npy.h"
#include "npuwb/ir/Half.h"

namespace npuwb::rknpu {

namespace {

/// The engine's element type of an rknn_tensor_type (Undefined for int4 and unknown codes).
DType dtypeOfRknnType(int32_t type) {
    switch (type) {
    case rknn::kFloat32: return DType::F32;
    case rknn::kFloat16: return DType::F16;
    case rknn::kInt8: return DType::I8;
    case rknn::kUInt8: return DType::U8;
    case rknn::kInt16: return DType::I16;
    case rknn::kUInt16: return DType::U16;
    case rknn::kInt32: return DType::I32;
    case rknn::kUInt32: return DType::U32;
    case rknn::kInt64: return DType::I64;
    case rknn::kBool: return DType::Bool;
    case rknn::kBFloat16: return DType::BF16;
    default: return DType::Undefined;
    }
}

template <class T, class Dist> void fill(std::vector<uint8_t>& data, std::mt19937_64& rng, Dist dist) {
    const size_t n = data.size() / sizeof(T);
    for (size_t i = 0; i < n; ++i) {
        const T v = static_cast<T>(dist(rng));
        std::memcpy(data.data() + i * sizeof(T), &v, sizeof(T));
    }
}

/// Uniform values over the type's range (floats in [-1, 1), wide integers in [0, 100) so index-like inputs stay
/// usable); sub-word types (int4) get uniform bytes.
void fillRandom(RknnInputBuffer& in, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto& d = in.data;
    switch (in.type) {
    case rknn::kFloat32: fill<float>(d, rng, std::uniform_real_distribution<float>(-1.0f, 1.0f)); break;
    case rknn::kFloat16: {
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        fill<uint16_t>(d, rng, [&](auto& r) { return Float16(dist(r)).bits; });
        break;
    }
    case rknn::kBFloat16: {
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        fill<uint16_t>(d, rng, [&](auto& r) { return BFloat16(dist(r)).bits; });
        break;
    }
    case rknn::kInt8: fill<int8_t>(d, rng, std::uniform_int_distribution<int>(-128, 127)); break;
    case rknn::kInt16: fill<int16_t>(d, rng, std::uniform_int_distribution<int>(-32768, 32767)); break;
    case rknn::kUInt16: fill<uint16_t>(d, rng, std::uniform_int_distribution<int>(0, 65535)); break;
    case rknn::kInt32: fill<int32_t>(d, rng, std::uniform_int_distribution<int32_t>(0, 99)); break;
    case rknn::kUInt32: fill<uint32_t>(d, rng, std::uniform_int_distribution<uint32_t>(0, 99)); break;
    case rknn::kInt64: fill<int64_t>(d, rng, std::uniform_int_distribution<int64_t>(0, 99)); break;
    case rknn::kBool: fill<uint8_t>(d, rng, std::uniform_int_distribution<int>(0, 1)); break;
    default: fill<uint8_t>(d, rng, std::uniform_int_distribution<int>(0, 255)); break;  // uint8, int4
    }
}

}  // namespace

const char* rknnTypeName(int32_t type) {
    static const char* const names[] = {"float32", "float16", "int8",  "uint8", "int16", "uint16",
                                        "int32",   "uint32",  "int64", "bool",  "int4",  "bfloat16"};
    return type >= 0 && type < 12 ? names[type] : "undefined";
}

void prepareInputs(std::vector<RknnInputBuffer>& inputs, const ModelRunOptions& options, const std::string& model) {
    const auto batch = static_cast<uint64_t>(options.batch);
    for (const auto& [name, file] : options.inputFiles) {
        bool known = false;
        std::string names;
        for (const auto& in : inputs) {
            known = known || in.name == name;
            names += (names.empty() ? "'" : ", '") + in.name + "'";
        }
        if (!known) failInput(model + ": --input " + name + "=" + file + " names no input of the model (inputs: " + names + ")");
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        RknnInputBuffer& in = inputs[i];
        const std::string what = model + ": input '" + in.name + "'";
        if (in.attr.size == 0 || in.attr.n_elems == 0) failInput(what + ": the runtime reports a size of 0 bytes");
        const auto it = options.inputFiles.find(in.name);
        if (it == options.inputFiles.end()) {
            in.type = in.attr.type;
            in.sliceBytes = in.attr.size;
            in.data.assign(batch * in.sliceBytes, 0);
            fillRandom(in, options.randomSeed + i);  // one stream per input, reproducible from the seed
            continue;
        }
        const Tensor t = readNpy(it->second);
        const DType modelType = dtypeOfRknnType(in.attr.type);
        // The runtime converts float32 buffers itself (rknn_input.type says what the buffer holds).
        if (t.dtype() != modelType && t.dtype() != DType::F32)
            failInput(what + ": " + it->second + " holds " + std::string(dtypeName(t.dtype())) + ", the model takes " +
                      rknnTypeName(in.attr.type) + " (or float32, which the runtime converts)");
        const uint64_t want = batch * in.attr.n_elems;
        if (static_cast<uint64_t>(t.numel()) != want)
            failInput(what + ": " + it->second + " holds " + std::to_string(t.numel()) + " elements, the model takes " +
                      std::to_string(want) + " (" + std::to_string(batch) + " batch slice(s) of " +
                      std::to_string(in.attr.n_elems) + ")");
        in.type = t.dtype() == modelType ? in.attr.type : int32_t{rknn::kFloat32};
        in.sliceBytes = static_cast<uint32_t>(t.byteSize() / batch);
        const auto* bytes = static_cast<const uint8_t*>(t.raw());
        in.data.assign(bytes, bytes + t.byteSize());
    }
}

}  // namespace npuwb::rknpu
