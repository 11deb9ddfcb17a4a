// Opset upgrades through ONNX's own version converter (onnx/version_converter), which knows, op by op, how the
// semantics moved between opsets (Clip min/max attributes -> inputs, Slice attributes -> inputs, Softmax's 2-D
// coercion, ...). Like shape inference it is native code that trusts the model and reports failures with
// assertions, so it runs in a forked child: a crash there becomes an error, never a dead workbench.

#include <cctype>
#include <onnx/version_converter/convert.h>
#include <set>
#include <string>

#include "npuwb/ModelIO.h"
#include "npuwb/SchemaWarmUp.h"
#include "npuwb/Error.h"
#include "util/ForkedCall.h"

namespace npuwb {

namespace {

constexpr int kTimeoutSeconds = 120;

/// The converter's reply: 'O' + the converted ModelProto, or 'E' + the converter's message.
std::string convertToReply(const std::string& modelBytes, int target) {
    try {
        onnx::ModelProto in;
        if (!in.ParseFromString(modelBytes)) throw std::runtime_error("the serialized model does not parse");
        onnx::ModelProto out = onnx::version_conversion::ConvertVersion(in, target);
        std::string reply = "O";  // appended, not "O" + string: GCC 12 warns falsely on that (-Wrestrict, PR 105329)
        out.AppendToString(&reply);
        return reply;
    } catch (const std::exception& e) {
        return std::string("E") + e.what();
    } catch (...) {
        return "Eunknown failure in the ONNX version converter";
    }
}

/// Runs the converter in a child; returns its reply or throws when the child died or hung.
std::string convertInChild(const std::string& modelBytes, int target, const std::string& label) {
    onnxconv::awaitSchemaRegistry();
    ForkedResult run = runForked([&] { return convertToReply(modelBytes, target); }, kTimeoutSeconds);
    if (run.status == ForkedResult::Status::CouldNotStart)
        fail(ErrorKind::Internal, label + ": cannot start the opset converter process");
    if (run.status == ForkedResult::Status::TimedOut)
        failUnsupported(label + ": the ONNX opset converter took longer than " + std::to_string(kTimeoutSeconds) + " s");
    if (run.status == ForkedResult::Status::Crashed || run.output.empty())
        failUnsupported(label + ": the ONNX opset converter crashed on this model");
    return run.output;
}

/// True when `word` occurs in `text` not inside a longer identifier ("Softmax" but not "LogSoftmax").
bool containsWord(const std::string& text, const std::string& word) {
    auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t at = text.find(word); !word.empty() && at != std::string::npos; at = text.find(word, at + 1)) {
        bool before = at > 0 && isIdent(text[at - 1]);
        bool after = at + word.size() < text.size() && isIdent(text[at + word.size()]);
        if (!before && !after) return true;
    }
    return false;
}

/// The converter's messages name an op type ("... for Softmax ..."); add the nodes of that type so the user can
/// find them.
std::string withNodesOfNamedOps(const Model& model, const std::string& message) {
    std::set<std::string> types;
    for (const auto& n : model.graph.nodes) types.insert(n.opType);
    std::string extra;
    for (const auto& type : types) {
        if (!containsWord(message, type)) continue;
        std::string names;
        int shown = 0, total = 0;
        for (const auto& n : model.graph.nodes) {
            if (n.opType != type) continue;
            if (shown < 4) names += (shown++ ? ", '" : "'") + n.name + "'";
            ++total;
        }
        if (total > shown) names += " and " + std::to_string(total - shown) + " more";
        extra += "; " + type + " nodes: " + names;
    }
    return message + extra;
}

/// Before opset 13 Softmax, LogSoftmax and Hardmax flatten their input to 2-D at `axis`. ONNX's adapter keeps
/// that meaning with Flatten + Reshape, which needs every size; with unknown sizes it writes garbage ones into the
/// Reshape. Only a last axis converts without them. Refuse the others up front, naming the node.
void checkSoftmaxAxes(const Model& model, int64_t from, int64_t target, const std::string& label) {
    if (from >= 13 || target < 13) return;
    for (const auto& n : model.graph.nodes) {
        if (!n.domain.empty() || (n.opType != "Softmax" && n.opType != "LogSoftmax" && n.opType != "Hardmax")) continue;
        const std::string what = label + ": " + n.opType + " '" + n.name + "'";
        const ValueInfo* in = n.inputs.empty() ? nullptr : model.graph.findValueInfo(n.inputs[0]);
        if (!in || !in->type.shape)
            failUnsupported(what + ": the rank of its input is unknown, so its pre-13 axis (flatten to 2-D there) "
                                   "cannot be converted");
        const auto rank = static_cast<int64_t>(in->type.shape->size());
        int64_t axis = n.attrInt("axis", 1);
        if (axis < 0) axis += rank;
        if (axis == rank - 1) continue;
        for (const Dim& d : *in->type.shape)
            if (!d.known())
                failUnsupported(what + ": axis " + std::to_string(axis) + " of a " + std::to_string(rank) +
                                "-D input with dynamic sizes " + symShapeToString(*in->type.shape) +
                                "; converting its pre-13 2-D semantics needs every size (fix them with --input-shape)");
    }
}

}  // namespace

Model convertOpset(const Model& model, int64_t targetOpset) {
    const std::string label = model.sourcePath.empty() ? "model" : model.sourcePath;
    const int64_t from = model.opset("");
    if (targetOpset <= from)
        failInput(label + ": opset " + std::to_string(targetOpset) + " is not newer than the model's opset " +
                  std::to_string(from));
    for (const auto& [domain, version] : model.opsetImports)
        if (!domain.empty() && domain != "ai.onnx" && domain != "ai.onnx.ml")
            failUnsupported(label + ": the ONNX opset converter only handles ai.onnx; the model also imports '" +
                            domain + "'");
    checkSoftmaxAxes(model, from, targetOpset, label);
    std::string reply = convertInChild(serializeModel(model), static_cast<int>(targetOpset), label);
    if (reply[0] != 'O')
        failUnsupported(label + ": ONNX cannot convert opset " + std::to_string(from) + " to " +
                        std::to_string(targetOpset) + ": " + withNodesOfNamedOps(model, reply.substr(1)));
    Model out = loadModelFromBytes(reply.substr(1), ".", label);
    out.sourcePath = model.sourcePath;
    if (out.opset("") != targetOpset)
        fail(ErrorKind::Internal, label + ": the opset converter returned opset " + std::to_string(out.opset("")));
    return out;
}

}  // namespace npuwb
