// ValueShapeRecorder's shape folding: Shape/Size of values whose shapes are fixed by the input shapes become plan
// constants (and what is computed from them); shapes that depend on data (NonZero) or on computed values do not.
#include <gtest/gtest.h>

#include "runtime/BackendPlan.h"
#include "npuwb/Session.h"

using namespace npuwb;

namespace {

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out) {
    Node n;
    n.name = out[0];
    n.opType = std::move(op);
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    return n;
}

/// x[2,3] -> Relu -> r; Shape(r); NonZero(x) -> nz; Shape(nz); Reshape(x, Shape(r)) ; Reshape(x, Abs(shape input))
std::shared_ptr<Model> model() {
    auto m = std::make_shared<Model>();
    m->opsetImports[""] = 17;
    Graph& g = m->graph;
    ValueInfo x{"x", {}};
    x.type.dtype = DType::F32;
    x.type.shape = SymShape{Dim::named("n"), Dim::of(3)};
    ValueInfo t{"t", {}};  // a fed int64 shape tensor: its values are not part of the plan's key
    t.type.dtype = DType::I64;
    t.type.shape = SymShape{Dim::of(2)};
    g.inputs = {x, t};
    g.initializers["zero"] = Tensor::fromVector<int64_t>({1}, {0});
    g.nodes = {node("Relu", {"x"}, {"r"}),
               node("Shape", {"r"}, {"shape_r"}),
               node("Gather", {"shape_r", "zero"}, {"rows"}),
               node("NonZero", {"x"}, {"nz"}),
               node("Shape", {"nz"}, {"shape_nz"}),
               node("Reshape", {"x", "shape_r"}, {"same"}),
               node("Reshape", {"x", "t"}, {"fed_shape"}),
               node("Shape", {"fed_shape"}, {"shape_fed"}),
               node("Size", {"same"}, {"size_same"})};
    for (const char* o : {"rows", "shape_nz", "shape_fed", "size_same"}) {
        ValueInfo out{o, {}};
        g.outputs.push_back(out);
    }
    return m;
}

}  // namespace

TEST(ShapeFolding, FoldsShapesFixedByInputShapesOnly) {
    auto m = model();
    ValueShapeRecorder recorder(m->graph, {"x", "t"});
    RunControl control;
    control.observer = &recorder;
    std::map<std::string, Tensor> in{{"x", Tensor::fromVector<float>({2, 3}, {1, 0, 2, 0, 0, 3})},
                                     {"t", Tensor::fromVector<int64_t>({2}, {3, 2})}};
    std::map<std::string, Value> feeds;
    for (const auto& [k, v] : in) feeds[k] = Value(v);
    Session(m).run(feeds, control);

    ASSERT_TRUE(recorder.folded.count("shape_r"));
    EXPECT_EQ(recorder.folded.at("shape_r").values<int64_t>()[0], 2);
    ASSERT_TRUE(recorder.folded.count("rows"));  // Gather of a folded shape
    EXPECT_EQ(recorder.folded.at("rows").values<int64_t>()[0], 2);
    EXPECT_TRUE(recorder.folded.count("size_same"));  // Reshape to a folded shape keeps a static shape
    EXPECT_EQ(recorder.folded.at("size_same").values<int64_t>()[0], 6);
    // Data-dependent: NonZero's count, and a Reshape to a fed (run-time) shape.
    EXPECT_FALSE(recorder.folded.count("nz"));
    EXPECT_FALSE(recorder.folded.count("shape_nz"));
    EXPECT_FALSE(recorder.folded.count("shape_fed"));
    EXPECT_FALSE(recorder.folded.count("r"));  // computed from an input: not a constant
    EXPECT_TRUE(recorder.staticShapes.count("r"));
    EXPECT_FALSE(recorder.staticShapes.count("nz"));
}
