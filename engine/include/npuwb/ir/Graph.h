#pragma once
// The engine's model IR: a Model owns a Graph of Nodes connected by named values. Subgraphs (If/Loop/Scan
// bodies) are Graph attributes and may read values of enclosing graphs by name.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb {

struct Graph;

/// One dimension of a declared shape: a number, a symbol ("batch") or unknown.
struct Dim {
    int64_t value = -1;
    std::string symbol;
    bool known() const { return value >= 0; }
    static Dim of(int64_t v) { return Dim{v, {}}; }
    static Dim named(std::string s) { return Dim{-1, std::move(s)}; }
};
using SymShape = std::vector<Dim>;
std::string symShapeToString(const SymShape& shape);  // "[batch,3,224,224]"

/// Declared type of a graph value (graph input/output or intermediate value_info).
struct ValueType {
    enum class Kind : uint8_t { Tensor, Sequence, Optional, Map, Unknown };
    Kind kind = Kind::Tensor;
    DType dtype = DType::Undefined;  // element type (of the tensor, or of the sequence's/optional's tensors)
    std::optional<SymShape> shape;   // nullopt: rank unknown
    std::shared_ptr<ValueType> element;  // for Sequence/Optional: the element type
};

struct ValueInfo {
    std::string name;
    ValueType type;
};

struct Attribute {
    enum class Kind : uint8_t { Float, Int, String, Tensor, Graph, Floats, Ints, Strings, Tensors, Graphs, TypeProto };
    Kind kind = Kind::Int;
    float f = 0.0f;
    int64_t i = 0;
    std::string s;
    npuwb::Tensor t;
    std::shared_ptr<npuwb::Graph> g;
    std::vector<float> floats;
    std::vector<int64_t> ints;
    std::vector<std::string> strings;
    std::vector<npuwb::Tensor> tensors;
    std::vector<std::shared_ptr<npuwb::Graph>> graphs;
    ValueType typeProto;  // Kind::TypeProto (e.g. SequenceEmpty's dtype is an int, Optional's type is this)

    // One line each: Attribute keeps default member initializers, which designated initializers would warn about.
    static Attribute ofKind(Kind kind) { Attribute a; a.kind = kind; return a; }
    static Attribute ofInt(int64_t v) { auto a = ofKind(Kind::Int); a.i = v; return a; }
    static Attribute ofInts(std::vector<int64_t> v) { auto a = ofKind(Kind::Ints); a.ints = std::move(v); return a; }
    static Attribute ofFloat(float v) { auto a = ofKind(Kind::Float); a.f = v; return a; }
    static Attribute ofFloats(std::vector<float> v) { auto a = ofKind(Kind::Floats); a.floats = std::move(v); return a; }
    static Attribute ofString(std::string v) { auto a = ofKind(Kind::String); a.s = std::move(v); return a; }
};

struct Node {
    std::string name;
    std::string opType;
    std::string domain;  // "" is the default ONNX domain
    std::vector<std::string> inputs;   // "" marks an absent optional input
    std::vector<std::string> outputs;  // "" marks an unused optional output
    std::map<std::string, Attribute> attributes;

    const Attribute* attribute(const std::string& attrName) const;
    bool hasAttribute(const std::string& attrName) const { return attribute(attrName) != nullptr; }
    int64_t attrInt(const std::string& attrName, int64_t fallback) const;
    float attrFloat(const std::string& attrName, float fallback) const;
    std::string attrString(const std::string& attrName, const std::string& fallback) const;
    std::vector<int64_t> attrInts(const std::string& attrName, std::vector<int64_t> fallback = {}) const;
    std::vector<float> attrFloats(const std::string& attrName, std::vector<float> fallback = {}) const;
    std::vector<std::string> attrStrings(const std::string& attrName, std::vector<std::string> fallback = {}) const;
    const Graph* attrGraph(const std::string& attrName) const;  // nullptr when absent
    /// "'name' (OpType)" or "#index (OpType)" for unnamed nodes: the label every error message uses.
    std::string label() const;
    /// Its name, else its first output, else its op type: how every report and view names its layer row.
    std::string layerName() const;
};

struct Graph {
    std::string name;
    std::vector<Node> nodes;  // in file order; Graph::topologicalOrder() gives an execution order
    std::vector<ValueInfo> inputs;
    std::vector<ValueInfo> outputs;
    std::map<std::string, ValueInfo> valueInfo;  // intermediate values with declared or inferred types
    std::map<std::string, Tensor> initializers;
    std::map<std::string, SymShape> sparseInitializerShapes;  // reserved; sparse initializers are densified on import

    const ValueInfo* findValueInfo(const std::string& valueName) const;  // inputs, outputs, valueInfo
    /// Node indices in an order where every node follows its producers. Throws InvalidInput naming a node on a cycle
    /// or a value that nothing produces (outer-scope names listed in `outerScope` are allowed).
    std::vector<size_t> topologicalOrder(const std::vector<std::string>& outerScope = {}) const;
};

struct Model {
    Graph graph;
    int64_t irVersion = 8;
    std::map<std::string, int64_t> opsetImports;  // domain -> version ("" = ai.onnx)
    std::string producerName;
    std::string producerVersion;
    std::string docString;
    std::map<std::string, std::string> metadata;  // metadata_props
    std::string sourcePath;  // the file it was loaded from, for messages

    int64_t opset(const std::string& domain = "") const;
};

}  // namespace npuwb
