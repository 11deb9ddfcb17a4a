#pragma once
// Small helpers every pass uses to read and edit the IR: who produces/consumes a value, constant and shape
// lookups, bypassing or replacing nodes while keeping graph outputs' names, and fresh unique names.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "npuwb/ir/Graph.h"

namespace npuwb::passes {

/// Producer and consumers of every value; built once per findMatches/apply call (graphs change between calls).
class GraphIndex {
public:
    explicit GraphIndex(const Graph& graph);
    const Node* producer(const std::string& value) const;  // nullptr for inputs, initializers, unknown names
    const Node* node(const std::string& nodeName) const;  // nullptr when no node has that name
    /// Nodes reading `value` (a node reading it twice appears once). Reads from subgraph bodies count too.
    const std::vector<const Node*>& consumers(const std::string& value) const;
    bool isGraphOutput(const std::string& value) const { return graphOutputs_.count(value) > 0; }
    /// True when `value` is read by exactly one node and is not a graph output: safe to fold into that node.
    bool hasSingleUse(const std::string& value) const;
    /// The one consumer when hasSingleUse, else nullptr.
    const Node* singleConsumer(const std::string& value) const;

private:
    // Hashed: the optimizer builds an index per pass and round, and ordered maps of every name were most of the
    // time of a 100,000-node optimize.
    std::unordered_map<std::string, const Node*> producer_;
    std::unordered_map<std::string, const Node*> byName_;
    std::unordered_map<std::string, std::vector<const Node*>> consumers_;
    std::unordered_set<std::string> graphOutputs_;
};

/// The initializer named `value` (not overridable by a graph input), else nullptr.
const Tensor* constantOf(const Graph& graph, const std::string& value);
/// A fully known static shape from the initializer or the declared/inferred value type.
std::optional<Shape> staticShape(const Graph& graph, const std::string& value);
std::optional<DType> knownDType(const Graph& graph, const std::string& value);
/// Integer contents of a constant (shape, axes, starts...), nullopt when not a constant.
std::optional<std::vector<int64_t>> constantInts(const Graph& graph, const std::string& value);
/// True when the constant holds floats that all equal `v`.
bool constantAllEqual(const Graph& graph, const std::string& value, double v);

/// A Slice's constant starts/ends/axes/steps (attribute form before opset 10), defaults filled in.
struct SliceParams {
    std::vector<int64_t> starts, ends, axes, steps;
};
std::optional<SliceParams> sliceParameters(const Graph& graph, const Node& slice, int64_t opset);

Node* findNode(Graph& graph, const std::string& nodeName);
/// Every node with an empty name gets a unique one ("<OpType>_<n>") so matches can refer to it.
void nameAllNodes(Graph& graph);
/// A value or node name not used anywhere in the graph yet: base, base_1, base_2...
std::string freshName(const Graph& graph, const std::string& base);
/// Swaps a one-input element-wise node (`unary`, reading `layout`'s output alone) in front of the layout op before
/// it: layout's input -> unary -> layout -> unary's old output. The value between them gets a fresh name.
void moveInFrontOfLayout(Graph& graph, Node& unary, Node& layout);
/// Adds an initializer under a fresh name derived from `base` and returns the name.
std::string addConstant(Graph& graph, const std::string& base, const Tensor& tensor);

/// Makes every reader of `from` read `to` instead (top-level nodes and subgraph bodies).
void replaceUses(Graph& graph, const std::string& from, const std::string& to);
/// Every read of a key of `renames` reads its value instead (subgraphs included), in one walk.
void replaceUses(Graph& graph, const std::unordered_map<std::string, std::string>& renames);
/// Removes `node`, whose output `out` becomes the value `in`. When `out` is a graph output and `in` is produced
/// by a node that nothing else reads, that producer is renamed to write `out` directly. Returns false (graph
/// untouched) when neither is possible.
bool bypassValue(Graph& graph, const std::string& nodeName, const std::string& in, const std::string& out);
/// True when bypassValue would succeed.
bool canBypass(const Graph& graph, const GraphIndex& index, const std::string& in, const std::string& out);
void removeNodes(Graph& graph, const std::set<std::string>& nodeNames);
/// Drops initializers and value types that no node or graph output refers to any more.
void pruneUnused(Graph& graph);
/// Reorders nodes so that each follows its producers (ONNX files must be topologically sorted).
void sortTopologically(Graph& graph);

Node makeNode(const Graph& graph, const std::string& op, std::vector<std::string> inputs,
              std::vector<std::string> outputs, const std::string& nameBase);

}  // namespace npuwb::passes
