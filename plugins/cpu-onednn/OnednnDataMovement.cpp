// Data movement: reshapes as zero-copy views, Concat, Transpose, Slice and Split as reorders (Transpose and Slice also
// on int8 values; a Transpose that only moves dims of size 1 is a view), Pad as a fill and a reorder into the middle
// of the output, Gather as block copies (constant indices, or a run's token ids checked first), Where with a constant
// condition, Cast of integer inputs to float.
#include "MatmulConvert.h"
#include "OnednnSegmentBuilder.h"

#include "npuwb/Error.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace npuwb::onednn {

void Builder::buildReshape(const Node& n) {
    mem[n.outputs[0]] = reshaped(n.inputs[0], desc(n.inputs[0]).shape, desc(n.outputs[0]).shape, dt::f32, nodeName(n));
}

namespace {

/// Concat of unblocked values stored in one order: per index of the dims stored outside the axis, each input's block
/// (its part of the axis times everything stored inside it) is contiguous in the input and in the output. One memcpy
/// per block instead of oneDNN's generic concat, which copies channels-last inputs element by element (3.8x ONNX
/// Runtime's time on yolov7-tiny's Concats).
struct BlockConcat {
    std::vector<memory> srcs;
    memory dst;
    size_t outer = 1;
    std::vector<size_t> blockBytes;
    size_t rowBytes = 0;  // the sum of blockBytes: one index of the outer dims in the output

