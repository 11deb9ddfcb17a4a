#pragma once
// The oneDNN segment builder: turns a segment's nodes into kernels (OnednnSegment.h). One struct, defined across
// translation units by responsibility:
//   OnednnSegment.cpp        the segment's run(), buildSegment() and the per-node dispatch (build)
//   OnednnSegmentMemory.cpp  kernels, the activation arena, layouts, conversions and zero-copy views
//   OnednnFusion.cpp         fusion planning: Conv chains with post-ops, decomposed activations
//   OnednnConvGemm.cpp       fp32 Conv, ConvTranspose, pooling, Gemm and MatMul lowering
//   OnednnDeconvMatmul.cpp   ConvTranspose with kernel == stride as one matmul into a strided output
//   OnednnMatmulChain.cpp    fp32 MatMul chains (bias, activation post-ops), GELU and LayerNorm as exporters
//                            write them below opset 17 (matching and kernels)
//   OnednnAttention.cpp      the attention core (MatMul, scale, mask, Softmax, MatMul) per block of score rows
//                            (row kernels: AttentionRows.cpp)
//   OnednnKeptOpRows.cpp     LayerNorm and GELU with the quantizer's fp16 marks and QuantizeLinear, one pass
//   OnednnElementwise.cpp    binary, unary, Softmax, Resize, BatchNormalization and reductions (broadcasts
//                            oneDNN has no kernel for: OnednnBroadcastBinary.cpp)
//   OnednnDataMovement.cpp   Concat, Transpose, Slice, Split, Pad, and reshapes as views
//   OnednnInt8Plan.cpp       matching QDQ patterns into int8 chains
//   OnednnInt8Ops.cpp        the int8 kernels, QuantizeLinear and lazy DequantizeLinear (loops: OnednnQuant.cpp,
//                            their AVX-512 forms OnednnQuantAvx512.cpp)
// Private to the plugin.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "AttentionKernel.h"
#include "OnednnQuant.h"
#include "OnednnSegment.h"
#include "OnednnSupport.h"
#include "StridedLayout.h"

namespace npuwb::onednn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

inline memory::dims toDims(const Shape& s) { return memory::dims(s.begin(), s.end()); }

inline memory::desc plainDesc(const Shape& s, dt type = dt::f32) {
    static const tag tags[] = {tag::a, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
    if (s.size() > 6) throw std::runtime_error("rank above 6");
    if (s.empty()) return memory::desc({1}, type, tag::a);
    return memory::desc(toDims(s), type, tags[s.size()]);
}

/// Channels-last storage of `x` ([N, C, spatial...] with C innermost) as a oneDNN layout.
inline memory::desc channelsLastDesc(const Shape& x) {
    memory::dims strides(x.size());
    strides[1] = 1;
    int64_t step = x[1];
    for (size_t d = x.size(); d-- > 2;) {
        strides[d] = step;
        step *= x[d];
    }
    strides[0] = step;
    return memory::desc(toDims(x), dt::f32, strides);
}

/// Shape with leading 1s up to `rank` (numpy broadcasting aligns trailing dims).
inline Shape padRank(Shape s, size_t rank) {
    s.insert(s.begin(), rank - std::min(rank, s.size()), 1);
    return s;
}

/// Data movement that runs on int8 values as well: Q(Move(DQ(x))) = Move(x) when the parameters agree.
inline const std::set<std::string> kInt8Movements = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                                                     "Transpose", "Slice"};

/// Elementwise ops of one input whose int8 form is a table of the 256 possible inputs, computed once by the
/// reference kernel itself (so it matches the reference bit for bit).
/// Relu and Clip (constant bounds) too: a QDQ export quantizes them on their own when no Conv precedes (after an Add).
inline const std::set<std::string> kInt8TableOps = {"Sigmoid", "Tanh",  "HardSigmoid", "HardSwish", "LeakyRelu",
                                                    "Elu",     "Selu",  "Softplus",    "Exp",       "Neg",
                                                    "Abs",     "Erf",   "Softsign",    "Celu",      "Mish",
                                                    "Relu",    "Clip"};

/// Binary ops that are a table too when one operand is a single-element constant (paddle2onnx's learnable affine
/// after HardSwish, the parts of a decomposed HardSwish: each quantized on its own in a QDQ export).
inline const std::set<std::string> kInt8ScalarBinaryOps = {"Add", "Sub", "Mul", "Div"};

