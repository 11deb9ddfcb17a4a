#include "onnx/OnnxTensor.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "npuwb/AtomicFile.h"
#include "npuwb/Limits.h"

namespace npuwb::onnxconv {

using onnx::TensorProto_DataType;

DType dtypeFromOnnx(int32_t t) { return dtypeFromOnnxCode(t); }

int32_t dtypeToOnnx(DType d) {
    switch (d) {
        case DType::F32: return onnx::TensorProto_DataType_FLOAT;
        case DType::F16: return onnx::TensorProto_DataType_FLOAT16;
        case DType::BF16: return onnx::TensorProto_DataType_BFLOAT16;
        case DType::F64: return onnx::TensorProto_DataType_DOUBLE;
        case DType::I8: return onnx::TensorProto_DataType_INT8;
        case DType::U8: return onnx::TensorProto_DataType_UINT8;
        case DType::I16: return onnx::TensorProto_DataType_INT16;
        case DType::U16: return onnx::TensorProto_DataType_UINT16;
        case DType::I32: return onnx::TensorProto_DataType_INT32;
        case DType::U32: return onnx::TensorProto_DataType_UINT32;
        case DType::I64: return onnx::TensorProto_DataType_INT64;
        case DType::U64: return onnx::TensorProto_DataType_UINT64;
        case DType::Bool: return onnx::TensorProto_DataType_BOOL;
        case DType::String: return onnx::TensorProto_DataType_STRING;
        case DType::I4: return 22;
        case DType::U4: return 21;
        case DType::Undefined: break;
    }
    return onnx::TensorProto_DataType_UNDEFINED;
}

namespace {

int64_t externalNumber(const std::string& text, const std::string& key, const std::string& what) {
    int64_t value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value < 0)
        failInput(what + ": external data " + key + " '" + text + "' is not a non-negative integer");
    return value;
}

/// The file `location` names, resolved with symlinks followed; it must stay inside the model's folder (a link
/// named weights.bin that points at ~/.ssh/id_rsa would otherwise be read and even written into an output model).
std::filesystem::path resolveInsideModelFolder(const std::string& location, const std::string& baseDir,
                                               const std::string& what) {
    std::filesystem::path rel(location);
    if (rel.is_absolute()) failInput(what + ": external data location '" + location + "' is absolute");
    for (const auto& part : rel)
        if (part == "..") failInput(what + ": external data location '" + location + "' leaves the model's folder");
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::canonical(baseDir.empty() ? "." : baseDir, ec);
    if (ec) fail(ErrorKind::Io, what + ": cannot resolve the model's folder '" + baseDir + "': " + ec.message());
    const std::filesystem::path file = std::filesystem::canonical(folder / rel, ec);
    if (ec) fail(ErrorKind::Io, what + ": cannot open external data file '" + (folder / rel).string() + "': " + ec.message());
    auto f = file.begin();
    for (auto d = folder.begin(); d != folder.end(); ++d, ++f)
        if (f == file.end() || *f != *d)
            failInput(what + ": external data location '" + location + "' resolves to '" + file.string() +
                      "', outside the model's folder (a symbolic link?)");
    return file;
}

std::string readExternalData(const onnx::TensorProto& proto, const std::string& baseDir, const std::string& what,
                             uint64_t expectedBytes) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : proto.external_data()) {
        if (kv.key() == "location") location = kv.value();
        else if (kv.key() == "offset") offset = externalNumber(kv.value(), "offset", what);
        else if (kv.key() == "length") length = externalNumber(kv.value(), "length", what);
    }
    if (location.empty()) failInput(what + ": external data without a location");
    const std::filesystem::path file = resolveInsideModelFolder(location, baseDir, what);
    if (length < 0) length = static_cast<int64_t>(std::min<uint64_t>(expectedBytes, INT64_MAX));
    if (static_cast<uint64_t>(length) != expectedBytes)
        failInput(what + ": external data length " + std::to_string(length) + " does not match the " +
                  std::to_string(expectedBytes) + " bytes its shape needs");
    uint64_t fileSize = 0;
    const int fd = openRegularFile(file.string(), fileSize);  // a FIFO or device is refused, never waited on
    if (static_cast<uint64_t>(offset) > fileSize || static_cast<uint64_t>(length) > fileSize - static_cast<uint64_t>(offset)) {
        ::close(fd);
        failInput(what + ": external data range (offset " + std::to_string(offset) + ", length " + std::to_string(length) +
                  ") is outside '" + file.string() + "' (" + std::to_string(fileSize) + " bytes)");
    }
    std::string data(static_cast<size_t>(length), '\0');
    size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::pread(fd, data.data() + done, data.size() - done, offset + static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    if (done != data.size()) failInput(what + ": cannot read external data from '" + file.string() + "'");
    return data;
}

/// Values a typed field holds for a tensor of `numel` elements, checked before anything is allocated.
void checkFieldCount(int64_t count, int64_t numel, const Shape& shape, const std::string& what) {
    if (count != numel)
        failInput(what + ": holds " + std::to_string(count) + " values but its shape " + shapeToString(shape) +
                  " needs " + std::to_string(numel));
}

