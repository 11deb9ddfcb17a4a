// Zero-copy buffers of one context and the conversions between the plain and native layouts (see RknnZeroCopy.h).
#include "RknnZeroCopy.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "RknnInputs.h"
#include "npuwb/Error.h"
#include "npuwb/ir/Half.h"

namespace npuwb::rknpu {

namespace {

/// Bytes of one element; 0 for int4 and unknown codes (no byte layout to copy).
size_t elementBytes(int32_t type) {
    switch (type) {
    case rknn::kFloat32: case rknn::kInt32: case rknn::kUInt32: return 4;
    case rknn::kFloat16: case rknn::kBFloat16: case rknn::kInt16: case rknn::kUInt16: return 2;
    case rknn::kInt8: case rknn::kUInt8: case rknn::kBool: return 1;
    case rknn::kInt64: return 8;
    default: return 0;
    }
}

bool isFloat(int32_t type) { return type == rknn::kFloat32 || type == rknn::kFloat16 || type == rknn::kBFloat16; }

double load(int32_t type, const uint8_t* p) {
    auto get = [p]<class T>(T) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    switch (type) {
    case rknn::kFloat32: return get(float{});
    case rknn::kFloat16: return static_cast<float>(Float16::fromBits(get(uint16_t{})));
    case rknn::kBFloat16: return static_cast<float>(BFloat16::fromBits(get(uint16_t{})));
    case rknn::kInt8: return get(int8_t{});
    case rknn::kUInt8: case rknn::kBool: return get(uint8_t{});
    case rknn::kInt16: return get(int16_t{});
    case rknn::kUInt16: return get(uint16_t{});
    case rknn::kInt32: return get(int32_t{});
    case rknn::kUInt32: return get(uint32_t{});
    case rknn::kInt64: return static_cast<double>(get(int64_t{}));
    default: return 0;
    }
}

/// Stores `v` as `type`: integers rounded to nearest and clamped to the type's range.
void store(int32_t type, uint8_t* p, double v) {
    auto put = [p, v]<class T>(T) {
        T t;
        if constexpr (std::is_integral_v<T>) {
            const double r = std::nearbyint(v);
            t = r <= double(std::numeric_limits<T>::lowest()) ? std::numeric_limits<T>::lowest()
                : r >= double(std::numeric_limits<T>::max())  ? std::numeric_limits<T>::max()
                                                               : static_cast<T>(r);
        } else {
            t = static_cast<T>(v);
        }
        std::memcpy(p, &t, sizeof t);
    };
    switch (type) {
    case rknn::kFloat32: put(float{}); break;
    case rknn::kFloat16: {
        const uint16_t bits = Float16(static_cast<float>(v)).bits;
        std::memcpy(p, &bits, 2);
        break;
    }
    case rknn::kBFloat16: {
        const uint16_t bits = BFloat16(static_cast<float>(v)).bits;
        std::memcpy(p, &bits, 2);
        break;
    }
    case rknn::kInt8: put(int8_t{}); break;
    case rknn::kUInt8: put(uint8_t{}); break;
    case rknn::kBool: *p = v != 0; break;
    case rknn::kInt16: put(int16_t{}); break;
    case rknn::kUInt16: put(uint16_t{}); break;
    case rknn::kInt32: put(int32_t{}); break;
    case rknn::kUInt32: put(uint32_t{}); break;
    case rknn::kInt64: put(int64_t{}); break;
    default: break;
    }
}

/// Where the elements of a tensor live: 4-D tensors by (n, c, h, w) in NCHW or NHWC order with row strides, others
/// flat.
struct Layout {
    bool fourD = false;
    bool nhwc = false;
    int64_t n = 1, c = 1, h = 1, w = 1;
    int64_t hStride = 1, wStride = 1;  // rows per image plane, pixels per row (>= h, w)
    int64_t elements = 0;              // flat tensors