/// A post-op or unary step: algorithm, alpha, beta.
using EltwiseStep = std::tuple<dnnl::algorithm, float, float>;

struct Builder {
    const GraphQuery& q;
    const dnnl::engine& eng;
    OnednnSegment& seg;
    WeightCache& weights;
    const std::map<std::string, int>& consumers;
    std::set<std::string> segmentOutputs;  // and the watched values: both are kept, never fused away
    std::map<std::string, memory> mem{};                                // current memory of each value
    std::map<std::string, std::vector<memory>> converted{};             // other layouts already made
    std::vector<std::vector<size_t>> chains{};                          // fused node groups, first is the anchor
    std::map<size_t, size_t> chainEndingAt{};                           // last node -> chain index
    std::set<size_t> inChainNotLast{};
    // int8 (OnednnInt8Plan.cpp): chains built as int8 kernels, the nodes they take, lazily dequantized values.
    std::set<size_t> int8Chains{}, int8Nodes{};
    std::vector<size_t> segmentNodes{};  // every node of the segment, in order (planInt8)
    std::map<size_t, size_t> segmentPosition{};  // node -> its place in segmentNodes (planFusion)
    std::map<std::string, size_t> producerInSegment{}, consumerInSegment{};
    std::map<std::string, std::pair<std::string, QuantInfo>> dequantizedFrom{};  // DQ output -> (int8 source, params)
    /// int8 chains that end in float read only through data movement and a QuantizeLinear (the heads' Reshape and
    /// Transpose before an attention core): first node -> that QuantizeLinear, whose parameters the chain writes in.
    std::map<size_t, size_t> quantizedThroughMovement{};
    /// int8 chains whose output only Slices of disjoint column ranges read, each reaching its own QuantizeLinear
    /// through data movement (a fused QKV projection split into Q, K and V): first node -> the parameters per output
    /// column, in which the GEMM writes its bytes. Those Slices -> the parameters of the bytes they take; a Div or
    /// Mul by a positive constant on the way -> the parameters of its output (the same bytes under another scale);
    /// and the QuantizeLinears, which run in no kernel.
    std::map<size_t, std::vector<QuantInfo>> quantizedPerColumn{};
    std::map<size_t, QuantInfo> columnSliceQuant{}, rescaledAt{};
    std::set<size_t> quantizedByColumns{};
    /// Sums of two dequantized values read in float and by a QuantizeLinear too: the Add -> that QuantizeLinear, whose
    /// bytes the sum's kernel writes in the same pass.
    std::map<size_t, size_t> quantizedAlongside{};
    std::map<std::string, std::function<void()>> lazy{};                         // builds a value on first use
    /// Activations written as several nodes and taken into a Conv chain as one post-op: first node -> the post-op
    /// and how many nodes it covers (HardSwish: Add, Clip, Div, Mul; SiLU: Sigmoid, Mul).
    std::map<size_t, std::pair<EltwiseStep, size_t>> decomposedAt{};
    /// Channel Concats read only by a Conv, which runs one Conv per Concat input instead (planFusion): Conv -> Concat.
    std::map<size_t, size_t> concatInto{};
    /// LayerNorm written as ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div (then Mul, Add): first node -> its terms.
    struct DecomposedNorm {
        std::string input, scale, shift;  // scale/shift empty when absent
        int64_t axis = 0;                 // the first normalized axis
        float epsilon = 0.f;
    };
    std::map<size_t, DecomposedNorm> normAt{};
    /// GELU (erf or tanh form) written as several nodes and read by nothing a MatMul or Conv took: first node -> step.
    std::map<size_t, EltwiseStep> standaloneActivationAt{};
    /// The attention core: MatMul, steps on the scores, Softmax over the last axis, steps on the probabilities, MatMul
    /// (OnednnAttention.cpp). First node -> its steps.
    struct AttentionCore {
        std::vector<ScoreStep> scores, probabilities;  // probabilities starts with the Softmax
        /// The QuantizeLinear that reads the output through data movement (the heads merged, then quantized for the
        /// next Linear): the kernel writes its bytes.
        std::optional<size_t> quantizedOutput{};
    };
    std::map<size_t, AttentionCore> attentionAt{};
    /// LayerNormalization with an fp16 round trip before it and/or a QuantizeLinear after it, one pass over the rows
    /// (OnednnKeptOpRows.cpp). First node -> its terms.
    struct NormRows {
        std::string input;  // read by the first Cast, or by the LayerNormalization
        size_t norm = 0;    // the LayerNormalization node
        bool halfInput = false;
        std::optional<QuantInfo> quantize;
        /// Data movement then the QuantizeLinear whose parameters `quantize` are, when the output reaches it only
        /// through movement (ViT's LayerNorm -> Transpose -> Q): the pass writes the bytes, the movement moves them.
        std::vector<size_t> moved{};
    };
    std::map<size_t, NormRows> normRowsAt{};
    /// GELU (erf or tanh form, as nodes) with the same marks around it, one pass. First node -> its terms.
    struct GeluRows {
        std::string input;  // read by the first Cast, or by the GELU's nodes
        bool tanhForm = false, halfInput = false;
        std::optional<QuantInfo> quantize;
    };
    std::map<size_t, GeluRows> geluRowsAt{};

