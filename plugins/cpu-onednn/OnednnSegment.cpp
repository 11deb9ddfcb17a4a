#include "OnednnSegment.h"

#include <omp.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include "OnednnQuant.h"
#include "OnednnSupport.h"
#include "StridedLayout.h"
#include "npuwb/sdk/ReferenceKernels.h"
#include "npuwb/sdk/MemoryPlanner.h"
#include "npuwb/Error.h"

namespace npuwb::onednn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

void OnednnSegment::run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs,
                        const RunHooks& hooks) {
    std::lock_guard lock(runMutex_);  // the arena is shared state: one run at a time per segment
    KernelTimingSink* timing = hooks.timing;
    values = hooks.values;
    omp_set_num_threads(threads_);  // the ICV is per calling thread; runs may come from any thread
    if (inputs.size() != inputMemories.size()) fail(ErrorKind::Internal, "cpu-onednn: wrong input count");
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i]->dtype() != inputTypes[i])
            failInput("cpu-onednn: input is " + std::string(dtypeName(inputs[i]->dtype())) + ", expected " +
                      std::string(dtypeName(inputTypes[i])));
        inputMemories[i].set_data_handle(const_cast<void*>(inputs[i]->raw()));
    }
    // The output copies are kernels too, placed right after each output's producer: the tensors come first.
    outputs.resize(outputShapes.size());
    for (size_t i = 0; i < outputShapes.size(); ++i) {
        outputs[i] = Tensor::uninitialized(outputTypes[i], outputShapes[i]);  // the copy writes all of it
        outputMemories[i].set_data_handle(outputs[i].raw());
    }
    using Clock = std::chrono::steady_clock;
    for (auto& k : kernels) {
        if (!timing || !k.timed) {
            k.run(stream_);
            continue;
        }
        auto start = Clock::now();
        k.run(stream_);
        stream_.wait();
        timing->kernelTimed(k.nodes, std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    stream_.wait();
}

namespace {

memory::dims toDims(const Shape& s) { return memory::dims(s.begin(), s.end()); }

memory::desc plainDesc(const Shape& s, dt type = dt::f32) {
    static const tag tags[] = {tag::a, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
    if (s.size() > 6) throw std::runtime_error("rank above 6");
    if (s.empty()) return memory::desc({1}, type, tag::a);
    return memory::desc(toDims(s), type, tags[s.size()]);
}

struct Builder {
    const GraphQuery& q;
    const dnnl::engine& eng;
    OnednnSegment& seg;
    const std::map<std::string, int>& consumers;
    std::set<std::string> segmentOutputs;  // and the watched values: both are kept, never fused away
    std::map<std::string, memory> mem{};                                // current memory of each value
    std::map<std::string, std::vector<memory>> converted{};             // other layouts already made
    std::vector<std::vector<size_t>> chains{};                          // fused node groups, first is the anchor
    std::map<size_t, size_t> chainEndingAt{};                           // last node -> chain index
    std::set<size_t> inChainNotLast{};
    // int8 (OnednnInt8Ops.inc): chains built as int8 kernels, the nodes they take, lazily dequantized values.
    std::set<size_t> int8Chains{}, int8Nodes{};
    std::vector<size_t> segmentNodes{};  // every node of the segment, in order (planInt8)
    std::map<std::string, size_t> producerInSegment{}, consumerInSegment{};
    std::map<std::string, std::pair<std::string, QuantInfo>> dequantizedFrom{};  // DQ output -> (int8 source, params)
    std::map<std::string, std::function<void()>> lazy{};                         // builds a value on first use

    const Node& node(size_t i) const { return q.graph.nodes[i]; }
    const ValueDesc& desc(const std::string& n) const {
        const ValueDesc* d = q.value(n);
        if (!d) throw std::runtime_error("value '" + n + "' has no known shape");
        return *d;
    }

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

    memory activation(const memory::desc& d) {
        memory m(d, eng, nullptr);
        arenaIndex[m.get()] = arena.size();
        arena.push_back({m});
        return m;
    }
    void used(const memory& m, int64_t step) {
        dnnl_memory_t h = m.get();
        for (auto a = aliasOf.find(h); a != aliasOf.end(); a = aliasOf.find(h)) h = a->second;
        auto it = arenaIndex.find(h);
        if (it == arenaIndex.end()) return;  // a segment input, output or constant
        ArenaBuffer& b = arena[it->second];
        b.first = b.first < 0 ? step : std::min(b.first, step);
        b.last = std::max(b.last, step);
    }
    /// `uses`: every memory the kernel reads or writes (the arena plan depends on it).
    void addKernel(std::function<void(dnnl::stream&)> fn, std::vector<std::string> names, std::vector<memory> uses,
                   bool timed = true) {
        const auto step = static_cast<int64_t>(seg.kernels.size());
        seg.kernels.push_back({std::move(fn), std::move(names), timed});
        for (const memory& m : uses) used(m, step);
    }
    void addPrimitive(dnnl::primitive p, std::unordered_map<int, memory> args, std::vector<std::string> names) {
        std::vector<memory> uses;
        for (const auto& [arg, m] : args) uses.push_back(m);
        addKernel([p, args](dnnl::stream& s) { p.execute(s, args); }, std::move(names), std::move(uses));
    }
    // Primitives are made here, on the building thread: oneDNN 2.6 keeps a primitive's library scratchpad in the
    // creating thread's storage, so one made on a helper thread crashed after that thread ended.
    void addPrimitive(const dnnl::primitive_desc_base& pd, std::unordered_map<int, memory> args,
                      std::vector<std::string> names) {
        addPrimitive(dnnl::primitive(pd.get()), std::move(args), std::move(names));
    }
    /// A kernel that points `view` at `source`'s buffer each run (segment inputs get theirs per run).
    void addAlias(memory source, memory view) {
        aliasOf[view.get()] = source.get();
        addKernel([source, view](dnnl::stream&) mutable { view.set_data_handle(source.get_data_handle()); }, {},
                  {source}, false);
    }
    /// A kernel that shows float value `name` (memory `m`) to the run's ValueObserver: in place when its layout has
    /// no padding (a blocked layout holds each element once, in another order), else through a plain float copy.
    void addObserver(const std::string& name, memory m) {
        const memory::desc d = m.get_desc();
        const auto count = static_cast<size_t>(desc(name).shape.empty() ? 1 : shapeNumel(desc(name).shape));
        memory view = m;
        if (d.data_type() != dt::f32 || d.get_size() != count * sizeof(float)) {
            view = activation(plainDesc(desc(name).shape));
            addPrimitive(dnnl::reorder::primitive_desc(m, view), {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, view}}, {});
            seg.kernels.back().timed = false;
        }
        OnednnSegment* owner = &seg;
        addKernel(
            [owner, name, view, count](dnnl::stream& s) {
                if (!owner->values) return;
                s.wait();
                owner->values->observe(name, {static_cast<const float*>(view.get_data_handle()), count});
            },
            {}, {view}, false);
    }
    /// Offsets for every arena buffer; the segment owns the storage.
    void placeArena() {
        std::vector<TensorLifetime> lifetimes;
        std::vector<size_t> placed;
        for (size_t i = 0; i < arena.size(); ++i) {
            if (arena[i].first < 0) continue;  // never touched by a kernel
            lifetimes.push_back({"", static_cast<int64_t>(arena[i].m.get_desc().get_size()), 0, arena[i].first, arena[i].last});
            placed.push_back(i);
        }
        const MemoryPlan plan = planMemory(lifetimes, 64);
        seg.arenaBytes = plan.arenaBytes;
        seg.arena.reset(new std::byte[static_cast<size_t>(plan.arenaBytes) + 64]);  // not zeroed: kernels write first
        const auto base = reinterpret_cast<uintptr_t>(seg.arena.get());
        std::byte* aligned = seg.arena.get() + (64 - base % 64) % 64;
        for (size_t k = 0; k < placed.size(); ++k) arena[placed[k]].m.set_data_handle(aligned + plan.tensors[k].offset);
    }

    /// Converts a constant once, now (weight packing). Below kOneThreadPackBytes on this thread alone: waking the
    /// OpenMP team costs more than copying a few kilobytes, and in busy periods single wake-ups took 7-14 ms
    /// (squeezenet1_1 QDQ creation 25-37 ms before, 20-23 ms after).
    void convertNow(memory from, memory to) {
        constexpr size_t kOneThreadPackBytes = size_t{1} << 20;
        struct RestoreThreads {
            int threads;
            ~RestoreThreads() { omp_set_num_threads(threads); }  // primitives made later plan for the session's
        } restore{seg.threads_};
        if (to.get_desc().get_size() < kOneThreadPackBytes) omp_set_num_threads(1);
        dnnl::stream s(eng);
        dnnl::reorder(from, to).execute(s, from, to);
        s.wait();
    }
    /// Float weights in the plain layout `d`, for packing: the model's own tensor read in place when given,
    /// else a copy of `values` (weights with a BatchNormalization or alpha folded in).
    memory plainWeights(const memory::desc& d, const Tensor* inPlace, const std::vector<float>& values) {
        if (inPlace) return memory(d, eng, const_cast<float*>(inPlace->data<float>()));
        memory m(d, eng);
        std::memcpy(m.get_data_handle(), values.data(), values.size() * sizeof(float));
        return m;
    }
    memory constantMemory(const Tensor& t, const Shape& dims) {
        memory m(plainDesc(dims), eng);
        std::vector<float> v = t.toFloatVector();
        std::memcpy(m.get_data_handle(), v.data(), v.size() * sizeof(float));
        return m;
    }
    memory get(const std::string& name) {
        auto it = mem.find(name);
        if (it != mem.end()) return it->second;
        if (auto l = lazy.find(name); l != lazy.end()) {
            auto make = std::move(l->second);
            lazy.erase(l);
            make();
            return mem.at(name);
        }
        const ValueDesc& d = desc(name);
        if (!d.constant) throw std::runtime_error("value '" + name + "' is not available in the segment");
        return mem[name] = constantMemory(*d.constant, d.shape);
    }
    /// `name` in layout `want`: the value itself, an earlier conversion, or a new reorder kernel.
    memory getAs(const std::string& name, const memory::desc& want, const std::string& who) {
        memory m = get(name);
        if (m.get_desc() == want) return m;
        for (const auto& c : converted[name])
            if (c.get_desc() == want) return c;
        if (sameStorage(m.get_desc(), want)) {  // only the strides of size-1 dims differ: a view will do
            memory v(want, eng, nullptr);
            addAlias(m, v);
            converted[name].push_back(v);
            return v;
        }
        const ValueDesc* d = q.value(name);  // nullptr for the int8 path's internal values
        memory out;
        if (d && d->constant) {  // constants are converted once, now
            out = memory(want, eng);
            convertNow(m, out);
        } else {
            out = activation(want);
            addPrimitive(dnnl::reorder::primitive_desc(m, out), {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, out}}, {who});
        }
        converted[name].push_back(out);
        return out;
    }
    /// A zero-copy plain view of `source` (plain) with other dims; its handle follows the source's every run.
    memory view(memory source, const Shape& dims, dt type = dt::f32) {
        memory v(plainDesc(dims, type), eng, nullptr);
        addAlias(source, v);
        return v;
    }
    /// Element strides of a layout without blocking, padding or offset (plain, channels-last, views of them).
    static std::optional<Dims> unblockedStrides(const memory::desc& d) {
        const dnnl_memory_desc_t& md = d.data;
        if (md.format_kind != dnnl_blocked || md.format_desc.blocking.inner_nblks != 0 || md.offset0 != 0)
            return std::nullopt;
        for (int i = 0; i < md.ndims; ++i)
            if (md.padded_dims[i] != md.dims[i] || md.padded_offsets[i] != 0) return std::nullopt;
        return Dims(md.format_desc.blocking.strides, md.format_desc.blocking.strides + md.ndims);
    }
    /// Whether two unblocked layouts store the same elements at the same places (strides of size-1 dims aside).
    static bool sameStorage(const memory::desc& a, const memory::desc& b) {
        if (a.dims() != b.dims() || a.data_type() != b.data_type()) return false;
        auto sa = unblockedStrides(a), sb = unblockedStrides(b);
        if (!sa || !sb) return false;
        const memory::dims dims = a.dims();
        for (size_t i = 0; i < dims.size(); ++i)
            if (dims[i] != 1 && (*sa)[i] != (*sb)[i]) return false;
        return true;
    }
    /// Value `name` (dims `dims`, element type `type`) in a layout without blocking: its own when it has one, else a
    /// plain copy. Returns the memory and its strides.
    std::pair<memory, Dims> unblocked(const std::string& name, const Shape& dims, dt type, const std::string& who) {
        memory m = get(name);
        if (!dims.empty() && m.get_desc().data_type() == type && m.get_desc().dims() == toDims(dims))
            if (auto s = unblockedStrides(m.get_desc())) return {m, *s};
        m = getAs(name, plainDesc(dims, type), who);
        return {m, *unblockedStrides(m.get_desc())};
    }
    /// Value `name` (dims `from`) seen with dims `to`: a zero-copy view in its own layout when the reshape only
    /// regroups dims stored together, else a view of its plain copy.
    memory reshaped(const std::string& name, const Shape& from, const Shape& to, dt type, const std::string& who) {
        if (!from.empty() && !to.empty()) {
            auto [m, strides] = unblocked(name, from, type, who);
            if (auto t = reshapedStrides(from, strides, to)) {
                memory v(memory::desc(toDims(to), type, *t), eng, nullptr);
                addAlias(m, v);
                return v;
            }
        }
        return view(getAs(name, plainDesc(from, type), who), to, type);
    }

    /// The scalar of a constant one-element float tensor.
    std::optional<float> scalarConstant(const std::string& name) const {
        const ValueDesc* d = name.empty() ? nullptr : q.value(name);
        if (!d || !d->constant || d->constant->numel() != 1 || d->constant->dtype() != DType::F32) return std::nullopt;
        return d->constant->values<float>()[0];
    }
    /// Mul or Add of the chain's value `x` and a constant scalar: a linear post-op.
    bool isScalarAffine(const Node& n, const std::string& x) const {
        if ((n.opType != "Mul" && n.opType != "Add") || n.inputs.size() != 2 || !n.domain.empty()) return false;
        return (n.inputs[0] == x && scalarConstant(n.inputs[1])) || (n.inputs[1] == x && scalarConstant(n.inputs[0]));
    }
    /// x * Clip(x + 3, 0, 6) / 6, as exporters write HardSwish (paddle2onnx: PP-OCR), starting at value `x`: the
    /// Add, Clip, Div and Mul nodes in order, or nothing. Nothing else may read the values in between.
    std::optional<std::vector<size_t>> decomposedHardSwish(const std::string& x,
                                                           const std::map<std::string, std::vector<size_t>>& users) const {
        auto only = [&](const std::string& v) -> std::optional<size_t> {
            auto c = consumers.find(v);
            auto u = users.find(v);
            if (c == consumers.end() || c->second != 1 || segmentOutputs.count(v) || u == users.end() || u->second.size() != 1)
                return std::nullopt;
            return u->second[0];
        };
        auto u = users.find(x);
        auto c = consumers.find(x);
        if (u == users.end() || u->second.size() != 2 || c == consumers.end() || c->second != 2) return std::nullopt;
        for (size_t first = 0; first < 2; ++first) {
            const size_t add = u->second[first], mul = u->second[1 - first];
            const Node& a = node(add);
            if (a.opType != "Add" || !isScalarAffine(a, x) || scalarConstant(a.inputs[0] == x ? a.inputs[1] : a.inputs[0]) != 3.f)
                continue;
            auto clip = only(a.outputs[0]);
            if (!clip || node(*clip).opType != "Clip") continue;
            auto bounds = clipBounds(makeNodeQuery(q, *clip));
            if (!bounds || bounds->first != 0.f || bounds->second != 6.f) continue;
            auto div = only(node(*clip).outputs[0]);
            if (!div || node(*div).opType != "Div" || node(*div).inputs.size() != 2 ||
                node(*div).inputs[0] != node(*clip).outputs[0] || scalarConstant(node(*div).inputs[1]) != 6.f)
                continue;
            if (only(node(*div).outputs[0]) != mul) continue;
            const Node& m = node(mul);
            if (m.opType != "Mul" || m.inputs.size() != 2 ||
                !((m.inputs[0] == x && m.inputs[1] == node(*div).outputs[0]) || (m.inputs[1] == x && m.inputs[0] == node(*div).outputs[0])))
                continue;
            return std::vector<size_t>{add, *clip, *div, mul};
        }
        return std::nullopt;
    }
    using EltwiseStep = std::tuple<dnnl::algorithm, float, float>;
    /// Activations written as several nodes and taken into a Conv chain as one post-op: first node -> the post-op
    /// and how many nodes it covers (HardSwish: Add, Clip, Div, Mul; SiLU: Sigmoid, Mul).
    std::map<size_t, std::pair<EltwiseStep, size_t>> decomposedAt{};
    /// The decomposed activation starting at value `x` (its nodes, in order) and its post-op, or nothing.
    std::optional<std::pair<std::vector<size_t>, EltwiseStep>> decomposedActivation(
        const std::string& x, const std::map<std::string, std::vector<size_t>>& users) const {
        if (auto hs = decomposedHardSwish(x, users))
            return std::make_pair(*hs, EltwiseStep{dnnl::algorithm::eltwise_hardswish, 0.f, 0.f});
        if (auto silu = siluAt(x))  // x * sigmoid(1 * x)
            return std::make_pair(std::vector<size_t>{silu->first, silu->second},
                                  EltwiseStep{dnnl::algorithm::eltwise_swish, 1.f, 0.f});
        return std::nullopt;
    }

    /// Appends a post-op step; a linear step right after another becomes one, a2*(a1*x + b1) + b2.
    static void appendStep(std::vector<EltwiseStep>& steps, EltwiseStep step) {
        constexpr auto linear = dnnl::algorithm::eltwise_linear;
        if (std::get<0>(step) == linear && !steps.empty() && std::get<0>(steps.back()) == linear) {
            auto& [alg, a, b] = steps.back();
            b = std::get<1>(step) * b + std::get<2>(step);
            a = std::get<1>(step) * a;
            return;
        }
        steps.push_back(step);
    }
    /// oneDNN 2.6 gets a second eltwise_linear post-op wrong, apart or in a row (Add, Relu, Mul came out 2x off;
    /// PP-OCRv4 det with HardSwish ops: its probability map off by 1.0). A chain keeps one linear step, not
    /// counting a leading one that folds into the Conv's weights and bias (`leadFolds`).
    static bool postOpsSupported(const std::vector<EltwiseStep>& steps, bool leadFolds) {
        size_t linear = 0;
        for (size_t i = 0; i < steps.size(); ++i)
            if (std::get<0>(steps[i]) == dnnl::algorithm::eltwise_linear && !(i == 0 && leadFolds)) ++linear;
        return linear <= 1;
    }

    void planFusion(const std::vector<size_t>& nodes) {
        std::set<size_t> inSegment(nodes.begin(), nodes.end());
        std::map<std::string, size_t> consumerOf;
        std::map<std::string, std::vector<size_t>> users;  // every consumer inside the segment
        std::set<size_t> claimed;
        for (size_t idx : nodes)
            for (const auto& in : node(idx).inputs)
                if (!in.empty()) {
                    consumerOf[in] = idx;
                    if (users[in].empty() || users[in].back() != idx) users[in].push_back(idx);
                }
        for (size_t idx : nodes) {
            const bool deconv = node(idx).opType == "ConvTranspose";
            if ((node(idx).opType != "Conv" && !deconv) || inChainNotLast.count(idx) || chainEndingAt.count(idx)) continue;
            std::vector<size_t> chain{idx};
            bool sum = false;
            std::vector<EltwiseStep> steps;  // the post-ops so far, as buildConvChain/buildDeconv will make them
            // Whether `more` can follow as post-ops (a leading linear step folds into a Conv without a sum).
            auto takes = [&](const std::vector<EltwiseStep>& more) {
                std::vector<EltwiseStep> next = steps;
                for (const auto& m : more) appendStep(next, m);
                if (!postOpsSupported(next, !deconv && !sum)) return false;
                steps = std::move(next);
                return true;
            };
            std::string out = node(idx).outputs[0];
            while (true) {
                if (!deconv && !segmentOutputs.count(out)) {
                    if (auto act = decomposedActivation(out, users)) {
                        const auto& [taken, step] = *act;
                        bool free = true;
                        for (size_t k : taken) free = free && inSegment.count(k) && !claimed.count(k) && !int8Nodes.count(k);
                        if (free && takes({step})) {
                            decomposedAt[taken.front()] = {step, taken.size()};
                            chain.insert(chain.end(), taken.begin(), taken.end());
                            out = node(taken.back()).outputs[0];
                            continue;
                        }
                    }
                }
                auto c = consumers.find(out);
                if (c == consumers.end() || c->second != 1 || segmentOutputs.count(out) || !consumerOf.count(out)) break;
                size_t next = consumerOf[out];
                const Node& n = node(next);
                if (!inSegment.count(next) || n.inputs.empty() || claimed.count(next) || int8Nodes.count(next)) break;
                bool ok = false;
                if (!deconv && isScalarAffine(n, out)) {  // Paddle's learnable affine after an activation
                    ok = takes(eltwiseOf(n));
                } else if (n.opType == "BatchNormalization" && chain.size() == 1 && n.inputs[0] == out && n.inputs.size() == 5) {
                    ok = true;
                    for (size_t i = 1; i < 5; ++i) ok = ok && desc(n.inputs[i]).constant;
                    ok = ok && (n.outputs.size() == 1 || n.outputs[1].empty());
                } else if (n.opType == "Add" && !sum && !deconv && n.inputs.size() == 2) {
                    const std::string& other = n.inputs[0] == out ? n.inputs[1] : n.inputs[0];
                    ok = other != out && !desc(other).constant && desc(other).shape == desc(out).shape;
                    ok = ok && steps.empty();  // keep oneDNN's fast path: sum before activations
                    sum = ok;
                } else if (isPostOpActivation(n)) {
                    ok = n.inputs[0] == out && takes(eltwiseOf(n));
                }
                if (!ok) break;
                chain.push_back(next);
                out = n.outputs[0];
            }
            for (size_t i = 0; i + 1 < chain.size(); ++i) inChainNotLast.insert(chain[i]);
            claimed.insert(chain.begin(), chain.end());
            chainEndingAt[chain.back()] = chains.size();
            chains.push_back(chain);
        }
    }

    bool isPostOpActivation(const Node& n) const {
        static const std::set<std::string> ops = {"Relu", "LeakyRelu", "Sigmoid", "Clip", "HardSwish",
                                                  "HardSigmoid", "Tanh", "Elu"};
        if (!ops.count(n.opType)) return false;
        if (n.opType == "Clip") return bool(clipBounds(makeNodeQuery(q, indexOf(n))));
        return true;
    }
    size_t indexOf(const Node& n) const { return static_cast<size_t>(&n - q.graph.nodes.data()); }

    /// Algorithm and parameters of a unary op (also used as post-ops); a few ops take two steps.
    std::vector<EltwiseStep> eltwiseOf(const Node& n) const {
        using A = dnnl::algorithm;
        const std::string& op = n.opType;
        if (op == "Relu") return {{A::eltwise_relu, 0.f, 0.f}};
        if (op == "LeakyRelu") return {{A::eltwise_relu, n.attrFloat("alpha", 0.01f), 0.f}};
        if (op == "Sigmoid") return {{A::eltwise_logistic, 0.f, 0.f}};
        if (op == "Tanh") return {{A::eltwise_tanh, 0.f, 0.f}};
        if (op == "Elu") return {{A::eltwise_elu, n.attrFloat("alpha", 1.f), 0.f}};
        if (op == "HardSwish") return {{A::eltwise_hardswish, 0.f, 0.f}};
        // oneDNN 2.6 has no hardsigmoid: clip(alpha*x + beta, 0, 1) as linear then clip.
        if (op == "HardSigmoid")
            return {{A::eltwise_linear, n.attrFloat("alpha", 0.2f), n.attrFloat("beta", 0.5f)},
                    {A::eltwise_clip_v2, 0.f, 1.f}};
        if (op == "Pow") return {{A::eltwise_pow, 1.f, *powExponent(makeNodeQuery(q, indexOf(n)))}};
        if (op == "Exp") return {{A::eltwise_exp, 0.f, 0.f}};
        if (op == "Abs") return {{A::eltwise_abs, 0.f, 0.f}};
        if (op == "Sqrt") return {{A::eltwise_sqrt, 0.f, 0.f}};
        if (op == "Neg") return {{A::eltwise_linear, -1.f, 0.f}};
        if (op == "Identity") return {{A::eltwise_linear, 1.f, 0.f}};
        if (op == "Clip") {
            auto b = clipBounds(makeNodeQuery(q, indexOf(n)));
            return {{A::eltwise_clip_v2, b->first, b->second}};
        }
        // A Mul or Add of a constant scalar (chains only: isScalarAffine checked the other input).
        if (op == "Mul" || op == "Add") {
            const float c = scalarConstant(n.inputs[0]) ? *scalarConstant(n.inputs[0]) : *scalarConstant(n.inputs[1]);
            return {op == "Mul" ? EltwiseStep{A::eltwise_linear, c, 0.f} : EltwiseStep{A::eltwise_linear, 1.f, c}};
        }
        throw std::runtime_error("no eltwise for " + op);
    }

    std::vector<std::string> namesOf(const std::vector<size_t>& idx) const {
        std::vector<std::string> out;
        for (size_t i : idx) out.push_back(nodeName(node(i)));
        return out;
    }
    static std::string nodeName(const Node& n) { return n.name.empty() ? (n.outputs.empty() ? n.opType : n.outputs[0]) : n.name; }

    void build(size_t idx);
    void buildConvChain(const std::vector<size_t>& chain);
    void buildDeconv(const std::vector<size_t>& chain);  // ConvTranspose (+ BatchNormalization) (+ activations)
    void buildPool(const Node& n);
    void buildGemm(const Node& n);
    void buildMatMul(const Node& n);
    void buildBinary(const Node& n);
    void buildResize(const Node& n);
    void buildSoftmax(const Node& n);
    void buildConcat(const Node& n);
    void buildBatchNorm(const Node& n);
    void buildTranspose(const Node& n, const std::string& in = {}, const std::string& out = {}, dt type = dt::f32);
    void buildSlice(const Node& n, const std::string& in = {}, const std::string& out = {}, dt type = dt::f32);
    void buildReduce(const Node& n);

#include "OnednnInt8Ops.inc"
};

#include "OnednnOps.inc"

}  // namespace

