// Checks a parsed model against the ONNX spec before it is converted: IR version, opset versions, each node against
// its operator schema (input and output counts, attributes) and the arity of If/Loop/Scan bodies. ONNX's own
// OpSchema::Verify does the per-node part; the rest is what ONNX's checker would say, without its file access
// (external data is resolved by our own reader, which confines it to the model's folder).
#include "onnx/SpecCheck.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <map>

#include "npuwb/Error.h"

namespace npuwb::onnxconv {

namespace {

using Opsets = std::map<std::string, int64_t>;

// Newer than this build's libonnx but published (ONNX 1.18: IR 11, opset 23): such models are read with the newest
// schemas known here rather than refused. Past these, a version cannot be real.
constexpr int64_t kNewestPublishedIr = 11;
constexpr int64_t kNewestPublishedOpset = 23;

std::string domainName(const std::string& d) { return d.empty() || d == "ai.onnx" ? "ai.onnx" : d; }

std::string nodeLabel(const onnx::NodeProto& n) {
    return "'" + (n.name().empty() ? n.op_type() : n.name()) + "' (" + n.op_type() + ")";
}

const onnx::GraphProto* graphAttribute(const onnx::NodeProto& n, const std::string& name) {
    for (const auto& a : n.attribute())
        if (a.name() == name && a.has_g()) return &a.g();
    return nullptr;
}

void checkBodies(const onnx::NodeProto& n, const std::string& where) {
    const std::string node = where + ": node " + nodeLabel(n);
    if (n.op_type() == "If" && (n.domain().empty() || n.domain() == "ai.onnx")) {
        for (const char* branch : {"then_branch", "else_branch"}) {
            const onnx::GraphProto* g = graphAttribute(n, branch);
            if (g && g->output_size() != n.output_size())
                failInput(node + ": its " + branch + " returns " + std::to_string(g->output_size()) +
                          " values but the node has " + std::to_string(n.output_size()) + " outputs");
        }
    } else if (n.op_type() == "Loop" && (n.domain().empty() || n.domain() == "ai.onnx")) {
        const onnx::GraphProto* body = graphAttribute(n, "body");
        const int carried = n.input_size() > 2 ? n.input_size() - 2 : 0;
        if (body && body->input_size() != carried + 2)
            failInput(node + ": its body takes " + std::to_string(body->input_size()) + " inputs, the spec needs " +
                      std::to_string(carried + 2) + " (iteration number, condition and " + std::to_string(carried) +
                      " loop-carried values)");
        if (body && (body->output_size() < carried + 1 || n.output_size() > body->output_size() - 1))
            failInput(node + ": its body returns " + std::to_string(body->output_size()) +
                      " values, too few for the condition, " + std::to_string(carried) + " loop-carried values and " +
                      std::to_string(n.output_size() - carried) + " scan outputs");
    }
}

void checkGraph(const onnx::GraphProto& g, const Opsets& opsets, const std::string& where, int depth);

void checkNode(const onnx::NodeProto& n, const Opsets& opsets, const std::string& where, int depth) {
    const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    auto opset = opsets.find(domain);
    if (opset == opsets.end()) {
        if (!domain.empty() && domain != "ai.onnx.ml")  // other domains' ops are reported as unsupported later
            return;
        failInput(where + ": node " + nodeLabel(n) + " is in domain '" + domainName(domain) +
                  "', which the model does not import (opset_import)");
    }
    // A node without a schema at this opset is reported by the executor as an unknown operator, with its name.
    if (const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset->second), domain)) {
        try {
            schema->Verify(n);
        } catch (const onnx::checker::ValidationError& e) {
            std::string why = e.what();
            if (auto context = why.find("\n\n==>"); context != std::string::npos) why.resize(context);
            failInput(where + ": node " + nodeLabel(n) + " does not follow the ONNX spec of " + n.op_type() + "-" +
                      std::to_string(schema->SinceVersion()) + ": " + why);
        }
    }
    checkBodies(n, where);
    // Messages name the outermost node whose body holds the fault (a path through 64 levels would be unreadable).
    const std::string inner = depth == 0 ? where + ": in a body of node " + nodeLabel(n) : where;
    for (const auto& a : n.attribute()) {
        if (a.has_g()) checkGraph(a.g(), opsets, inner, depth + 1);
        for (const auto& g : a.graphs()) checkGraph(g, opsets, inner, depth + 1);
    }
}

void checkGraph(const onnx::GraphProto& g, const Opsets& opsets, const std::string& where, int depth) {
    if (depth > kMaxSubgraphDepth)
        failInput(where + ": subgraphs nested more than " + std::to_string(kMaxSubgraphDepth) + " levels deep");
    for (const auto& n : g.node()) checkNode(n, opsets, where, depth);
}

}  // namespace

void checkAgainstSpec(const onnx::ModelProto& model, const std::string& label) {
    const int64_t newestIr = std::max<int64_t>(onnx::Version::IR_VERSION, kNewestPublishedIr);
    if (model.ir_version() < 1 || model.ir_version() > newestIr)
        failInput(label + ": IR version " + std::to_string(model.ir_version()) + " is not valid (this build reads 1 to " +
                  std::to_string(newestIr) + ")");
    Opsets opsets;
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    for (const auto& op : model.opset_import()) {
        const std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
        if (opsets.count(domain)) failInput(label + ": domain '" + domainName(domain) + "' is imported twice");
        opsets[domain] = op.version();
        auto known = ranges.find(domain);
        if (known == ranges.end()) continue;  // a custom domain: its ops are checked by whoever runs them
        const int64_t newest = domain.empty() ? std::max<int64_t>(known->second.second, kNewestPublishedOpset)
                                              : known->second.second;
        if (op.version() < known->second.first || op.version() > newest)
            failInput(label + ": opset " + std::to_string(op.version()) + " of domain '" + domainName(domain) +
                      "' does not exist (versions " + std::to_string(known->second.first) + " to " +
                      std::to_string(newest) + ")");
    }
    if (model.opset_import_size() == 0) opsets[""] = 1;  // IR v2 models predate opset_import
    checkGraph(model.graph(), opsets, label, 0);
}

}  // namespace npuwb::onnxconv