    // Activation buffers live in one arena per segment: created without storage, each gets an offset planned from
    // the first and last kernel that touches it (directly or through a zero-copy view), so buffers whose lifetimes
    // do not overlap share bytes. Weights and constants keep their own storage.
    struct ArenaBuffer {
        memory m;
        int64_t first = -1, last = -1;
    };
    std::vector<ArenaBuffer> arena{};
    std::map<dnnl_memory_t, size_t> arenaIndex{};
    std::map<dnnl_memory_t, dnnl_memory_t> aliasOf{};  // view -> the memory whose handle it takes

    const Node& node(size_t i) const { return q.graph.nodes[i]; }
    size_t indexOf(const Node& n) const { return static_cast<size_t>(&n - q.graph.nodes.data()); }
    const ValueDesc& desc(const std::string& n) const {
        const ValueDesc* d = q.value(n);
        if (!d) throw std::runtime_error("value '" + n + "' has no known shape");
        return *d;
    }
    static std::string nodeName(const Node& n) {
        return n.layerName();
    }
    static std::string int8Name(const std::string& value) { return value + "#int8"; }

    // Kernels, arena, layouts (OnednnSegmentMemory.cpp).
    memory activation(const memory::desc& d);
    void used(const memory& m, int64_t step);
    /// `uses`: every memory the kernel reads or writes (the arena plan depends on it).
    void addKernel(std::function<void(dnnl::stream&)> fn, std::vector<std::string> names, std::vector<memory> uses,
                   bool timed = true);
    void addPrimitive(dnnl::primitive p, std::unordered_map<int, memory> args, std::vector<std::string> names);
    // Primitives are made here, on the building thread: oneDNN 2.6 keeps a primitive's library scratchpad in the
    // creating thread's storage, so one made on a helper thread crashed after that thread ended.
    void addPrimitive(const dnnl::primitive_desc_base& pd, std::unordered_map<int, memory> args,
                      std::vector<std::string> names);
    /// A kernel that points `view` at `source`'s buffer, from `byteOffset` on, each run (segment inputs get theirs
    /// per run).
    void addAlias(memory source, memory view, int64_t byteOffset = 0);
    /// A kernel that shows float value `name` (memory `m`) to the run's ValueObserver: in place when its layout has
    /// no padding (a blocked layout holds each element once, in another order), else through a plain float copy.
    void addObserver(const std::string& name, memory m);
    /// Offsets for every arena buffer; the segment owns the storage.
    void placeArena();
    /// Converts a constant once, now (weight packing). Below kOneThreadPackBytes on this thread alone: waking the
    /// OpenMP team costs more than copying a few kilobytes, and in busy periods single wake-ups took 7-14 ms
    /// (squeezenet1_1 QDQ creation 25-37 ms before, 20-23 ms after).
    void convertNow(memory from, memory to);
    /// Float weights in the plain layout `d`, for packing: the model's own tensor read in place when given,
    /// else a copy of `values` (weights with a BatchNormalization or alpha folded in).
    memory plainWeights(const memory::desc& d, const Tensor* inPlace, const std::vector<float>& values);
    /// Constant `name` (tensor `t`) as plain float with dims `dims`, from the backend's cache.
    memory constantMemory(const std::string& name, const Tensor& t, const Shape& dims);
    /// A packed constant from the backend's WeightCache: `key` says what it is (nodes and role), `fill` writes it
    /// the first time. Another context's compile of the same graph reuses it.
    memory packed(const std::string& key, const memory::desc& d, const std::function<void(memory&)>& fill);
    /// Float values `v` as a plain 1-D constant (a bias) from the cache.
    memory packedFloats(const std::string& key, const memory::desc& d, const std::vector<float>& v);
    memory get(const std::string& name);
    /// `name` in layout `want`: the value itself, an earlier conversion, or a new reorder kernel.
    memory getAs(const std::string& name, const memory::desc& want, const std::string& who);
    /// A zero-copy plain view of `source` (plain) with other dims; its handle follows the source's every run.
    memory view(memory source, const Shape& dims, dt type = dt::f32);
    /// Element strides of a layout without blocking, padding or offset (plain, channels-last, views of them).
    static std::optional<Dims> unblockedStrides(const memory::desc& d);
    /// Whether two unblocked layouts store the same elements at the same places (strides of size-1 dims aside).
    static bool sameStorage(const memory::desc& a, const memory::desc& b);
    /// Value `name` (dims `dims`, element type `type`) in a layout without blocking: its own when it has one, else a
    /// plain copy. Returns the memory and its strides.
    std::pair<memory, Dims> unblocked(const std::string& name, const Shape& dims, dt type, const std::string& who);
    /// Value `name` (dims `from`) seen with dims `to`: a zero-copy view in its own layout when the reshape only
    /// regroups dims stored together, else a view of its plain copy.
    memory reshaped(const std::string& name, const Shape& from, const Shape& to, dt type, const std::string& who);
    std::vector<std::string> namesOf(const std::vector<size_t>& idx) const;
    /// Whether the kernel of `chain` may write into value `value`'s buffer (a Conv's sum post-op adding onto its
    /// residual): an arena buffer no other value or view shares, not kept (segment output or watched), read by one
    /// node of the chain and by nothing built after it. `chain`: every node the kernels stand for (with a Concat the
    /// Conv absorbed, whose inputs the kernels read too).
    bool overwritable(const std::string& value, const std::vector<size_t>& chain) const;
    /// What identifies constant `value` across plans (WeightCache keys): its name for a model initializer, else the
    /// name and this plan's tensor object.
    std::string constantKey(const std::string& value) const;
    /// The cache key of what a fused chain packs: `role`, then each node's first output and constant inputs.
    std::string chainKey(const std::string& role, const std::vector<size_t>& chain) const;

