// The oneDNN segment: its run(), buildSegment() and the per-node dispatch of the builder (OnednnSegmentBuilder.h).
#include "MatmulConvert.h"
#include "OnednnSegmentBuilder.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "npuwb/Error.h"

namespace npuwb::onednn {

void OnednnSegment::run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs,
                        const RunHooks& hooks) {
    std::lock_guard lock(runMutex_);  // the arena is shared state: one run at a time per segment
    KernelTimingSink* timing = hooks.timing;
    values = hooks.values;
    // The ICV is per calling thread (runs may come from any thread), and set per kernel: tiny ones run serially.
    int activeThreads = threads_;
    omp_set_num_threads(activeThreads);
    auto useThreadsFor = [&](const Kernel& k) {
        const int want = k.serial ? 1 : threads_;
        if (want != activeThreads) omp_set_num_threads(activeThreads = want);
    };
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
        useThreadsFor(k);
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

void Builder::build(size_t idx) {
    auto chain = chainEndingAt.find(idx);
    if (chain != chainEndingAt.end()) {
        const std::vector<size_t>& c = chains[chain->second];
        if (int8Chains.count(chain->second)) return buildInt8Chain(c);
        if (attentionAt.count(c[0])) return buildAttention(c);
        if (normAt.count(c[0])) return buildDecomposedLayerNorm(c);
        if (normRowsAt.count(c[0])) return buildLayerNormRows(c);
        if (geluRowsAt.count(c[0])) return buildGeluRows(c);
        if (standaloneActivationAt.count(c[0])) return buildStandaloneActivation(c);
        if (node(c[0]).opType == "MatMul") return buildMatMulChain(c);
        if (node(c[0]).opType == "BatchNormalization") return buildBatchNorm(node(c[0]), &node(c[1]));
        return node(c[0]).opType == "ConvTranspose" ? buildDeconv(c) : buildConvChain(c);
    }
    const Node& n = node(idx);
    const std::string& op = n.opType;
    if (op == "QuantizeLinear") return buildQuantize(n);
    if (op == "DequantizeLinear") return buildDequantize(n);
    if (kInt8Movements.count(op) && (dequantizedFrom.count(n.inputs[0]) || columnSliceQuant.count(idx)))
        return buildInt8Movement(n);
    if (auto rescaled = rescaledAt.find(idx); rescaled != rescaledAt.end())  // the same bytes, another scale
        return lazyDequantize(n.outputs[0], dequantizedFrom.at(n.inputs[0]).first, rescaled->second, nodeName(n));
    if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool") return buildPool(n);
    if (op == "Gemm") return buildGemm(n);
    if (op == "ConvTranspose") return buildDeconv({idx});
    if (op == "MatMul") return buildMatMulChain({idx});
    if (op == "Erf") return buildErf(n);
    if (op == "Softmax") return buildSoftmax(n);
    if (op == "Resize") return buildResize(n);
    if (op == "LayerNormalization") return buildLayerNorm(n);
    if (op == "Concat") return buildConcat(n);
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Max" || op == "Min") return buildBinary(n);
    if (op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity")
        return buildReshape(n);
    if (op == "BatchNormalization") return buildBatchNorm(n);
    if (op == "Transpose") return buildTranspose(n);
    if (op == "Slice") return buildSlice(n);
    if (op == "Split") return buildSplit(n);
    if (op == "Gather") return buildGather(n);
    if (op == "Cast") return buildCast(n);
    if (op == "Where") return buildWhere(n);
    if (op == "Pad") return buildPad(n);
    if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin") return buildReduce(n);
    buildEltwise(n);
}

std::unique_ptr<OnednnSegment> buildSegment(const GraphQuery& query, const std::vector<size_t>& nodes,
                                            const std::vector<std::string>& inputs,
                                            const std::vector<std::string>& outputs,
                                            const std::map<std::string, int>& consumerCount,
                                            const dnnl::engine& engine, int threads, WeightCache& weights) {
    auto seg = std::make_unique<OnednnSegment>(engine, threads);
    Builder b{.q = query, .eng = engine, .seg = *seg, .weights = weights, .consumers = consumerCount,
              .segmentOutputs = {outputs.begin(), outputs.end()}};
    for (const auto& in : inputs) {
        const ValueDesc& d = b.desc(in);
        if (d.dtype == DType::I64) {
            memory m(memory::desc({2 * std::max<int64_t>(1, shapeNumel(d.shape))}, dt::s32, tag::a), engine, nullptr);
            seg->inputMemories.push_back(m);
            seg->inputTypes.push_back(d.dtype);
            b.mem[in] = m;
            b.int64Inputs.insert(in);
            continue;
        }
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
            if (b.halfValues.count(outputs[i])) {  // held as float: fp16 bits for the caller
                memory src = b.getAs(outputs[i], plainDesc(seg->outputShapes[i]), {});
                memory dst(plainDesc(seg->outputShapes[i], dt::f16), engine, nullptr);
                seg->outputMemories[i] = dst;
                const int64_t count = shapeNumel(seg->outputShapes[i]);
                b.addKernel([src, dst, count](dnnl::stream&) {
                    floatToHalf(static_cast<const float*>(src.get_data_handle()),
                                static_cast<uint16_t*>(dst.get_data_handle()), count);
                }, {}, {src, dst});
                seg->kernels.back().timed = false;
                copied[i] = true;
                continue;
            }
            memory src = b.get(outputs[i]);
            memory dst(b.int64Inputs.count(outputs[i]) ? src.get_desc()
                                                        : plainDesc(seg->outputShapes[i], src.get_desc().data_type()),
                       engine, nullptr);
            seg->outputMemories[i] = dst;
            // Plain storage under another layout (one channel, channels-last): copied as plain, not per pixel.
            if (src.get_desc() != dst.get_desc() && Builder::sameStorage(src.get_desc(), dst.get_desc()))
                src = b.getAs(outputs[i], dst.get_desc(), {});
            if (src.get_desc() == dst.get_desc()) {  // oneDNN's plain-to-plain reorder is a loop 5x slower than memcpy
                const size_t bytes = dst.get_desc().get_size();
                b.addKernel([src, dst, bytes](dnnl::stream&) {
                    std::memcpy(dst.get_data_handle(), src.get_data_handle(), bytes);
                }, {}, {src, dst});
            } else {
                b.addPrimitive(dnnl::reorder::primitive_desc(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, {});
            }
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