int64_t typedFieldCount(const onnx::TensorProto& proto, DType dtype) {
    switch (dtype) {
        case DType::F32: return proto.float_data_size();
        case DType::F64: return proto.double_data_size();
        case DType::I64: return proto.int64_data_size();
        case DType::U32:
        case DType::U64: return proto.uint64_data_size();
        case DType::I4:
        case DType::U4: return -1;  // packed: checked against bytes
        default: return proto.int32_data_size();
    }
}

template <class T, class Field> void copyTyped(Tensor& t, const Field& field, const std::string& what) {
    if (static_cast<int64_t>(field.size()) != t.numel())
        failInput(what + ": holds " + std::to_string(field.size()) + " values but its shape " + shapeToString(t.shape()) +
                  " needs " + std::to_string(t.numel()));
    T* out = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = static_cast<T>(field.Get(static_cast<int>(i)));
}

}  // namespace

Tensor tensorFromProto(const onnx::TensorProto& proto, const std::string& baseDir, const std::string& what) {
    if (proto.has_segment()) failUnsupported(what + ": segmented tensors are not supported");
    DType dtype = dtypeFromOnnx(proto.data_type());
    if (dtype == DType::Undefined)
        failUnsupported(what + ": element type " + std::to_string(proto.data_type()) + " is not supported");
    Shape shape(proto.dims().begin(), proto.dims().end());
    for (int64_t d : shape)
        if (d < 0) failInput(what + ": negative dimension in " + shapeToString(shape));
    // The declared size is checked against the data present before anything is allocated: a 100-byte model must
    // not make us take and zero gigabytes only to find 16 bytes of data.
    int64_t numel = 0;
    uint64_t bytes = 0;
    try {
        numel = shapeNumel(shape);
        bytes = tensorByteSize(dtype, shape);
    } catch (const Error& e) {
        failInput(what + ": " + e.what());
    }
    const bool external = proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
    if (dtype == DType::String) {
        if (static_cast<int64_t>(proto.string_data_size()) != numel)
            failInput(what + ": holds " + std::to_string(proto.string_data_size()) + " strings, shape needs " +
                      std::to_string(numel));
    } else if (!external && proto.has_raw_data()) {
        if (proto.raw_data().size() != bytes)
            failInput(what + ": raw data has " + std::to_string(proto.raw_data().size()) + " bytes but shape " +
                      shapeToString(shape) + " of " + std::string(dtypeName(dtype)) + " needs " + std::to_string(bytes));
    } else if (!external && numel > 0) {
        const int64_t count = typedFieldCount(proto, dtype);
        if (count >= 0) checkFieldCount(count, numel, shape, what);
        else if (static_cast<uint64_t>(proto.int32_data_size()) != bytes) failInput(what + ": 4-bit value count does not match shape");
    }
    Tensor t = Tensor::uninitialized(dtype, shape);
    if (dtype == DType::String) {
        auto* out = t.data<std::string>();
        for (int i = 0; i < proto.string_data_size(); ++i) out[i] = proto.string_data(i);
        return t;
    }
    if (external || proto.has_raw_data()) {
        std::string external_bytes;
        const std::string* raw = &proto.raw_data();
        if (external) {
            external_bytes = readExternalData(proto, baseDir, what, t.byteSize());
            raw = &external_bytes;
        }
        if (raw->size() != t.byteSize())
            failInput(what + ": raw data has " + std::to_string(raw->size()) + " bytes but shape " + shapeToString(shape) +
                      " of " + std::string(dtypeName(dtype)) + " needs " + std::to_string(t.byteSize()));
        if (!raw->empty()) std::memcpy(t.raw(), raw->data(), raw->size());
        return t;
    }
    if (t.numel() == 0) return t;
    // (uninitialized: every element is written below, the counts having been checked above)
    switch (dtype) {
        case DType::F32: copyTyped<float>(t, proto.float_data(), what); break;
        case DType::F64: copyTyped<double>(t, proto.double_data(), what); break;
        case DType::I64: copyTyped<int64_t>(t, proto.int64_data(), what); break;
        case DType::U32: copyTyped<uint32_t>(t, proto.uint64_data(), what); break;
        case DType::U64: copyTyped<uint64_t>(t, proto.uint64_data(), what); break;
        case DType::I32: copyTyped<int32_t>(t, proto.int32_data(), what); break;
        case DType::I16: copyTyped<int16_t>(t, proto.int32_data(), what); break;
        case DType::U16: copyTyped<uint16_t>(t, proto.int32_data(), what); break;
        case DType::I8: copyTyped<int8_t>(t, proto.int32_data(), what); break;
        case DType::U8: copyTyped<uint8_t>(t, proto.int32_data(), what); break;
        case DType::Bool: copyTyped<bool>(t, proto.int32_data(), what); break;
        case DType::F16: {
            if (proto.int32_data_size() != t.numel()) failInput(what + ": float16 value count does not match shape");
            auto* out = t.data<Float16>();
            for (int64_t i = 0; i < t.numel(); ++i) out[i] = Float16::fromBits(static_cast<uint16_t>(proto.int32_data(int(i))));
            break;
        }
        case DType::BF16: {
            if (proto.int32_data_size() != t.numel()) failInput(what + ": bfloat16 value count does not match shape");
            auto* out = t.data<BFloat16>();
            for (int64_t i = 0; i < t.numel(); ++i) out[i] = BFloat16::fromBits(static_cast<uint16_t>(proto.int32_data(int(i))));
            break;
        }
        case DType::I4:
        case DType::U4: {
            auto* bytes = static_cast<uint8_t*>(t.raw());
            if (static_cast<size_t>(proto.int32_data_size()) != t.byteSize()) failInput(what + ": 4-bit value count does not match shape");
            for (int i = 0; i < proto.int32_data_size(); ++i) bytes[i] = static_cast<uint8_t>(proto.int32_data(i));
            break;
        }
        default: failUnsupported(what + ": cannot read element type " + std::string(dtypeName(dtype)));
    }
    return t;
}