    // Fusion planning (OnednnFusion.cpp).
    /// The one node that reads `value` (read once in the whole graph, by a node of this segment, and not kept), or
    /// nothing.
    std::optional<size_t> soleUser(const std::string& value,
                                   const std::map<std::string, std::vector<size_t>>& users) const;
    /// The scalar of a constant one-element float tensor.
    std::optional<float> scalarConstant(const std::string& name) const;
    /// Mul or Add of the chain's value `x` and a constant scalar: a linear post-op.
    bool isScalarAffine(const Node& n, const std::string& x) const;
    /// x * Clip(x + 3, 0, 6) / 6, as exporters write HardSwish (paddle2onnx: PP-OCR), starting at value `x`: the
    /// Add, Clip, Div and Mul nodes in order (or Add, Clip, Mul, Div: the Div last), or nothing. Nothing else may read
    /// the values in between.
    std::optional<std::vector<size_t>> decomposedHardSwish(const std::string& x,
                                                           const std::map<std::string, std::vector<size_t>>& users) const;
    /// The decomposed activation starting at value `x` (its nodes, in order) and its post-op, or nothing.
    std::optional<std::pair<std::vector<size_t>, EltwiseStep>> decomposedActivation(
        const std::string& x, const std::map<std::string, std::vector<size_t>>& users) const;
    /// Appends a post-op step; a linear step right after another becomes one, a2*(a1*x + b1) + b2.
    static void appendStep(std::vector<EltwiseStep>& steps, EltwiseStep step);
    /// oneDNN 2.6 gets a second eltwise_linear post-op wrong, apart or in a row (Add, Relu, Mul came out 2x off;
    /// PP-OCRv4 det with HardSwish ops: its probability map off by 1.0). A chain keeps one linear step, not
    /// counting a leading one that folds into the Conv's weights and bias (`leadFolds`).
    static bool postOpsSupported(const std::vector<EltwiseStep>& steps, bool leadFolds);
    void planFusion(const std::vector<size_t>& nodes);
    /// GELU as exporters write it (x/sqrt2 or x*(1/sqrt2), Erf, +1, *x, *0.5 in any order; or the tanh form with
    /// x^3), starting at value `x`: its nodes in segment order. Identified by its values at probe points, so any order
    /// of the same terms matches. `alone`: x may have readers outside the pattern.
    std::optional<std::pair<std::vector<size_t>, EltwiseStep>> decomposedGelu(
        const std::string& x, const std::map<std::string, std::vector<size_t>>& users, bool alone) const;
    /// LayerNormalization node `norm` with the marks around it, or nothing when it has none (OnednnKeptOpRows.cpp).
    std::optional<std::pair<std::vector<size_t>, NormRows>> layerNormRows(size_t norm) const;
    /// The GELU nodes `gelu` of value `x` with the marks around them, or nothing when they have none.
    std::optional<std::pair<std::vector<size_t>, GeluRows>> geluRows(const std::string& x,
                                                                     const std::vector<size_t>& gelu,
                                                                     bool tanhForm) const;
    /// The quantizer's fp16 round trip (Cast to fp16, Cast back) that makes `value`, which `uses` reads consume and
    /// nothing else: (first Cast, second Cast).
    std::optional<std::pair<size_t, size_t>> halfMarksBefore(const std::string& value, int uses) const;
    /// The QuantizeLinear to 8 bits that alone reads `value`, else null.
    const Node* byteQuantizeAfter(const std::string& value) const;
    /// LayerNorm in its opset < 17 form starting at value `x`: its nodes in segment order and terms, or nothing.
    std::optional<std::pair<std::vector<size_t>, DecomposedNorm>> decomposedLayerNorm(
        const std::string& x, const std::map<std::string, std::vector<size_t>>& users) const;
    /// MatMul chains (bias Add, activations, scalar affine steps as post-ops), decomposed LayerNorms and GELUs.
    void planTransformerFusion(const std::vector<size_t>& nodes,
                               const std::map<std::string, std::vector<size_t>>& users, std::set<size_t>& claimed);
    /// The attention core starting at MatMul `matmul` (its nodes in order and steps), or nothing.
    std::optional<std::pair<std::vector<size_t>, AttentionCore>> attentionCore(
        size_t matmul, const std::map<std::string, std::vector<size_t>>& users) const;
    void planConcatIntoConv(const std::vector<size_t>& nodes, const std::set<size_t>& inSegment,
                            const std::map<std::string, size_t>& consumerOf);
    bool isPostOpActivation(const Node& n) const;
    /// Algorithm and parameters of a unary op (also used as post-ops); a few ops take two steps.
    std::vector<EltwiseStep> eltwiseOf(const Node& n) const;