    void operator()(dnnl::stream&) const {
        auto* to = static_cast<char*>(dst.get_data_handle());
        constexpr size_t kChunk = size_t{64} << 10;
        if (outer == 1) {  // few large blocks (batch 1, axis outermost): each split into chunks over the threads
            for (size_t i = 0; i < srcs.size(); ++i) {
                const auto* from = static_cast<const char*>(srcs[i].get_data_handle());
                const auto chunks = static_cast<int64_t>((blockBytes[i] + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static) if (chunks > 1)
                for (int64_t c = 0; c < chunks; ++c) {
                    const size_t at = static_cast<size_t>(c) * kChunk;
                    std::memcpy(to + at, from + at, std::min(kChunk, blockBytes[i] - at));
                }
                to += blockBytes[i];
            }
            return;
        }
#pragma omp parallel for schedule(static)
        for (int64_t o = 0; o < static_cast<int64_t>(outer); ++o) {
            char* row = to + static_cast<size_t>(o) * rowBytes;
            for (size_t i = 0; i < srcs.size(); ++i) {
                const auto* from = static_cast<const char*>(srcs[i].get_data_handle());
                std::memcpy(row, from + static_cast<size_t>(o) * blockBytes[i], blockBytes[i]);
                row += blockBytes[i];
            }
        }
    }
};

}  // namespace

void Builder::buildConcat(const Node& n) {
    const Shape& y = desc(n.outputs[0]).shape;
    int64_t axis = n.attrInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(y.size());
    std::vector<memory> srcs;
    for (const auto& in : n.inputs) srcs.push_back(get(in));
    // The storage order of the inputs (one with more than one element on the axis says where the axis is stored).
    std::optional<std::vector<size_t>> order;
    for (const auto& m : srcs)
        if (auto strides = unblockedStrides(m.get_desc());
            strides && m.get_desc().data_type() == dt::f32 && m.get_desc().dims()[static_cast<size_t>(axis)] > 1) {
            order = storageOrder(m.get_desc().dims(), *strides);
            break;
        }
    const bool blockCopy = order && std::all_of(srcs.begin(), srcs.end(), [&](const memory& m) {
        const memory::desc& d = m.get_desc();
        return sameStorage(d, memory::desc(d.dims(), dt::f32, denseStrides(d.dims(), *order)));
    });
    if (blockCopy) {
        BlockConcat k{.srcs = srcs,
                      .dst = activation(memory::desc(toDims(y), dt::f32, denseStrides(toDims(y), *order))),
                      .outer = 1,
                      .blockBytes = {},
                      .rowBytes = 0};
        for (size_t d : *order) {
            if (d == static_cast<size_t>(axis)) break;
            k.outer *= static_cast<size_t>(y[d]);
        }
        size_t bytes = 0;
        for (const auto& m : srcs) {
            k.blockBytes.push_back(m.get_desc().get_size() / std::max<size_t>(k.outer, 1));
            k.rowBytes += k.blockBytes.back();
            bytes += 2 * m.get_desc().get_size();
        }
        std::vector<memory> uses = srcs;
        uses.push_back(k.dst);
        mem[n.outputs[0]] = k.dst;
        addKernel(std::move(k), {nodeName(n)}, std::move(uses));
        seg.kernels.back().serial = bytes < kSerialKernelBytes;
        return;
    }
    std::vector<memory::desc> mds;
    for (const auto& m : srcs) mds.push_back(m.get_desc());
    dnnl::concat::primitive_desc pd(memory::desc(toDims(y), dt::f32, tag::any), static_cast<int>(axis), mds, eng);
    memory dst = activation(pd.dst_desc());
    std::unordered_map<int, memory> args{{DNNL_ARG_DST, dst}};
    for (size_t i = 0; i < srcs.size(); ++i) args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = srcs[i];
    addPrimitive(pd, args, {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

/// Transpose as one reorder: the plain source read through a descriptor with the output's dims and the source's
/// strides permuted, written to a plain destination.
/// `in`/`out`/`type` let the int8 path move int8 values under other names (shapes are the node's).
void Builder::buildTranspose(const Node& n, const std::string& in, const std::string& out, dt type) {
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    const std::string& output = out.empty() ? n.outputs[0] : out;
    const std::string& input = in.empty() ? n.inputs[0] : in;
    if (x.size() <= 1) {
        mem[output] = getAs(input, plainDesc(x, type), nodeName(n));
        return;
    }
    const size_t rank = x.size();
    std::vector<int64_t> perm = n.attrInts("perm");
    if (perm.empty())
        for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
    if (perm.size() != rank) throw std::runtime_error("perm does not match the input rank");
    std::vector<size_t> axes(rank);
    for (size_t i = 0; i < rank; ++i) {
        int64_t axis = perm[i] < 0 ? perm[i] + static_cast<int64_t>(rank) : perm[i];
        if (axis < 0 || axis >= static_cast<int64_t>(rank)) throw std::runtime_error("perm axis out of range");
        axes[i] = static_cast<size_t>(axis);
    }
    // The source in its own unblocked layout (a plain copy of a blocked one), read through permuted strides; the
    // output keeps the source's storage order where the permutation allows (channels-last stays channels-last).
    auto [src, sourceStrides] = unblocked(input, x, type, nodeName(n));
    memory::dims permutedStrides(rank);
    for (size_t i = 0; i < rank; ++i) permutedStrides[i] = sourceStrides[axes[i]];
    memory permuted(memory::desc(toDims(y), type, permutedStrides), eng, nullptr);
    // Segment inputs get their buffer per run: the permuted view follows the source's handle like view() does.
    addAlias(src, permuted);
    if (stridedViewOutputs.count(output)) {
        mem[output] = permuted;
        return;
    }
    const memory::desc dense(toDims(y), type, denseStrides(y, transposedOrder(storageOrder(x, sourceStrides), axes)));
    if (sameStorage(permuted.get_desc(), dense)) {  // only dims of size 1 move (attention's [T,1,C] <-> [1,T,C])
        mem[output] = permuted;
        return;
    }
    memory dst = activation(dense);
    addPrimitive(dnnl::reorder::primitive_desc(permuted, dst), {{DNNL_ARG_FROM, permuted}, {DNNL_ARG_TO, dst}}, {nodeName(n)});
    mem[output] = dst;
}

/// Step-1 Slice as one reorder from a sub-memory view of the source (ShuffleNet's channel split).
namespace {

/// Copies the elements `dims` addresses through `from` strides (bytes from `src`) to `to` strides (from `dst`), each
/// `size` bytes: a stepped Slice oneDNN cannot describe (a step whose last row reaches past the next-outer stride).
void stridedCopy(const char* src, char* dst, const Dims& dims, const Dims& from, const Dims& to, size_t size) {
    const size_t rank = dims.size();
    const int64_t inner = rank ? dims.back() : 1;
    int64_t outer = 1;
    for (size_t d = 0; d + 1 < rank; ++d) outer *= dims[d];
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < outer; ++row) {
        int64_t at = 0, out = 0, rest = row;
        for (size_t d = rank - 1; d-- > 0;) {
            const int64_t i = rest % dims[d];
            rest /= dims[d];
            at += i * from[d];
            out += i * to[d];
        }
        for (int64_t k = 0; k < inner; ++k)
            std::memcpy(dst + (out + k * to[rank - 1]) * int64_t(size), src + (at + k * from[rank - 1]) * int64_t(size),
                        size);
    }
}

}  // namespace

void Builder::buildSlice(const Node& n, const std::string& in, const std::string& out, dt type) {
    std::string why;
    auto window = sliceWindow(makeNodeQuery(q, indexOf(n)), why);
    if (!window) throw std::runtime_error(why);
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    // A window of the source in its own unblocked layout, copied out dense in the same storage order. Steps (Swin's
    // patch merging takes every other row and column) multiply the source's strides: a strided view at the first
    // element taken.
    auto [src, strides] = unblocked(in.empty() ? n.inputs[0] : in, x, type, nodeName(n));
    const std::string& output = out.empty() ? n.outputs[0] : out;
    if (stridedViewOutputs.count(output)) {  // its reader copies anyway (a Transpose): the window read in place
        int64_t first = 0;
        Dims stepped = strides;
        for (size_t d = 0; d < x.size(); ++d) {
            stepped[d] *= window->steps[d];
            first += window->offsets[d] * strides[d];
        }
        memory part(memory::desc(toDims(y), type, stepped), eng, nullptr);
        addAlias(src, part, first * int64_t(memory::data_type_size(type)));
        mem[output] = part;
        return;
    }
    const Dims denseY = denseStrides(y, storageOrder(x, strides));
    memory dst = activation(memory::desc(toDims(y), type, denseY));
    mem[output] = dst;
    if (window->unitSteps()) {
        memory part(src.get_desc().submemory_desc(toDims(y), toDims(window->offsets)), eng, nullptr);
        addAlias(src, part);
        addPrimitive(dnnl::reorder::primitive_desc(part, dst), {{DNNL_ARG_FROM, part}, {DNNL_ARG_TO, dst}}, {nodeName(n)});
        return;
    }
    Dims stepped = strides;
    int64_t first = 0;
    for (size_t d = 0; d < x.size(); ++d) {
        stepped[d] *= window->steps[d];
        first += window->offsets[d] * strides[d];
    }
    const auto size = memory::data_type_size(type);
    try {
        memory part(memory::desc(toDims(y), type, stepped), eng, nullptr);
        addAlias(src, part, first * int64_t(size));
        addPrimitive(dnnl::reorder::primitive_desc(part, dst), {{DNNL_ARG_FROM, part}, {DNNL_ARG_TO, dst}}, {nodeName(n)});
    } catch (const dnnl::error&) {  // strides oneDNN refuses as overlapping: the plain loop
        const Dims dims = y;
        addKernel(
            [src, dst, dims, stepped, denseY, first, size](dnnl::stream&) {
                stridedCopy(static_cast<const char*>(src.get_data_handle()) + first * int64_t(size),
                            static_cast<char*>(dst.get_data_handle()), dims, stepped, denseY, size);
            },
            {nodeName(n)}, {src, dst});
        seg.kernels.back().serial = dst.get_desc().get_size() < kSerialKernelBytes;
    }
}

/// Split: each output one reorder from a sub-memory view of the source, like Slice.
void Builder::buildSplit(const Node& n) {
    std::string why;
    auto axis = splitAxis(makeNodeQuery(q, indexOf(n)), why);
    if (!axis) throw std::runtime_error(why);
    const Shape& x = desc(n.inputs[0]).shape;
    auto [src, strides] = unblocked(n.inputs[0], x, dt::f32, nodeName(n));
    memory::dims offsets(x.size(), 0);
    for (const auto& out : n.outputs) {
        const Shape& y = desc(out).shape;
        memory part(src.get_desc().submemory_desc(toDims(y), offsets), eng, nullptr);
        addAlias(src, part);
        memory dst = activation(memory::desc(toDims(y), dt::f32, denseStrides(y, storageOrder(x, strides))));
        addPrimitive(dnnl::reorder::primitive_desc(part, dst), {{DNNL_ARG_FROM, part}, {DNNL_ARG_TO, dst}}, {nodeName(n)});
        mem[out] = dst;
        offsets[static_cast<size_t>(*axis)] += y[static_cast<size_t>(*axis)];
    }
}

/// Constant Pad: the output filled with the value, then the source reordered into its middle (a sub-memory view), in
/// the source's storage order. (A zero Pad before a Conv or pool is folded into its padding before this: fold_pad.)
void Builder::buildPad(const Node& n) {
    std::string why;
    auto g = padGeometry(makeNodeQuery(q, indexOf(n)), why);
    if (!g) throw std::runtime_error(why);
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    auto [src, strides] = unblocked(n.inputs[0], x, dt::f32, nodeName(n));
    memory dst = activation(memory::desc(toDims(y), dt::f32, denseStrides(y, storageOrder(x, strides))));
    const int64_t count = shapeNumel(y);
    const float fill = g->fill;
    addKernel([dst, count, fill](dnnl::stream&) {
        float* p = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < count; ++i) p[i] = fill;
    }, {nodeName(n)}, {dst});
    memory middle(dst.get_desc().submemory_desc(toDims(x), toDims(g->begins)), eng, nullptr);
    addAlias(dst, middle);
    addPrimitive(dnnl::reorder::primitive_desc(src, middle), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, middle}}, {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

namespace {

/// The indices of a Gather as a run gives them (int64 or int32), each checked against the axis: an index outside it
/// is the user's input, named in the error, never a read past the data.
std::vector<int64_t> checkedIndices(const void* raw, DType type, int64_t count, int64_t along, const std::string& node) {
    std::vector<int64_t> out(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) {
        int64_t i = type == DType::I64 ? static_cast<const int64_t*>(raw)[k] : static_cast<const int32_t*>(raw)[k];
        if (i < -along || i >= along)
            failInput("node '" + node + "' (Gather): index " + std::to_string(i) + " is outside [" +
                      std::to_string(-along) + ", " + std::to_string(along) + ")");
        out[static_cast<size_t>(k)] = i < 0 ? i + along : i;
    }
    return out;
}

}  // namespace

void Builder::buildGather(const Node& n) {
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    auto axis = static_cast<size_t>(n.attrInt("axis", 0) < 0 ? n.attrInt("axis", 0) + static_cast<int64_t>(x.size())
                                                            : n.attrInt("axis", 0));
    if (!desc(n.inputs[1]).constant) return buildRuntimeGather(n, axis);
    std::vector<int64_t> indices = desc(n.inputs[1]).constant->toInt64Vector();
    for (auto& i : indices) i = i < 0 ? i + x[axis] : i;
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < x.size(); ++d) (d < axis ? outer : inner) *= d == axis ? 1 : x[d];
    memory src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
    memory dst = activation(plainDesc(y));
    const int64_t along = x[axis];
    const bool serial = dst.get_desc().get_size() < kSerialKernelBytes;
    addKernel([src, dst, indices, outer, inner, along, serial](dnnl::stream&) {
        const auto* from = static_cast<const float*>(src.get_data_handle());
        auto* to = static_cast<float*>(dst.get_data_handle());
        const auto count = static_cast<int64_t>(indices.size());
#pragma omp parallel for schedule(static) if (!serial)
        for (int64_t b = 0; b < outer * count; ++b)
            std::memcpy(to + b * inner, from + ((b / count) * along + indices[static_cast<size_t>(b % count)]) * inner,
                        static_cast<size_t>(inner) * sizeof(float));
    }, {nodeName(n)}, {src, dst});
    seg.kernels.back().serial = serial;
    mem[n.outputs[0]] = dst;
}

/// Gather with indices a run gives (embedding lookups of token ids): rows copied after every index is checked.
void Builder::buildRuntimeGather(const Node& n, size_t axis) {
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    const DType type = desc(n.inputs[1]).dtype;
    const int64_t count = shapeNumel(desc(n.inputs[1]).shape);
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < x.size(); ++d) (d < axis ? outer : inner) *= d == axis ? 1 : x[d];
    memory src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
    memory ids = get(n.inputs[1]);
    memory dst = activation(plainDesc(y));
    const int64_t along = x[axis];
    const std::string name = nodeName(n);
    addKernel([src, ids, dst, type, count, outer, inner, along, name](dnnl::stream&) {
        const std::vector<int64_t> indices = checkedIndices(ids.get_data_handle(), type, count, along, name);
        const auto* from = static_cast<const float*>(src.get_data_handle());
        auto* to = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for schedule(static) if (outer * count * inner > (1 << 16))
        for (int64_t b = 0; b < outer * count; ++b)
            std::memcpy(to + b * inner, from + ((b / count) * along + indices[static_cast<size_t>(b % count)]) * inner,
                        static_cast<size_t>(inner) * sizeof(float));
    }, {name}, {src, ids, dst});
    mem[n.outputs[0]] = dst;
}

/// Cast of integer values (int64 or int32: an attention mask) to float, and of float to fp16 and back: an fp16
/// value inside the segment is held as float rounded to fp16 (the ops read it as float anyway).
void Builder::buildCast(const Node& n) {
    const DType type = desc(n.inputs[0]).dtype;
    const Shape& y = desc(n.outputs[0]).shape;
    const int64_t count = shapeNumel(y);
    if (type == DType::F16) {  // already rounded: the same values
        mem[n.outputs[0]] = reshaped(n.inputs[0], desc(n.inputs[0]).shape, y, dt::f32, nodeName(n));
        return;
    }
    if (type == DType::F32) {
        memory src = getAs(n.inputs[0], plainDesc(y), nodeName(n));
        memory dst = activation(plainDesc(y));
        addKernel([src, dst, count](dnnl::stream&) {
            const auto* from = static_cast<const float*>(src.get_data_handle());
            auto* to = static_cast<float*>(dst.get_data_handle());
            constexpr int64_t kBlock = 1 << 14;
#pragma omp parallel for schedule(static)
            for (int64_t b = 0; b < count; b += kBlock) roundToHalf(from + b, to + b, std::min(kBlock, count - b));
        }, {nodeName(n)}, {src, dst});
        seg.kernels.back().serial = count * int64_t(sizeof(float)) < int64_t(kSerialKernelBytes);
        mem[n.outputs[0]] = dst;
        halfValues.insert(n.outputs[0]);
        return;
    }
    memory src = get(n.inputs[0]);
    memory dst = activation(plainDesc(y));
    addKernel([src, dst, type, count](dnnl::stream&) {
        auto* to = static_cast<float*>(dst.get_data_handle());
        if (type == DType::I64) {
            const auto* from = static_cast<const int64_t*>(src.get_data_handle());
            for (int64_t i = 0; i < count; ++i) to[i] = static_cast<float>(from[i]);
        } else {
            const auto* from = static_cast<const int32_t*>(src.get_data_handle());
            for (int64_t i = 0; i < count; ++i) to[i] = static_cast<float>(from[i]);
        }
    }, {nodeName(n)}, {src, dst});
    seg.kernels.back().serial = true;  // masks: a few thousand values
    mem[n.outputs[0]] = dst;
}

void Builder::buildWhere(const Node& n) {
    const Shape& y = desc(n.outputs[0]).shape;
    const Tensor& cond = *desc(n.inputs[0]).constant;
    const Shape c = padRank(cond.shape(), y.size());
    // The condition per output element, once: strides of broadcast dims are 0.
    std::vector<int64_t> stride(y.size(), 0);
    for (int64_t d = static_cast<int64_t>(y.size()) - 1, step = 1; d >= 0; --d) {
        stride[static_cast<size_t>(d)] = c[static_cast<size_t>(d)] == 1 ? 0 : step;
        step *= c[static_cast<size_t>(d)];
    }
    const int64_t count = shapeNumel(y);
    auto mask = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(count));
    std::vector<int64_t> at(y.size(), 0);
    for (int64_t i = 0; i < count; ++i) {
        int64_t from = 0;
        for (size_t d = 0; d < y.size(); ++d) from += at[d] * stride[d];
        (*mask)[static_cast<size_t>(i)] = cond.elementAsDouble(from) != 0.0;
        for (size_t d = y.size(); d-- > 0;) {
            if (++at[d] < y[d]) break;
            at[d] = 0;
        }
    }
    struct Operand {
        memory m;
        float scalar = 0.f;
        bool isScalar = false;
    };
    std::vector<Operand> ops;
    std::vector<memory> uses;
    for (size_t i = 1; i < 3; ++i) {
        const ValueDesc& d = desc(n.inputs[i]);
        if (d.constant && d.constant->numel() == 1) {
            ops.push_back({memory(), static_cast<float>(d.constant->elementAsDouble(0)), true});
        } else {
            ops.push_back({getAs(n.inputs[i], plainDesc(y), nodeName(n)), 0.f, false});
            uses.push_back(ops.back().m);
        }
    }
    memory dst = activation(plainDesc(y));
    uses.push_back(dst);
    const bool serial = dst.get_desc().get_size() < kSerialKernelBytes;
    addKernel([mask, ops, dst, count, serial](dnnl::stream&) {
        const uint8_t* pick = mask->data();
        auto* out = static_cast<float*>(dst.get_data_handle());
        const float* a = ops[0].isScalar ? nullptr : static_cast<const float*>(ops[0].m.get_data_handle());
        const float* b = ops[1].isScalar ? nullptr : static_cast<const float*>(ops[1].m.get_data_handle());
        const float sa = ops[0].scalar, sb = ops[1].scalar;
#pragma omp parallel for schedule(static) if (!serial)
        for (int64_t i = 0; i < count; ++i) out[i] = pick[i] ? (a ? a[i] : sa) : (b ? b[i] : sb);
    }, {nodeName(n)}, uses);
    seg.kernels.back().serial = serial;
    mem[n.outputs[0]] = dst;
}

}  // namespace npuwb::onednn
