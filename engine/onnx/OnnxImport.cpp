// ONNX ModelProto -> IR. Runs ONNX's own shape inference first so the IR carries every type it can know.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx-data_pb.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "onnx/IsolatedShapeInference.h"
#include "npuwb/SchemaWarmUp.h"
#include "npuwb/ModelIO.h"
#include "onnx/OnnxTensor.h"
#include "onnx/SpecCheck.h"
#include "ops/Kernel.h"
#include "npuwb/AtomicFile.h"

namespace npuwb {

using namespace onnxconv;

namespace {

struct ImportContext {
    std::string baseDir;
    std::string label;  // file name for messages
    const ImportOptions& options;
    int64_t opset = 0;
};

/// `releaseWeights`: the same graph, mutable; each initializer's data is freed once converted (lower peak memory).
Graph convertGraph(const onnx::GraphProto& proto, ImportContext& ctx, int depth,
                   onnx::GraphProto* releaseWeights = nullptr);

Attribute convertAttribute(const onnx::AttributeProto& a, const std::string& nodeLabel, ImportContext& ctx, int depth) {
    Attribute out;
    const std::string what = ctx.label + ": node " + nodeLabel + " attribute '" + a.name() + "'";
    switch (a.type()) {
        case onnx::AttributeProto_AttributeType_FLOAT: out.kind = Attribute::Kind::Float; out.f = a.f(); break;
        case onnx::AttributeProto_AttributeType_INT: out.kind = Attribute::Kind::Int; out.i = a.i(); break;
        case onnx::AttributeProto_AttributeType_STRING: out.kind = Attribute::Kind::String; out.s = a.s(); break;
        case onnx::AttributeProto_AttributeType_TENSOR:
            out.kind = Attribute::Kind::Tensor;
            out.t = tensorFromProto(a.t(), ctx.baseDir, what);
            break;
        case onnx::AttributeProto_AttributeType_SPARSE_TENSOR: {
            // Densify: values scattered at indices (flat [NNZ] or coordinates [NNZ, rank]).
            const auto& sp = a.sparse_tensor();
            Tensor values = tensorFromProto(sp.values(), ctx.baseDir, what);
            Tensor indices = tensorFromProto(sp.indices(), ctx.baseDir, what);
            Shape dims(sp.dims().begin(), sp.dims().end());
            Tensor dense(values.dtype(), dims);
            std::vector<int64_t> idx = indices.toInt64Vector();
            int64_t n = values.numel();
            size_t rank = dims.size();
            bool coords = indices.rank() == 2;
            if (idx.size() != static_cast<size_t>(n) * (coords ? rank : 1) || (coords && indices.dim(1) != int64_t(rank)))
                failInput(what + ": sparse indices do not match its values and dims");
            visitAny(values.dtype(), [&]<typename T>() {
                for (int64_t i = 0; i < n; ++i) {
                    int64_t flat = 0;
                    if (coords) {
                        for (size_t d = 0; d < rank; ++d) {
                            const int64_t c = idx[static_cast<size_t>(i) * rank + d];
                            if (c < 0 || c >= dims[d]) failInput(what + ": sparse index out of range");
                            flat = flat * dims[d] + c;  // cannot overflow: below the dense tensor's element count
                        }
                    } else {
                        flat = idx[static_cast<size_t>(i)];
                    }
                    if (flat < 0 || flat >= dense.numel()) failInput(what + ": sparse index out of range");
                    dense.data<T>()[flat] = values.data<T>()[i];
                }
            });
            out.kind = Attribute::Kind::Tensor;
            out.t = dense;
            break;
        }
        case onnx::AttributeProto_AttributeType_GRAPH:
            out.kind = Attribute::Kind::Graph;
            out.g = std::make_shared<Graph>(convertGraph(a.g(), ctx, depth + 1));
            break;
        case onnx::AttributeProto_AttributeType_FLOATS:
            out.kind = Attribute::Kind::Floats;
            out.floats.assign(a.floats().begin(), a.floats().end());
            break;
        case onnx::AttributeProto_AttributeType_INTS:
            out.kind = Attribute::Kind::Ints;
            out.ints.assign(a.ints().begin(), a.ints().end());
            break;
        case onnx::AttributeProto_AttributeType_STRINGS:
            out.kind = Attribute::Kind::Strings;
            out.strings.assign(a.strings().begin(), a.strings().end());
            break;
        case onnx::AttributeProto_AttributeType_TENSORS:
            out.kind = Attribute::Kind::Tensors;
            for (const auto& t : a.tensors()) out.tensors.push_back(tensorFromProto(t, ctx.baseDir, what));
            break;
        case onnx::AttributeProto_AttributeType_GRAPHS:
            out.kind = Attribute::Kind::Graphs;
            for (const auto& g : a.graphs()) out.graphs.push_back(std::make_shared<Graph>(convertGraph(g, ctx, depth + 1)));
            break;
        case onnx::AttributeProto_AttributeType_TYPE_PROTO:
            out.kind = Attribute::Kind::TypeProto;
            out.typeProto = valueTypeFromProto(a.tp());
            break;
        default:
            failUnsupported(what + ": attribute type " + std::to_string(a.type()) + " is not supported");
    }
    return out;
}

/// Replaces Constant nodes by initializers, evaluating them with the registered Constant kernel.
void foldConstants(Graph& g, int64_t opset) {
    KernelFn constant = KernelRegistry::instance().find("", "Constant");
    if (!constant) return;
    std::vector<Node> kept;
    kept.reserve(g.nodes.size());
    for (auto& node : g.nodes) {
        if (node.opType != "Constant" || !node.domain.empty() || node.outputs.size() != 1) {
            kept.push_back(std::move(node));
            continue;
        }
        KernelContext kctx(node, opset, {}, nullptr);
        constant(kctx);
        const Value& v = kctx.outputs()[0];
        if (!v.isTensor() || !v.tensor.defined()) {
            kept.push_back(std::move(node));
            continue;
        }
        g.initializers[node.outputs[0]] = v.tensor;
    }
    g.nodes = std::move(kept);
}

std::string elementTypeName(int32_t code) {
    if (onnx::TensorProto_DataType_IsValid(code)) {
        std::string name = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(code));
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return name;
    }
    return std::to_string(code);
}

Graph convertGraph(const onnx::GraphProto& proto, ImportContext& ctx, int depth, onnx::GraphProto* releaseWeights) {
    if (depth > kMaxSubgraphDepth)
        failInput(ctx.label + ": subgraphs nested more than " + std::to_string(kMaxSubgraphDepth) + " levels deep");
    Graph g;
    g.name = proto.name();
    for (int i = 0; i < proto.initializer_size(); ++i) {
        const auto& t = proto.initializer(i);
        if (t.name().empty()) failInput(ctx.label + ": an initializer has no name");
        const std::string what = ctx.label + ": initializer '" + t.name() + "'";
        g.initializers[t.name()] = releaseWeights
                                       ? tensorFromProtoConsuming(*releaseWeights->mutable_initializer(i), ctx.baseDir, what)
                                       : tensorFromProto(t, ctx.baseDir, what);
    }
    if (proto.sparse_initializer_size() > 0)
        failUnsupported(ctx.label + ": sparse initializers are not supported");
    // A graph input or output of an element type we cannot hold (complex64, float8...) is refused by name here,
    // not discovered by a kernel that cannot produce it.
    auto declared = [&](const onnx::ValueInfoProto& vi, const char* role) {
        ValueInfo info{vi.name(), valueTypeFromProto(vi.type())};
        if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0 && info.type.dtype == DType::Undefined)
            failUnsupported(ctx.label + ": " + role + " '" + vi.name() + "' has element type " +
                            elementTypeName(vi.type().tensor_type().elem_type()) + ", which is not supported");
        return info;
    };
    for (const auto& vi : proto.input()) g.inputs.push_back(declared(vi, "graph input"));
    for (const auto& vi : proto.output()) g.outputs.push_back(declared(vi, "graph output"));
    for (const auto& vi : proto.value_info()) g.valueInfo[vi.name()] = {vi.name(), valueTypeFromProto(vi.type())};
    g.nodes.reserve(static_cast<size_t>(proto.node_size()));
    for (const auto& np : proto.node()) {
        Node n;
        n.name = np.name();
        n.opType = np.op_type();
        n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
        n.inputs.assign(np.input().begin(), np.input().end());
        n.outputs.assign(np.output().begin(), np.output().end());
        if (n.opType.empty()) failInput(ctx.label + ": node '" + n.name + "' has no op type");
        for (const auto& a : np.attribute()) {
            if (!a.ref_attr_name().empty()) continue;  // only meaningful inside functions
            n.attributes[a.name()] = convertAttribute(a, n.label(), ctx, depth);
        }
        g.nodes.push_back(std::move(n));
    }
    if (ctx.options.foldConstants) foldConstants(g, ctx.opset);
    return g;
}

}  // namespace