    // Per-node kernels (dispatch in OnednnSegment.cpp; fp32 lowering in OnednnConvGemm.cpp, OnednnElementwise.cpp,
    // OnednnDataMovement.cpp).
    void build(size_t idx);
    void buildConvChain(const std::vector<size_t>& chain);
    void buildDeconv(const std::vector<size_t>& chain);  // ConvTranspose (+ BatchNormalization) (+ activations)
    /// ConvTranspose with kernel == stride, no padding, dilation or groups (OnednnDeconvMatmul.cpp).
    static bool deconvIsPixelShuffle(const Node& n, const Window& win, const Shape& x, const Shape& y);
    /// That ConvTranspose as one matmul writing the channels-last output through strides; `weights` ONNX [IC, OC, kH,
    /// kW] and `bias` with anything folded in, `ops` the chain's post-ops.
    void buildDeconvAsMatmul(const std::vector<size_t>& chain, const Window& win, const std::vector<float>& weights,
                             const std::vector<float>& bias, const dnnl::post_ops& ops);
    void buildPool(const Node& n);
    void buildGemm(const Node& n);
    /// MatMul (+ bias Add) (+ activations): a constant or broadcast 2-D B makes one GEMM over A's rows.
    void buildMatMulChain(const std::vector<size_t>& chain);
    void buildDecomposedLayerNorm(const std::vector<size_t>& chain);
    void buildLayerNormRows(const std::vector<size_t>& chain);
    void buildGeluRows(const std::vector<size_t>& chain);
    /// The attention core per block of score rows (OnednnAttention.cpp).
    void buildAttention(const std::vector<size_t>& chain);
    /// The perm of Transpose `t` with negative axes normalized (nothing for another op or an invalid perm).
    std::optional<std::vector<int64_t>> transposePerm(const Node& t) const;
    /// The perm of the Transpose that is the only reader of `value` in this segment, or nothing.
    std::optional<std::vector<int64_t>> transposeReading(const std::string& value) const;
    /// Transposes read only by a kernel that takes strided operands (the attention core): their output is a view.
    std::set<std::string> stridedViewOutputs{};
    void buildStandaloneActivation(const std::vector<size_t>& chain);
    /// Erf on its own (no oneDNN eltwise has it).
    void buildErf(const Node& n);
    void buildBinary(const Node& n);
    void buildEltwise(const Node& n);  // unary ops as oneDNN eltwise steps (eltwiseOf)
    void buildResize(const Node& n);
    /// Linear Resize with align_corners coordinates: the reference's taps and double sums (OnednnResizeAlignCorners.cpp).
    void buildResizeAlignCorners(const Node& n);
    void buildSoftmax(const Node& n);
    void buildConcat(const Node& n);
    /// `relu`: the Relu after it (planFusion's chain {BatchNormalization, Relu}), computed in the same pass.
    void buildBatchNorm(const Node& n, const Node* relu = nullptr);
    void buildReshape(const Node& n);  // Flatten, Reshape, Squeeze, Unsqueeze, Identity: views
    /// `in`/`out`/`type` let the int8 path move int8 values under other names (shapes are the node's).
    void buildTranspose(const Node& n, const std::string& in = {}, const std::string& out = {}, dt type = dt::f32);
    void buildSlice(const Node& n, const std::string& in = {}, const std::string& out = {}, dt type = dt::f32);
    void buildReduce(const Node& n);
    /// LayerNormalization as oneDNN's over [rows, normalized elements] views (float statistics; the reference's are
    /// double: within the usual tolerance).
    void buildLayerNorm(const Node& n);
    void buildSplit(const Node& n);
    /// Gather with constant indices: one copy per (outer index, gathered index) block.
    void buildGather(const Node& n);
    void buildRuntimeGather(const Node& n, size_t axis);
    void buildCast(const Node& n);
    /// An int64 segment input (token ids, masks): oneDNN has no 64-bit type, so its memory is its bytes as s32
    /// pairs, read only by the kernels that take integer values (Gather's indices, Cast).
    std::set<std::string> int64Inputs{};
    /// fp16 values made in the segment, held as float rounded to fp16 (converted when they leave it).
    std::set<std::string> halfValues{};
    /// Where with a constant condition, expanded to the output shape once; values or constant scalars.
    void buildWhere(const Node& n);
    void buildPad(const Node& n);

