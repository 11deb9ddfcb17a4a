#pragma once
// Building small models for the pass tests through the IR, and running one pass through the proven optimizer.
#include <gtest/gtest.h>

#include <random>

#include "npuwb/ModelIO.h"
#include "passes/GraphEdit.h"
#include "npuwb/Optimizer.h"
#include "passes/Proof.h"

namespace npuwb::passes::testing {

class ModelBuilder {
public:
    explicit ModelBuilder(int64_t opset = 13) { m_.opsetImports[""] = opset; }
    ModelBuilder& input(const std::string& name, std::vector<int64_t> dims) {
        m_.graph.inputs.push_back(info(name, dims));
        return *this;
    }
    ModelBuilder& output(const std::string& name) {
        m_.graph.outputs.push_back(ValueInfo{name, {}});
        m_.graph.outputs.back().type.dtype = DType::F32;
        return *this;
    }
    ModelBuilder& constant(const std::string& name, Tensor t) {
        m_.graph.initializers[name] = std::move(t);
        return *this;
    }
    ModelBuilder& ints(const std::string& name, std::vector<int64_t> v) {
        return constant(name, Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v));
    }
    ModelBuilder& random(const std::string& name, Shape shape, uint64_t seed = 3) {
        Tensor t(DType::F32, shape);
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (auto& v : t.values<float>()) v = u(rng);
        return constant(name, t);
    }
    Node& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out, std::string name = "") {
        Node n;
        n.name = name.empty() ? out.front() + "_node" : std::move(name);
        n.opType = op;
        n.inputs = std::move(in);
        n.outputs = std::move(out);
        m_.graph.nodes.push_back(std::move(n));
        return m_.graph.nodes.back();
    }
    /// LayerNorm over the last axis (of length `width`) as exporters decompose it: ReduceMean, Sub, Pow(exponent),
    /// ReduceMean, Add(eps), Sqrt, Div, Mul(gamma), Add(beta), from `x` to `y`.
    ModelBuilder& decomposedLayerNorm(const std::string& x, const std::string& y, int64_t width, float exponent = 2.0f) {
        random("gamma", {width}).random("beta", {width}, 4);
        constant("two", Tensor::scalar<float>(exponent)).constant("eps", Tensor::scalar<float>(1e-5f));
        node("ReduceMean", {x}, {"mean"}).attributes["axes"] = Attribute::ofInts({-1});
        node("Sub", {x, "mean"}, {"d"});
        node("Pow", {"d", "two"}, {"sq"});
        node("ReduceMean", {"sq"}, {"var"}).attributes["axes"] = Attribute::ofInts({-1});
        node("Add", {"var", "eps"}, {"ve"});
        node("Sqrt", {"ve"}, {"sd"});
        node("Div", {"d", "sd"}, {"n"});
        node("Mul", {"n", "gamma"}, {"ng"});
        node("Add", {"ng", "beta"}, {y});
        return *this;
    }
    /// Through a real ONNX round trip, so value types are inferred as for a loaded file.
    Model build() const { return loadModelFromBytes(serializeModel(m_), ".", "test.onnx"); }

private:
    static ValueInfo info(const std::string& name, const std::vector<int64_t>& dims) {
        ValueInfo vi{name, {}};
        vi.type.dtype = DType::F32;
        SymShape s;
        for (int64_t d : dims) s.push_back(Dim::of(d));
        vi.type.shape = s;
        return vi;
    }
    Model m_;
};

inline OptimizeResult runPasses(const Model& m, std::vector<std::string> passes, int64_t align = 0) {
    OptimizerOptions o;
    o.passes = std::move(passes);
    o.config.channelAlign = align;
    o.proof.randomInputSets = 2;
    return optimize(m, o);
}

inline int count(const OptimizeResult& r, const std::string& op) {
    auto it = r.opsAfter.find(op);
    return it == r.opsAfter.end() ? 0 : it->second;
}

/// The rewrite happened, was proven and the whole model is still equivalent.
inline void expectProven(const OptimizeResult& r, const std::string& pass) {
    bool applied = false;
    for (const auto& a : r.applied) {
        applied = applied || a.pass == pass;
        EXPECT_TRUE(a.proof.passed);
        EXPECT_GE(a.proof.inputSets, 2);
    }
    EXPECT_TRUE(applied) << pass << " did not apply";
    EXPECT_TRUE(r.rolledBack.empty()) << (r.rolledBack.empty() ? "" : r.rolledBack[0].error);
    EXPECT_TRUE(r.endToEnd.passed) << r.endToEnd.failure;
    EXPECT_LE(r.endToEnd.maxAbsDiff, 1e-4 * std::max(1.0, r.endToEnd.refMaxAbs));
}

/// Nothing was rewritten and the pass reported a near miss whose reason contains `reason`.
inline void expectNearMiss(const OptimizeResult& r, const std::string& pass, const std::string& reason) {
    for (const auto& a : r.applied) EXPECT_NE(a.pass, pass) << "unexpected rewrite: " << a.match.explanation;
    bool found = false;
    std::string seen;
    for (const auto& n : r.nearMisses) {
        seen += n.pass + ": " + n.match.nearMissReason + "\n";
        found = found || (n.pass == pass && n.match.nearMissReason.find(reason) != std::string::npos);
    }
    EXPECT_TRUE(found) << "no near miss of " << pass << " with '" << reason << "'; near misses:\n" << seen;
}

}  // namespace npuwb::passes::testing