namespace {

// Protobuf stops at 100 nested messages by default, which is about 30 levels of If/Loop bodies (graph, node,
// attribute, graph...): deep but valid nesting then read as a corrupt file. Past this limit it still does; below
// it, convertGraph's own limit names the nesting.
constexpr int kProtobufRecursionLimit = 4 * (kMaxSubgraphDepth + 2);

bool parseCoded(onnx::ModelProto& proto, google::protobuf::io::ZeroCopyInputStream& stream) {
    google::protobuf::io::CodedInputStream coded(&stream);
    coded.SetRecursionLimit(kProtobufRecursionLimit);
    return proto.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

onnx::ModelProto parseModelProto(const std::string& bytes, const std::string& label) {
    onnx::ModelProto proto;
    if (bytes.empty()) failInput(label + ": the file is empty");
    google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX)));
    if (bytes.size() > INT_MAX || !parseCoded(proto, stream))
        failInput(label + ": not an ONNX model (protobuf parse failed; truncated or corrupt file?)");
    return proto;
}

/// Converts and consumes `proto` (its weights are freed as they are converted).
Model modelFromProto(onnx::ModelProto& proto, const std::string& baseDir, const std::string& label,
                     const ImportOptions& options) {
    if (!proto.has_graph()) failInput(label + ": not an ONNX model (it has no graph)");

    Model model;
    model.sourcePath = label;
    model.irVersion = proto.ir_version();
    model.producerName = proto.producer_name();
    model.producerVersion = proto.producer_version();
    model.docString = proto.doc_string();
    for (const auto& op : proto.opset_import()) model.opsetImports[op.domain() == "ai.onnx" ? "" : op.domain()] = op.version();
    if (model.opsetImports.empty()) model.opsetImports[""] = 1;  // IR v2 models predate opset_import
    for (const auto& kv : proto.metadata_props()) model.metadata[kv.key()] = kv.value();
    if (proto.functions_size() > 0)
        failUnsupported(label + ": model-local functions are not supported (" + proto.functions(0).name() + ")");

    onnxconv::checkAgainstSpec(proto, label);
    // Best effort: the executor computes real shapes, and bad models get better messages from our own checks.
    if (options.inferShapes) onnxconv::inferShapesIsolated(proto);
    ImportContext ctx{baseDir, label, options, model.opset("")};
    model.graph = convertGraph(proto.graph(), ctx, 0, proto.mutable_graph());
    return model;
}

}  // namespace