std::unique_ptr<OnednnSegment> buildSegment(const GraphQuery& query, const std::vector<size_t>& nodes,
                                            const std::vector<std::string>& inputs,
                                            const std::vector<std::string>& outputs,
                                            const std::map<std::string, int>& consumerCount,
                                            const dnnl::engine& engine, int threads) {
    auto seg = std::make_unique<OnednnSegment>(engine, threads);
    Builder b{.q = query, .eng = engine, .seg = *seg, .consumers = consumerCount,
              .segmentOutputs = {outputs.begin(), outputs.end()}};
    for (const auto& in : inputs) {
        const ValueDesc& d = b.desc(in);
        dt type = dt::f32;
        try {
            type = dnnlType(d.dtype);
        } catch (const std::exception& e) {  // blame the first node that reads it, so it falls back
            for (size_t idx : nodes)
                for (const auto& name : b.node(idx).inputs)
                    if (name == in) throw NodeBuildError(idx, e.what());
            throw;
        }
        memory m(plainDesc(d.shape, type), engine, nullptr);
        seg->inputMemories.push_back(m);
        seg->inputTypes.push_back(d.dtype);
        b.mem[in] = m;
    }
    // Watched values made here (not outputs) are observed in place, right after their producer.
    std::vector<std::string> watched;
    if (query.watched)
        for (size_t idx : nodes)
            for (const auto& out : b.node(idx).outputs)
                if (!out.empty() && query.watched->count(out) && !b.segmentOutputs.count(out) &&
                    b.desc(out).dtype == DType::F32)  // only float values are observed (GraphQuery::watched)
                    watched.push_back(out);
    b.segmentOutputs.insert(watched.begin(), watched.end());
    b.planInt8(nodes);
    b.planFusion(nodes);
    // Each output is copied into the caller's tensor as soon as it exists: the copy reads it while it is in cache,
    // and its arena buffer is free for reuse after that (an output kept to the end would pin it).
    for (const auto& out : outputs) {
        seg->outputTypes.push_back(b.desc(out).dtype);
        seg->outputShapes.push_back(b.desc(out).shape);
        seg->outputMemories.emplace_back();
    }
    std::vector<bool> copied(outputs.size(), false);
    auto copyReadyOutputs = [&](bool all) {
        for (size_t i = 0; i < outputs.size(); ++i) {
            if (copied[i] || (!all && !b.mem.count(outputs[i]))) continue;
            memory src = b.get(outputs[i]);
            memory dst(plainDesc(seg->outputShapes[i], src.get_desc().data_type()), engine, nullptr);
            seg->outputMemories[i] = dst;
            b.addPrimitive(dnnl::reorder::primitive_desc(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, {});
            seg->kernels.back().timed = false;
            copied[i] = true;
        }
    };
    std::vector<bool> observed(watched.size(), false);
    auto observeReadyValues = [&](bool all) {
        for (size_t i = 0; i < watched.size(); ++i) {
            if (observed[i] || (!all && !b.mem.count(watched[i]))) continue;
            b.addObserver(watched[i], b.get(watched[i]));
            observed[i] = true;
        }
    };
    copyReadyOutputs(false);  // outputs that are segment inputs
    for (size_t idx : nodes) {
        if (b.inChainNotLast.count(idx)) continue;
        try {
            b.build(idx);
        } catch (const dnnl::error& e) {
            throw NodeBuildError(idx, std::string("oneDNN: ") + e.what());
        } catch (const std::exception& e) {
            throw NodeBuildError(idx, e.what());
        }
        copyReadyOutputs(false);
        observeReadyValues(false);
    }
    copyReadyOutputs(true);  // lazily built values (a dequantized output nothing inside read)
    observeReadyValues(true);
    b.placeArena();
    return seg;
}

}  // namespace npuwb::onednn
