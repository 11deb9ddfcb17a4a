// IR -> ONNX ModelProto. Tensors are written as raw_data; the result reloads to an identical IR.
#include "onnx/IsolatedShapeInference.h"
#include "npuwb/ModelIO.h"
#include "onnx/OnnxModelProto.h"
#include "onnx/OnnxTensor.h"
#include "npuwb/AtomicFile.h"

namespace npuwb {

using namespace onnxconv;

namespace {

void graphToProto(const Graph& g, onnx::GraphProto* proto, WeightData weights);

void attributeToProto(const std::string& name, const Attribute& a, onnx::AttributeProto* p, WeightData weights) {
    p->set_name(name);
    switch (a.kind) {
        case Attribute::Kind::Float: p->set_type(onnx::AttributeProto_AttributeType_FLOAT); p->set_f(a.f); break;
        case Attribute::Kind::Int: p->set_type(onnx::AttributeProto_AttributeType_INT); p->set_i(a.i); break;
        case Attribute::Kind::String: p->set_type(onnx::AttributeProto_AttributeType_STRING); p->set_s(a.s); break;
        case Attribute::Kind::Tensor:
            p->set_type(onnx::AttributeProto_AttributeType_TENSOR);
            tensorToProto(a.t, "", p->mutable_t());
            break;
        case Attribute::Kind::Graph:
            p->set_type(onnx::AttributeProto_AttributeType_GRAPH);
            graphToProto(*a.g, p->mutable_g(), weights);
            break;
        case Attribute::Kind::Floats:
            p->set_type(onnx::AttributeProto_AttributeType_FLOATS);
            for (float f : a.floats) p->add_floats(f);
            break;
        case Attribute::Kind::Ints:
            p->set_type(onnx::AttributeProto_AttributeType_INTS);
            for (int64_t i : a.ints) p->add_ints(i);
            break;
        case Attribute::Kind::Strings:
            p->set_type(onnx::AttributeProto_AttributeType_STRINGS);
            for (const auto& s : a.strings) p->add_strings(s);
            break;
        case Attribute::Kind::Tensors:
            p->set_type(onnx::AttributeProto_AttributeType_TENSORS);
            for (const auto& t : a.tensors) tensorToProto(t, "", p->add_tensors());
            break;
        case Attribute::Kind::Graphs:
            p->set_type(onnx::AttributeProto_AttributeType_GRAPHS);
            for (const auto& g : a.graphs) graphToProto(*g, p->add_graphs(), weights);
            break;
        case Attribute::Kind::TypeProto:
            p->set_type(onnx::AttributeProto_AttributeType_TYPE_PROTO);
            valueTypeToProto(a.typeProto, p->mutable_tp());
            break;
    }
}

void valueInfoToProto(const ValueInfo& vi, onnx::ValueInfoProto* p) {
    p->set_name(vi.name);
    valueTypeToProto(vi.type, p->mutable_type());
}

void graphToProto(const Graph& g, onnx::GraphProto* proto, WeightData weights) {
    proto->set_name(g.name);
    for (const auto& [name, t] : g.initializers) {
        onnx::TensorProto* tp = proto->add_initializer();
        if (weights == WeightData::Full || inferenceReadsInitializerData(dtypeToOnnx(t.dtype()), t.byteSize())) {
            tensorToProto(t, name, tp);
            continue;
        }
        tp->set_name(name);
        tp->set_data_type(dtypeToOnnx(t.dtype()));
        for (int64_t d : t.shape()) tp->add_dims(d);
    }
    for (const auto& vi : g.inputs) valueInfoToProto(vi, proto->add_input());
    for (const auto& vi : g.outputs) valueInfoToProto(vi, proto->add_output());
    for (const auto& [name, vi] : g.valueInfo) valueInfoToProto(vi, proto->add_value_info());
    for (const auto& n : g.nodes) {
        auto* np = proto->add_node();
        np->set_name(n.name);
        np->set_op_type(n.opType);
        if (!n.domain.empty()) np->set_domain(n.domain);
        for (const auto& i : n.inputs) np->add_input(i);
        for (const auto& o : n.outputs) np->add_output(o);
        for (const auto& [name, a] : n.attributes) attributeToProto(name, a, np->add_attribute(), weights);
    }
}

}  // namespace

onnx::ModelProto onnxconv::modelToProto(const Model& model, WeightData weights) {
    onnx::ModelProto proto;
    proto.set_ir_version(model.irVersion);
    proto.set_producer_name(model.producerName.empty() ? "npuwb" : model.producerName);
    proto.set_producer_version(model.producerVersion);
    proto.set_doc_string(model.docString);
    for (const auto& [domain, version] : model.opsetImports) {
        auto* op = proto.add_opset_import();
        op->set_domain(domain);
        op->set_version(version);
    }
    for (const auto& [k, v] : model.metadata) {
        auto* kv = proto.add_metadata_props();
        kv->set_key(k);
        kv->set_value(v);
    }
    graphToProto(model.graph, proto.mutable_graph(), weights);
    return proto;
}

std::string serializeModel(const Model& model) {
    onnx::ModelProto proto = onnxconv::modelToProto(model);
    std::string out;
    if (!proto.SerializeToString(&out))
        fail(ErrorKind::Internal, "cannot serialize the model (larger than protobuf's 2 GB limit?)");
    return out;
}

void saveModel(const Model& model, const std::string& path) { writeFileAtomically(path, serializeModel(model)); }

}  // namespace npuwb