Tensor tensorFromProtoConsuming(onnx::TensorProto& proto, const std::string& baseDir, const std::string& what) {
    const DType dtype = dtypeFromOnnx(proto.data_type());
    const bool inlineRaw = proto.data_location() != onnx::TensorProto_DataLocation_EXTERNAL && proto.has_raw_data() &&
                           !proto.has_segment() && dtype != DType::Undefined && dtype != DType::String;
    if (inlineRaw && proto.raw_data().size() >= 4096) {  // small ones are cheaper to copy into aligned storage
        Shape shape(proto.dims().begin(), proto.dims().end());
        bool valid = true;
        for (int64_t d : shape) valid = valid && d >= 0;
        const size_t bytes = proto.raw_data().size(), elementSize = dtypeSize(dtype);
        if (valid && dtype != DType::I4 && dtype != DType::U4 && bytes % elementSize == 0 &&
            static_cast<uint64_t>(shapeNumel(shape)) == bytes / elementSize)
            return Tensor::adopt(dtype, std::move(shape), std::move(*proto.mutable_raw_data()));
    }
    Tensor t = tensorFromProto(proto, baseDir, what);
    std::string().swap(*proto.mutable_raw_data());
    return t;
}

void tensorToProto(const Tensor& t, const std::string& name, onnx::TensorProto* proto) {
    proto->set_name(name);
    proto->set_data_type(dtypeToOnnx(t.dtype()));
    for (int64_t d : t.shape()) proto->add_dims(d);
    if (t.dtype() == DType::String) {
        const auto* s = t.data<std::string>();
        for (int64_t i = 0; i < t.numel(); ++i) proto->add_string_data(s[i]);
        return;
    }
    proto->set_raw_data(std::string(static_cast<const char*>(t.raw()), t.byteSize()));
}

ValueType valueTypeFromProto(const onnx::TypeProto& type) {
    ValueType vt;
    if (type.has_tensor_type()) {
        vt.kind = ValueType::Kind::Tensor;
        vt.dtype = dtypeFromOnnx(type.tensor_type().elem_type());
        if (type.tensor_type().has_shape()) {
            SymShape shape;
            for (const auto& d : type.tensor_type().shape().dim()) {
                if (d.has_dim_value()) shape.push_back(Dim::of(d.dim_value()));
                else shape.push_back(Dim::named(d.has_dim_param() ? d.dim_param() : std::string()));
            }
            vt.shape = std::move(shape);
        }
    } else if (type.has_sequence_type()) {
        vt.kind = ValueType::Kind::Sequence;
        vt.element = std::make_shared<ValueType>(valueTypeFromProto(type.sequence_type().elem_type()));
        vt.dtype = vt.element->dtype;
    } else if (type.has_optional_type()) {
        vt.kind = ValueType::Kind::Optional;
        vt.element = std::make_shared<ValueType>(valueTypeFromProto(type.optional_type().elem_type()));
        vt.dtype = vt.element->dtype;
    } else if (type.has_map_type()) {
        vt.kind = ValueType::Kind::Map;
    } else {
        vt.kind = ValueType::Kind::Unknown;
    }
    return vt;
}

void valueTypeToProto(const ValueType& vt, onnx::TypeProto* proto) {
    switch (vt.kind) {
        case ValueType::Kind::Tensor: {
            auto* tt = proto->mutable_tensor_type();
            tt->set_elem_type(dtypeToOnnx(vt.dtype));
            if (vt.shape) {
                auto* shape = tt->mutable_shape();
                for (const Dim& d : *vt.shape) {
                    auto* dim = shape->add_dim();
                    if (d.known()) dim->set_dim_value(d.value);
                    else if (!d.symbol.empty()) dim->set_dim_param(d.symbol);
                }
            }
            break;
        }
        case ValueType::Kind::Sequence:
            if (vt.element) valueTypeToProto(*vt.element, proto->mutable_sequence_type()->mutable_elem_type());
            break;
        case ValueType::Kind::Optional:
            if (vt.element) valueTypeToProto(*vt.element, proto->mutable_optional_type()->mutable_elem_type());
            break;
        default: break;
    }
}

}  // namespace npuwb::onnxconv