    // int8 matching (OnednnInt8Plan.cpp).
    /// Whether `value` is the float image of an 8-bit value of this segment.
    bool byteDequantized(const std::string& value) const;
    /// When `value` is the float image of an int8 value of this segment (a DequantizeLinear's output, or data movement
    /// of one): the name the int8 value has in the builder and its parameters.
    std::optional<std::pair<std::string, QuantInfo>> dequantizedInput(const std::string& value) const;
    /// The single in-segment consumer of `value` (nullptr when it has several, or is a segment output).
    const Node* soleConsumer(const std::string& value) const;
    /// The input of a table op (kInt8TableOps, or kInt8ScalarBinaryOps with a single-element constant operand) that
    /// is an 8-bit value's float image, the others being constants; nothing when `n` is no such op.
    std::optional<size_t> tableInput(const Node& n) const;
    bool isTableOp(const Node& n) const;
    /// Mul(x, op(x)) right after unary node `op` of `x` (SiLU as exporters write it, with op = Sigmoid), the only reader
    /// of op's output: still a function of x alone. Nullptr otherwise.
    const Node* mulWithInput(const Node& op) const;
    /// The Add of a constant per-output-column bias that alone reads `matmul`'s output (a Linear layer as
    /// exporters write it for inputs of rank 3 and more), else null.
    const Node* biasAddAfter(const Node& matmul) const;
    /// SiLU starting at value `x`: Sigmoid(x) and Mul(x, Sigmoid(x)) in this segment, x read by nothing else; the two
    /// node indices, or nothing.
    std::optional<std::pair<size_t, size_t>> siluAt(const std::string& x) const;
    /// The QuantizeLinear to 8 bits of one scale that reads `value` through data movement alone (kInt8Movements, each
    /// value read once): Q(Move(x)) = Move(Q(x)), so a kernel writing `value` can write the bytes and the movement
    /// move bytes. Null when there is none.
    const Node* quantizeAfterMovement(const std::string& value) const;
    /// Plans quantizedPerColumn for the int8 chain starting at `anchor` whose float output is `value`; false (nothing
    /// planned) unless every reader of `value` is such a Slice.
    bool planQuantizedColumns(size_t anchor, const std::string& value);
    /// 1/c for Mul(x, c) and c for Div(x, c) with a single positive constant c, x being input 0: Q(x / c) with scale s
    /// is x quantized with scale s * c. Nothing for other nodes.
    std::optional<float> positiveScalarDivisor(const Node& n) const;
    /// Extends `chain` (ending in value `out`) by an optional Relu/Clip/SiLU and then a QuantizeLinear; true when it ends
    /// in Q. SiLU only right before a Q (its result has to be requantized; a float one is not worth the pattern).
    bool extendWithActivationAndQuantize(std::vector<size_t>& chain, bool requireQuantize);
    /// For Add/Mul of two 8-bit values' float images where one has the output's shape and the other one value per
    /// channel ([N or 1, C, 1, ...]: squeeze-excitation's scaling): the index of the per-channel input.
    std::optional<size_t> channelBroadcastInput(const Node& n) const;
    void planInt8(const std::vector<size_t>& nodes);
    /// The int8 weights of a Conv ([OC, IC/g, kH, kW], scales per OC) or Gemm/MatMul (scales per N), or nullopt.
    std::optional<Int8Weights> int8Weights(const Node& n) const;