    int64_t offset(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
        return nhwc ? ((in * hStride + ih) * wStride + iw) * c + ic : ((in * c + ic) * hStride + ih) * wStride + iw;
    }
    int64_t span() const { return fourD ? n * c * hStride * wStride : elements; }
    bool same(const Layout& o) const {
        return fourD == o.fourD && nhwc == o.nhwc && n == o.n && c == o.c && h == o.h && w == o.w &&
               hStride == o.hStride && wStride == o.wStride && elements == o.elements;
    }
};

/// The layout an attribute describes. The plain attributes have no strides; a 4-D tensor of undefined format is taken
/// as NCHW (the order rknn_inputs_set assumes by default).
Layout layoutOf(const rknn::TensorAttr& a, bool withStrides) {
    Layout l;
    l.elements = a.n_elems;
    if (a.n_dims != 4 || (a.fmt != rknn::kNCHW && a.fmt != rknn::kNHWC && a.fmt != rknn::kFormatUndefined)) return l;
    l.fourD = true;
    l.nhwc = a.fmt == rknn::kNHWC;
    l.n = a.dims[0];
    l.c = l.nhwc ? a.dims[3] : a.dims[1];
    l.h = l.nhwc ? a.dims[1] : a.dims[2];
    l.w = l.nhwc ? a.dims[2] : a.dims[3];
    l.hStride = withStrides ? std::max<int64_t>(l.h, a.h_stride) : l.h;  // 0: the height
    l.wStride = withStrides ? std::max<int64_t>(l.w, a.w_stride) : l.w;  // 0: the width
    return l;
}

std::string nameOf(const rknn::TensorAttr& a) { return std::string(a.name, strnlen(a.name, sizeof a.name)); }

/// Converts every element from (`from`, `fromType`) to (`to`, `toType`); `quant` maps the value (quantize or
/// dequantize) or is null. Padding in `to` is left as it is.
template <class Quant>
void convert(const Layout& from, const uint8_t* src, int32_t fromType, const Layout& to, uint8_t* dst, int32_t toType,
             Quant quant) {
    const size_t fb = elementBytes(fromType), tb = elementBytes(toType);
    auto one = [&](int64_t i, int64_t o) {
        if (fromType == toType) std::memcpy(dst + o * tb, src + i * fb, fb);
        else store(toType, dst + o * tb, quant(load(fromType, src + i * fb)));
    };
    if (!from.fourD) {
        for (int64_t i = 0; i < from.elements; ++i) one(i, i);
        return;
    }
    for (int64_t n = 0; n < from.n; ++n)
        for (int64_t h = 0; h < from.h; ++h)
            for (int64_t w = 0; w < from.w; ++w)
                for (int64_t c = 0; c < from.c; ++c) one(from.offset(n, c, h, w), to.offset(n, c, h, w));
}

}  // namespace

struct RknnZeroCopyIo::Bound {
    std::string what;             // "input 'x'"
    rknn::TensorAttr plain{};     // RKNN_QUERY_INPUT_ATTR / OUTPUT_ATTR: the rest of the plugin's buffers
    rknn::TensorAttr native{};    // as bound with rknn_set_io_mem (type: what the buffer holds)
    int32_t nativeType = 0;       // the runtime's own element type (the native query's)
    Layout plainLayout, nativeLayout;
    rknn::TensorMem* mem = nullptr;
};

RknnZeroCopyIo::RknnZeroCopyIo(const RknnLibrary& lib, rknn::Context ctx, const std::string& model)
    : lib_(lib), ctx_(ctx), model_(model) {
    auto check = [&](int rc, const std::string& call) {
        if (rc != rknn::kSucc) failInput(model_ + ": " + call + " failed with RKNN error " + std::to_string(rc));
    };
    auto query = [&](rknn::QueryCmd cmd, rknn::TensorAttr& a, uint32_t index, const char* name) {
        a = rknn::TensorAttr{};
        a.index = index;
        check(lib_.query(ctx_, cmd, &a, sizeof a),
              std::string("rknn_query(") + name + ", " + std::to_string(index) + ")");
    };
    // Checks the two layouts describe the same tensor and the runtime's buffer size holds the native one, then makes
    // and binds the buffer.
    auto bind = [&](Bound& b) {
        const bool sameTensor = b.plainLayout.fourD == b.nativeLayout.fourD && b.plain.n_elems == b.native.n_elems &&
                                (!b.plainLayout.fourD || (b.plainLayout.n == b.nativeLayout.n &&
                                                          b.plainLayout.c == b.nativeLayout.c &&
                                                          b.plainLayout.h == b.nativeLayout.h &&
                                                          b.plainLayout.w == b.nativeLayout.w));
        if (!sameTensor || elementBytes(b.plain.type) == 0 || elementBytes(b.native.type) == 0)
            failInput(model_ + ": " + b.what + ": the native attributes (format " + std::to_string(b.native.fmt) +
                      ", type " + rknnTypeName(b.native.type) + ") do not describe the same tensor as the plain ones "
                      "in a layout this plugin converts (NCHW, NHWC with strides, flat)");
        const uint64_t need = uint64_t(b.nativeLayout.span()) * elementBytes(b.native.type);
        const uint32_t size = b.native.size_with_stride ? b.native.size_with_stride : b.native.size;
        if (need > size)
            failInput(model_ + ": " + b.what + ": the native layout needs " + std::to_string(need) +
                      " bytes, the runtime's size_with_stride is " + std::to_string(size));
        b.mem = lib_.createMem(ctx_, size);
        if (!b.mem || !b.mem->virt_addr || b.mem->size < need)
            failInput(model_ + ": rknn_create_mem(" + std::to_string(size) + " bytes) for " + b.what + " returned " +
                      (b.mem && b.mem->virt_addr ? std::to_string(b.mem->size) + " bytes" : std::string("no buffer")));
        check(lib_.setIoMem(ctx_, b.mem, &b.native), "rknn_set_io_mem(" + b.what + ")");
    };
    try {
        rknn::InputOutputNum io{};
        check(lib_.query(ctx_, rknn::kQueryInOutNum, &io, sizeof io), "rknn_query(RKNN_QUERY_IN_OUT_NUM)");
        inputs_.resize(io.n_input);
        outputs_.resize(io.n_output);
        for (uint32_t i = 0; i < io.n_input; ++i) {
            Bound& b = inputs_[i];
            query(rknn::kQueryInputAttr, b.plain, i, "RKNN_QUERY_INPUT_ATTR");
            query(rknn::kQueryNativeInputAttr, b.native, i, "RKNN_QUERY_NATIVE_INPUT_ATTR");
            b.what = "input '" + nameOf(b.plain) + "'";
            if (b.native.fmt == rknn::kNC1HWC2)
                failInput(model_ + ": " + b.what + ": its native layout is NC1HWC2, which this plugin does not "
                          "write (inputs: NCHW, NHWC or flat)");
            b.nativeType = b.native.type;
            // A buffer of the plain type with the native element size is bound as such: the runtime converts it
            // (a uint8 image into an int8 model's quantized input).
            if (elementBytes(b.plain.type) == elementBytes(b.native.type)) b.native.type = b.plain.type;
            b.plainLayout = layoutOf(b.plain, false);
            b.nativeLayout = layoutOf(b.native, true);
            bind(b);
        }
        for (uint32_t k = 0; k < io.n_output; ++k) {
            Bound& b = outputs_[k];
            query(rknn::kQueryOutputAttr, b.plain, k, "RKNN_QUERY_OUTPUT_ATTR");
            query(rknn::kQueryNativeOutputAttr, b.native, k, "RKNN_QUERY_NATIVE_OUTPUT_ATTR");
            if (b.native.fmt == rknn::kNC1HWC2)
                query(rknn::kQueryNativeNhwcOutputAttr, b.native, k, "RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR");
            b.what = "output '" + nameOf(b.plain) + "'";
            b.nativeType = b.native.type;
            b.plainLayout = layoutOf(b.plain, false);
            b.nativeLayout = layoutOf(b.native, true);
            bind(b);
        }
    } catch (...) {
        destroyAll();  // the destructor does not run for a constructor that throws
        throw;
    }
}

RknnZeroCopyIo::~RknnZeroCopyIo() { destroyAll(); }

void RknnZeroCopyIo::destroyAll() {
    for (auto* list : {&inputs_, &outputs_})
        for (Bound& b : *list)
            if (b.mem) {
                lib_.destroyMem(ctx_, b.mem);
                b.mem = nullptr;
            }
}

void RknnZeroCopyIo::writeInput(size_t i, const uint8_t* data, int32_t type) const {
    const Bound& b = inputs_.at(i);
    if (elementBytes(type) == 0)
        failInput(model_ + ": " + b.what + ": cannot write elements of type " + rknnTypeName(type));
    auto* dst = static_cast<uint8_t*>(b.mem->virt_addr);
    const rknn::TensorAttr& q = b.native;
    // Quantizing here only when the buffer holds the runtime's own quantized type and the data is float.
    const bool quantize = b.native.type == b.nativeType && isFloat(type) && !isFloat(b.nativeType) &&
                          q.qnt_type != rknn::kQntNone;
    if (type == b.native.type && b.plainLayout.same(b.nativeLayout)) {
        std::memcpy(dst, data, size_t(b.plain.n_elems) * elementBytes(type));
        return;
    }
    convert(b.plainLayout, data, type, b.nativeLayout, dst, b.native.type, [&](double x) {
        if (!quantize) return x;
        return q.qnt_type == rknn::kQntAffine ? x / q.scale + q.zp : std::ldexp(x, q.fl);
    });
}

void RknnZeroCopyIo::readOutput(size_t k, uint8_t* dest) const {
    const Bound& b = outputs_.at(k);
    const auto* src = static_cast<const uint8_t*>(b.mem->virt_addr);
    const rknn::TensorAttr& q = b.native;
    const bool dequantize = isFloat(b.plain.type) && !isFloat(q.type) && q.qnt_type != rknn::kQntNone;
    if (q.type == b.plain.type && b.plainLayout.same(b.nativeLayout)) {
        std::memcpy(dest, src, size_t(b.plain.n_elems) * elementBytes(q.type));
        return;
    }
    convert(b.nativeLayout, src, q.type, b.plainLayout, dest, b.plain.type, [&](double v) {
        if (!dequantize) return v;
        return q.qnt_type == rknn::kQntAffine ? (v - q.zp) * q.scale : std::ldexp(v, -q.fl);
    });
}

int64_t RknnZeroCopyIo::bufferBytes() const {
    int64_t total = 0;
    for (const auto* list : {&inputs_, &outputs_})
        for (const Bound& b : *list)
            if (b.mem) total += b.mem->size;
    return total;
}

}  // namespace npuwb::rknpu
