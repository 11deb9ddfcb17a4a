#include "StandinModel.h"

#include <cstdlib>
#include <cstring>
#include <set>

#include "PerfDetailText.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"

namespace npuwb::standin {
namespace {

Shape staticShape(const ValueInfo& info, const std::map<std::string, ValueType>* inferred, const std::string& label) {
    const ValueType* type = &info.type;
    if (inferred) {
        auto it = inferred->find(info.name);
        if (it != inferred->end()) type = &it->second;
    }
    if (type->kind != ValueType::Kind::Tensor || !type->shape)
        failInput(label + ": '" + info.name + "' has no tensor shape the stand-in can report");
    Shape s;
    for (const Dim& d : *type->shape) s.push_back(d.known() ? d.value : 1);  // symbolic dims: 1, like a fixed build
    return s;
}

IoDesc describe(const ValueInfo& info, const Shape& itemShape, int64_t batch, const std::string& label) {
    IoDesc d;
    d.name = info.name;
    d.dtype = info.type.dtype;
    if (d.dtype == DType::String || d.dtype == DType::Undefined || d.dtype == DType::I4 || d.dtype == DType::U4)
        failInput(label + ": '" + info.name + "' has element type " + std::string(dtypeName(d.dtype)) +
                  ", which rknn_tensor_type cannot express");
    d.itemShape = itemShape;
    d.shape = itemShape;
    if (batch > 1) {
        if (d.shape.empty()) failInput(label + ": '" + info.name + "' is a scalar, so it has no batch dim to scale");
        d.shape[0] *= batch;
    }
    d.itemElements = shapeNumel(itemShape);
    d.itemBytes = static_cast<size_t>(d.itemElements) * dtypeSize(d.dtype);
    return d;
}

std::string envOr(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

}  // namespace

std::shared_ptr<const LoadedModel> loadModel(const std::string& containerBytes, const std::string& label) {
    Container c = parseContainer(containerBytes, label);
    auto loaded = std::make_shared<LoadedModel>();
    loaded->targetPlatform = c.targetPlatform;
    loaded->batch = c.batch;
    // The container's own figure (hosts without the chip profiles, e.g. a board the agent was deployed to), else the
    // chip profile's.
    loaded->npuCores = c.npuCores > 0 ? c.npuCores : findChipProfile(c.targetPlatform).cores;
    try {  // the chip's zero-copy input row alignment; the default where the profiles are not installed
        if (const int64_t align = findChipProfile(c.targetPlatform).zeroCopyInputWidthAlign; align > 0)
            loaded->inputWidthAlign = static_cast<uint32_t>(align);
    } catch (const std::exception&) {
    }
    auto model = std::make_shared<Model>(loadModelFromBytes(c.onnx, ".", label));
    const Graph& g = model->graph;
    std::vector<const ValueInfo*> required;
    std::map<std::string, Shape> inputShapes;
    for (const auto& in : g.inputs)
        if (!g.initializers.count(in.name)) {
            required.push_back(&in);
            inputShapes[in.name] = staticShape(in, nullptr, label);
        }
    bool outputsStatic = true;
    for (const auto& out : g.outputs)
        if (!out.type.shape) outputsStatic = false;
        else
            for (const Dim& d : *out.type.shape) outputsStatic = outputsStatic && d.known();
    std::map<std::string, ValueType> inferred;
    if (!outputsStatic) inferred = inferValueTypes(*model, inputShapes);
    for (const ValueInfo* in : required) loaded->inputs.push_back(describe(*in, inputShapes[in->name], c.batch, label));
    for (const auto& out : g.outputs)
        loaded->outputs.push_back(describe(out, staticShape(out, outputsStatic ? nullptr : &inferred, label), c.batch, label));
    for (const auto& [name, t] : g.initializers) loaded->weightBytes += t.byteSize();
    std::set<std::string> io;
    for (const auto& v : g.inputs) io.insert(v.name);
    for (const auto& v : g.outputs) io.insert(v.name);
    for (const auto& [name, info] : g.valueInfo) {
        if (io.count(name) || g.initializers.count(name) || info.type.kind != ValueType::Kind::Tensor || !info.type.shape)
            continue;
        Shape shape;
        for (const Dim& d : *info.type.shape) shape.push_back(d.known() ? d.value : 1);
        if (info.type.dtype != DType::String && info.type.dtype != DType::Undefined)  // shapeNumel refuses overflow
            loaded->internalBytes += static_cast<uint64_t>(shapeNumel(shape)) * dtypeSize(info.type.dtype);
    }
    loaded->model = std::move(model);
    return loaded;
}

Context::Context(std::shared_ptr<const LoadedModel> model, uint32_t initFlags) : loaded(std::move(model)), flags(initFlags) {
    // The engine's CPU backends ("auto": the best plugin found); NPUWB_STANDIN_BACKEND picks another, e.g. "reference".
    SessionOptions options;
    options.executor.backend = envOr("NPUWB_STANDIN_BACKEND", kAutoBackend);
    options.executor.threads = std::atoi(envOr("NPUWB_STANDIN_THREADS", "0").c_str());
    options.profileKernels = (flags & RKNN_FLAG_COLLECT_PERF_MASK) != 0;
    session = std::make_unique<Session>(loaded->model, options);
    if (options.profileKernels) layerTimes = std::make_unique<LayerTimes>();
    inputs.resize(loaded->inputs.size());
    inputMems.resize(loaded->inputs.size());
    outputMems.resize(loaded->outputs.size());
}

Context::~Context() = default;

void Context::run() {
    for (size_t i = 0; i < inputs.size(); ++i)
        if (!inputs[i]) failInput("input " + std::to_string(i) + " ('" + loaded->inputs[i].name + "') was not set");
    const int64_t items = loaded->batch;
    const auto started = std::chrono::steady_clock::now();
    std::vector<Tensor> results;
    for (const auto& out : loaded->outputs) results.emplace_back(Tensor::uninitialized(out.dtype, out.shape));
    if (layerTimes) layerTimes->startRun();
    for (int64_t item = 0; item < items; ++item) {
        std::map<std::string, Value> feed;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const IoDesc& d = loaded->inputs[i];
            auto* base = static_cast<char*>(const_cast<void*>(inputs[i]->raw()));
            feed[d.name] = Value(Tensor::view(d.dtype, d.itemShape, base + static_cast<size_t>(item) * d.itemBytes));
        }
        RunControl control;
        control.observer = layerTimes.get();
        auto out = session->run(feed, control);
        for (size_t o = 0; o < loaded->outputs.size(); ++o) {
            const IoDesc& d = loaded->outputs[o];
            const Value& v = out.at(d.name);
            if (!v.isTensor() || v.tensor.dtype() != d.dtype || v.tensor.shape() != d.itemShape)
                failInput("output '" + d.name + "' came out as " +
                          (v.isTensor() ? shapeToString(v.tensor.shape()) : std::string("a non-tensor")) +
                          ", not the " + shapeToString(d.itemShape) + " the model declares");
            std::memcpy(static_cast<char*>(results[o].raw()) + static_cast<size_t>(item) * d.itemBytes,
                        v.tensor.raw(), d.itemBytes);
        }
    }
    lastRunUs = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
    outputs = std::move(results);
    ran = true;
    ++frames;
    if (layerTimes) perfDetail = layerTimes->table(*session, items);
}

}  // namespace npuwb::standin