    // int8 kernels (OnednnInt8Ops.cpp).
    /// Reshape-like ops, Transpose and Slice on the int8 value behind a dequantized input; the float output stays lazy.
    void buildInt8Movement(const Node& n);
    /// Builds what a chain of planInt8 ends in.
    void buildInt8Chain(const std::vector<size_t>& chain);
    /// Conv, Gemm or MatMul in int8 (from QDQ, or QLinearConv / QLinearMatMul): u8/s8 source with its zero point, s8
    /// weights with per-channel scales, the bias in accumulator units, then oneDNN's requantization to the Q's type (or
    /// float when no Q follows).
    void buildInt8Matmul(const std::vector<size_t>& chain);
    /// Add or Mul of two dequantized values, optional Relu/Clip, quantized: the reference's float arithmetic per
    /// element on the int8 inputs (bit-exact), one pass, no float tensors. Without a Q the float result is written
    /// instead.
    void buildInt8Binary(const std::vector<size_t>& chain);
    /// The clamp of an int8 chain's Relu or Clip (op -> activation -> Q); infinite without one.
    std::pair<float, float> chainActivationBounds(const std::vector<size_t>& chain) const;
    /// The same with one operand per channel (channelBroadcastInput), in the full operand's own layout when that is
    /// NCHW or NHWC (one pass, no reorder).
    void buildInt8ChannelBroadcast(const std::vector<size_t>& chain, size_t perChannelInput);
    /// DQ -> unary op [-> Mul with the op's input: SiLU] -> Q as a table over the 256 input values: the plugin's own
    /// DequantizeLinear, the reference kernels of the ops and the plugin's QuantizeLinear, once, here (so each entry is
    /// what the reference computes).
    void buildInt8Table(const std::vector<size_t>& chain);
    /// MaxPool straight on the int8 values: max commutes with a monotonic quantization of equal parameters.
    void buildInt8MaxPool(const std::vector<size_t>& chain);
    /// GlobalAveragePool of an int8 value straight to the Q's type (averagePoolQuantized: exact sums, ORT's rounding).
    void buildInt8GlobalAveragePool(const std::vector<size_t>& chain);
    /// Concat of int8 values: Q(Concat(DQ(a), DQ(b), ...)) is the concat of each input requantized to the output's
    /// parameters (nothing to do for inputs that already have them), exact like the reference.
    void buildInt8Concat(const std::vector<size_t>& chain);
    /// Records `out` as the float image of int8 value `source`; a kernel is made only if something reads `out`.
    void lazyDequantize(const std::string& out, const std::string& source, const QuantInfo& info, const std::string& name);
    /// QuantizeLinear: Q(DQ(x)) is x when the parameters agree (no kernel), one requantize pass when they differ, else
    /// the float input quantized in its own layout.
    void buildQuantize(const Node& n);
    /// DequantizeLinear: recorded, built only when a float consumer (or the segment's output) asks for its value.
    void buildDequantize(const Node& n);
};

}  // namespace npuwb::onednn