Model loadModelFromBytes(const std::string& bytes, const std::string& baseDir, const std::string& label,
                         const ImportOptions& options) {
    // ONNX's schema registry builds on a second thread while the model parses, for the shape inference after.
    onnxconv::SchemaRegistryWarmUpScope registry(options.inferShapes);
    onnx::ModelProto proto = parseModelProto(bytes, label);
    return modelFromProto(proto, baseDir, label, options);
}

Model loadModel(const std::string& path, const ImportOptions& options) {
    onnxconv::SchemaRegistryWarmUpScope registry(options.inferShapes);  // as in loadModelFromBytes
    std::filesystem::path p(path);
    std::string baseDir = p.has_parent_path() ? p.parent_path().string() : ".";
    // Parsed straight from the file: holding the file's bytes as well would double the peak memory.
    uint64_t size = 0;
    const int fd = openRegularFile(path, size);  // refuses folders, FIFOs and devices without blocking
    if (size == 0) {
        ::close(fd);
        failInput(path + ": the file is empty");
    }
    onnx::ModelProto proto;
    // 1 MiB reads instead of protobuf's default 8 KiB: a 100 MB model was 12,800 read calls.
    google::protobuf::io::FileInputStream input(fd, 1 << 20);
    const bool parsed = parseCoded(proto, input) && input.GetErrno() == 0;
    ::close(fd);
    if (!parsed) failInput(path + ": not an ONNX model (protobuf parse failed; truncated, corrupt or nested too deeply?)");
    return modelFromProto(proto, baseDir, path, options);
}

Tensor loadTensorProtoFile(const std::string& path) {
    onnx::TensorProto proto;
    if (!proto.ParseFromString(readFile(path))) failInput(path + ": not a serialized ONNX TensorProto");
    std::filesystem::path p(path);
    return tensorFromProto(proto, p.parent_path().string(), path);
}

namespace {
Value valueFromSequence(const onnx::SequenceProto& seq, const std::string& dir, const std::string& what);
Value valueFromOptional(const onnx::OptionalProto& opt, const std::string& dir, const std::string& what) {
    if (opt.has_tensor_value()) return Value(tensorFromProto(opt.tensor_value(), dir, what));
    if (opt.has_sequence_value()) return valueFromSequence(opt.sequence_value(), dir, what);
    Value v = Value::none();
    return v;
}
Value valueFromSequence(const onnx::SequenceProto& seq, const std::string& dir, const std::string& what) {
    std::vector<Tensor> items;
    for (const auto& t : seq.tensor_values()) items.push_back(tensorFromProto(t, dir, what));
    if (seq.sequence_values_size() > 0) failUnsupported(what + ": nested sequences are not supported");
    return Value::makeSequence(std::move(items));
}
}  // namespace

Value loadValueProtoFile(const std::string& path, const ValueType& declared) {
    std::string bytes = readFile(path);
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (declared.kind == ValueType::Kind::Sequence) {
        onnx::SequenceProto seq;
        if (!seq.ParseFromString(bytes)) failInput(path + ": not a serialized ONNX SequenceProto");
        return valueFromSequence(seq, dir, path);
    }
    if (declared.kind == ValueType::Kind::Optional) {
        onnx::OptionalProto opt;
        if (!opt.ParseFromString(bytes)) failInput(path + ": not a serialized ONNX OptionalProto");
        return valueFromOptional(opt, dir, path);
    }
    onnx::TensorProto proto;
    if (!proto.ParseFromString(bytes)) failInput(path + ": not a serialized ONNX TensorProto");
    return Value(tensorFromProto(proto, dir, path));
}

void saveTensorProtoFile(const Tensor& tensor, const std::string& name, const std::string& path) {
    onnx::TensorProto proto;
    tensorToProto(tensor, name, &proto);
    writeFileAtomically(path, proto.SerializeAsString());
}

}  // namespace npuwb
