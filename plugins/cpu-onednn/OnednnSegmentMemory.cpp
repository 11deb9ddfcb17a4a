// The segment builder's kernels, activation arena, layout conversions and zero-copy views.
#include "OnednnSegmentBuilder.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "npuwb/sdk/MemoryPlanner.h"

namespace npuwb::onednn {

memory Builder::activation(const memory::desc& d) {
    memory m(d, eng, nullptr);
    arenaIndex[m.get()] = arena.size();
    arena.push_back({m});
    return m;
}

void Builder::used(const memory& m, int64_t step) {
    dnnl_memory_t h = m.get();
    for (auto a = aliasOf.find(h); a != aliasOf.end(); a = aliasOf.find(h)) h = a->second;
    auto it = arenaIndex.find(h);
    if (it == arenaIndex.end()) return;  // a segment input, output or constant
    ArenaBuffer& b = arena[it->second];
    b.first = b.first < 0 ? step : std::min(b.first, step);
    b.last = std::max(b.last, step);
}

void Builder::addKernel(std::function<void(dnnl::stream&)> fn, std::vector<std::string> names, std::vector<memory> uses,
                        bool timed) {
    const auto step = static_cast<int64_t>(seg.kernels.size());
    seg.kernels.push_back(Kernel{.run = std::move(fn), .nodes = std::move(names), .timed = timed, .serial = false});
    for (const memory& m : uses) used(m, step);
}

void Builder::addPrimitive(dnnl::primitive p, std::unordered_map<int, memory> args, std::vector<std::string> names) {
    std::vector<memory> uses;
    size_t bytes = 0;
    for (const auto& [arg, m] : args) {
        uses.push_back(m);
        bytes += m.get_desc().get_size();
    }
    addKernel([p, args](dnnl::stream& s) { p.execute(s, args); }, std::move(names), std::move(uses));
    seg.kernels.back().serial = bytes < kSerialKernelBytes;
}

void Builder::addPrimitive(const dnnl::primitive_desc_base& pd, std::unordered_map<int, memory> args,
                           std::vector<std::string> names) {
    addPrimitive(dnnl::primitive(pd.get()), std::move(args), std::move(names));
}

void Builder::addAlias(memory source, memory view, int64_t byteOffset) {
    aliasOf[view.get()] = source.get();
    addKernel(
        [source, view, byteOffset](dnnl::stream&) mutable {
            view.set_data_handle(static_cast<char*>(source.get_data_handle()) + byteOffset);
        },
        {}, {source}, false);
}

void Builder::addObserver(const std::string& name, memory m) {
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

void Builder::placeArena() {
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

void Builder::convertNow(memory from, memory to) {
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

memory Builder::plainWeights(const memory::desc& d, const Tensor* inPlace, const std::vector<float>& values) {
    if (inPlace) return memory(d, eng, const_cast<float*>(inPlace->data<float>()));
    memory m(d, eng);
    std::memcpy(m.get_data_handle(), values.data(), values.size() * sizeof(float));
    return m;
}

memory Builder::constantMemory(const std::string& name, const Tensor& t, const Shape& dims) {
    return packed("constant|" + constantKey(name), plainDesc(dims), [&](memory& m) {
        std::vector<float> v = t.toFloatVector();
        std::memcpy(m.get_data_handle(), v.data(), v.size() * sizeof(float));
    });
}

memory Builder::packed(const std::string& key, const memory::desc& d, const std::function<void(memory&)>& fill) {
    return weights.get(key, d, eng, fill, seg.constants);
}

memory Builder::packedFloats(const std::string& key, const memory::desc& d, const std::vector<float>& v) {
    return packed(key, d, [&](memory& m) { std::memcpy(m.get_data_handle(), v.data(), v.size() * sizeof(float)); });
}

memory Builder::get(const std::string& name) {
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
    return mem[name] = constantMemory(name, *d.constant, d.shape);
}

memory Builder::getAs(const std::string& name, const memory::desc& want, const std::string& who) {
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
        out = packed("converted|" + constantKey(name), want, [&](memory& to) { convertNow(m, to); });
    } else {
        out = activation(want);
        addPrimitive(dnnl::reorder::primitive_desc(m, out), {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, out}}, {who});
    }
    converted[name].push_back(out);
    return out;
}

memory Builder::view(memory source, const Shape& dims, dt type) {
    memory v(plainDesc(dims, type), eng, nullptr);
    addAlias(source, v);
    return v;
}

std::optional<Dims> Builder::unblockedStrides(const memory::desc& d) {
    const dnnl_memory_desc_t& md = d.data;
    if (md.format_kind != dnnl_blocked || md.format_desc.blocking.inner_nblks != 0 || md.offset0 != 0)
        return std::nullopt;
    for (int i = 0; i < md.ndims; ++i)
        if (md.padded_dims[i] != md.dims[i] || md.padded_offsets[i] != 0) return std::nullopt;
    return Dims(md.format_desc.blocking.strides, md.format_desc.blocking.strides + md.ndims);
}

bool Builder::sameStorage(const memory::desc& a, const memory::desc& b) {
    if (a.dims() != b.dims() || a.data_type() != b.data_type()) return false;
    auto sa = unblockedStrides(a), sb = unblockedStrides(b);
    if (!sa || !sb) return false;
    const memory::dims dims = a.dims();
    for (size_t i = 0; i < dims.size(); ++i)
        if (dims[i] != 1 && (*sa)[i] != (*sb)[i]) return false;
    return true;
}

std::pair<memory, Dims> Builder::unblocked(const std::string& name, const Shape& dims, dt type, const std::string& who) {
    memory m = get(name);
    if (!dims.empty() && m.get_desc().data_type() == type && m.get_desc().dims() == toDims(dims))
        if (auto s = unblockedStrides(m.get_desc())) return {m, *s};
    m = getAs(name, plainDesc(dims, type), who);
    return {m, *unblockedStrides(m.get_desc())};
}

memory Builder::reshaped(const std::string& name, const Shape& from, const Shape& to, dt type, const std::string& who) {
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

std::string Builder::constantKey(const std::string& value) const {
    const ValueDesc* d = q.value(value);
    if (!d || !d->constant) return value;
    // A model initializer is one tensor for every plan: its name identifies it. Anything else (a value folded by this
    // plan's learning run, whose content may depend on the input shapes) is identified by the object, which lives as
    // long as the plan and so as long as any cache entry made from it.
    auto init = q.graph.initializers.find(value);
    if (init != q.graph.initializers.end() && &init->second == d->constant) return value;
    char at[32];
    std::snprintf(at, sizeof at, "@%p", static_cast<const void*>(d->constant));
    return value + at;
}

std::string Builder::chainKey(const std::string& role, const std::vector<size_t>& chain) const {
    std::string key = role;
    for (size_t i : chain) {
        const Node& n = node(i);
        key += '|' + (n.outputs.empty() ? n.opType : n.outputs[0]);
        for (const auto& in : n.inputs)
            if (const ValueDesc* d = in.empty() ? nullptr : q.value(in); d && d->constant) key += ',' + constantKey(in);
    }
    return key;
}

bool Builder::overwritable(const std::string& value, const std::vector<size_t>& chain) const {
    auto it = mem.find(value);
    if (it == mem.end()) return false;
    const dnnl_memory_t h = it->second.get();
    if (!arenaIndex.count(h)) return false;  // a segment input, a constant or a view
    // Every value stored in that buffer: itself, views of it, and values that took its memory (an in-place sum).
    auto inBuffer = [&](dnnl_memory_t m) {
        for (auto a = aliasOf.find(m); a != aliasOf.end(); a = aliasOf.find(m)) m = a->second;
        return m == h;
    };
    std::set<std::string> sharing;
    for (const auto& [name, m] : mem)
        if (inBuffer(m.get())) sharing.insert(name);
    for (const auto& [name, copies] : converted)
        for (const auto& m : copies)
            if (inBuffer(m.get())) sharing.insert(name);
    // Nodes are built in segment order, a chain at its last node.
    std::map<size_t, size_t> position, builtWith;
    for (size_t i = 0; i < segmentNodes.size(); ++i) position[segmentNodes[i]] = i;
    for (const auto& c : chains)
        for (size_t member : c) builtWith[member] = c.back();
    auto builtAt = [&](size_t idx) {
        auto c = builtWith.find(idx);
        return position.at(c == builtWith.end() ? idx : c->second);
    };
    const std::set<size_t> members(chain.begin(), chain.end());
    const size_t now = position.at(chain.back());
    int sumReaders = 0;
    for (const std::string& name : sharing) {
        if (segmentOutputs.count(name)) return false;
        for (size_t idx : segmentNodes) {
            const auto& ins = node(idx).inputs;
            if (std::find(ins.begin(), ins.end(), name) == ins.end()) continue;
            if (!members.count(idx) && builtAt(idx) < now) continue;  // done before this kernel
            if (!members.count(idx) || name != value) return false;
            ++sumReaders;
        }
    }
    return sumReaders == 1;
}

std::vector<std::string> Builder::namesOf(const std::vector<size_t>& idx) const {
    std::vector<std::string> out;
    for (size_t i : idx) out.push_back(nodeName(node(i)));
    return out;
}

}  // namespace npuwb::onednn
