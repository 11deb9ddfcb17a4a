#pragma once
// The builder of the int8 case families (Int8Cases.cpp, Int8TransformerCases.cpp): a QDQ graph assembled node by node
// with seeded random parameters and weights, and the case it becomes. Private to the int8 tests.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Int8Cases.h"

namespace npuwb::int8test {

using difftest::makeNode;

struct QParams {
    float scale;
    int64_t zero;
    DType type;
};

class QdqGraph {
public:
    explicit QdqGraph(std::mt19937& rng) : rng_(rng) {}

    std::string quantize(const std::string& x, QParams p) {
        std::string s = name("s"), z = name("z"), y = name("q");
        addParams(s, z, p);
        nodes.push_back(makeNode("QuantizeLinear", {x, s, z}, {y}));
        types[y] = p.type;
        return y;
    }
    std::string dequantize(const std::string& x, QParams p) {
        std::string s = name("s"), z = name("z"), y = name("dq");
        addParams(s, z, p);
        nodes.push_back(makeNode("DequantizeLinear", {x, s, z}, {y}));
        return y;
    }
    /// s8 weights (values in [-127, 127]) with scales per entry of dim `axis` (or one), behind a DequantizeLinear.
    std::string weights(const Shape& shape, int64_t axis, bool perChannel, std::vector<float>& scales) {
        std::uniform_int_distribution<int> v(-127, 127);
        std::uniform_real_distribution<float> s(0.5f / 127, 1.5f / 127);
        Tensor w(DType::I8, shape);
        for (auto& x : w.values<int8_t>()) x = static_cast<int8_t>(v(rng_));
        const int64_t channels = perChannel ? shape[static_cast<size_t>(axis)] : 1;
        scales.resize(static_cast<size_t>(channels));
        for (auto& x : scales) x = s(rng_);
        std::string wn = name("w"), sn = name("ws"), zn = name("wz"), y = name("wdq");
        init[wn] = w;
        init[sn] = perChannel ? Tensor::fromVector<float>({channels}, scales) : Tensor::scalar<float>(scales[0]);
        init[zn] = perChannel ? Tensor::fromVector<int8_t>({channels}, std::vector<int8_t>(scales.size(), 0))
                              : Tensor::scalar<int8_t>(0);
        std::map<std::string, Attribute> attrs;
        if (perChannel) attrs["axis"] = Attribute::ofInt(axis);
        nodes.push_back(makeNode("DequantizeLinear", {wn, sn, zn}, {y}, attrs));
        return y;
    }
    /// int32 bias with scale x_scale * w_scale (per channel), about `magnitude` in real units.
    std::string bias(int64_t channels, float xScale, std::vector<float> wScales, float magnitude) {
        wScales.resize(static_cast<size_t>(channels), wScales[0]);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        std::vector<int32_t> b(static_cast<size_t>(channels));
        std::vector<float> s(static_cast<size_t>(channels));
        for (size_t c = 0; c < b.size(); ++c) {
            s[c] = xScale * wScales[c];
            b[c] = static_cast<int32_t>(std::lround(u(rng_) * magnitude / s[c]));
        }
        std::string bn = name("b"), sn = name("bs"), y = name("bdq");
        init[bn] = Tensor::fromVector<int32_t>({channels}, b);
        init[sn] = Tensor::fromVector<float>({channels}, s);
        nodes.push_back(makeNode("DequantizeLinear", {bn, sn}, {y}, {{"axis", Attribute::ofInt(0)}}));
        return y;
    }
    std::string add(const std::string& op, std::vector<std::string> inputs, std::map<std::string, Attribute> a = {}) {
        std::string y = name(op);
        nodes.push_back(makeNode(op, std::move(inputs), {y}, std::move(a)));
        return y;
    }
    std::string clip(const std::string& x, float lo, float hi) {
        std::string l = name("lo"), h = name("hi");
        init[l] = Tensor::scalar<float>(lo);
        init[h] = Tensor::scalar<float>(hi);
        return add("Clip", {x, l, h});
    }
    /// Random activation parameters of `type` for values in about [lo, hi].
    QParams params(DType type, float lo, float hi) {
        std::uniform_int_distribution<int> jitter(-3, 3);
        if (type == DType::U8) {
            float scale = (hi - lo) / 255.f;
            return {scale, std::clamp<int64_t>(std::lround(-lo / scale) + jitter(rng_), 0, 255), type};
        }
        float scale = (hi - lo) / 254.f;
        return {scale, std::clamp<int64_t>(std::lround(-lo / scale) - 127 + jitter(rng_), -128, 127), type};
    }
    std::string nodeNameOf(const std::string& output) const {
        for (const auto& n : nodes)
            if (n.outputs[0] == output) return n.name;
        return {};
    }

    std::vector<Node> nodes;
    std::map<std::string, Tensor> init;
    std::map<std::string, DType> types;  // quantized values

private:
    std::string name(const std::string& base) { return base + std::to_string(counter_++); }
    void addParams(const std::string& s, const std::string& z, QParams p) {
        init[s] = Tensor::scalar<float>(p.scale);
        init[z] = p.type == DType::U8 ? Tensor::scalar<uint8_t>(static_cast<uint8_t>(p.zero))
                                      : Tensor::scalar<int8_t>(static_cast<int8_t>(p.zero));
    }
    std::mt19937& rng_;
    int counter_ = 0;
};

inline Int8Case finish(std::string label, QdqGraph& g, const std::map<std::string, Shape>& inputs,
                const std::vector<std::string>& outputs, std::mt19937& rng,
                std::vector<std::pair<std::string, std::string>> fusedOutputs, std::map<std::string, float> scales = {}) {
    Int8Case k;
    std::vector<std::pair<std::string, std::string>> fused;
    for (auto& [a, b] : fusedOutputs) fused.emplace_back(g.nodeNameOf(a), g.nodeNameOf(b));
    k.c = difftest::makeCase(std::move(label), g.nodes, inputs, outputs, g.init, rng, 13);
    for (auto& o : k.c.model->graph.outputs)
        if (g.types.count(o.name)) o.type.dtype = g.types[o.name];
    k.fused = std::move(fused);
    k.outputScale = std::move(scales);
    return k;
}

inline DType pickType(int i) { return i % 2 ? DType::I8 : DType::U8; }

/// The transformer families (Int8TransformerCases.cpp), in the order int8Cases() adds them.
void addBatchedMatMulCases(std::vector<Int8Case>& out, std::mt19937& rng);
void addLayerNormQuantizeCases(std::vector<Int8Case>& out, std::mt19937& rng);
void addGeluQuantizeCases(std::vector<Int8Case>& out, std::mt19937& rng);
void addHeadSplitCases(std::vector<Int8Case>& out, std::mt19937& rng);
void addFloatSumCases(std::vector<Int8Case>& out, std::mt19937& rng);
void addFusedProjectionSplitCases(std::vector<Int8Case>& out, std::mt19937& rng);
void addLayerNormMovedQuantizeCases(std::vector<Int8Case>& out, std::mt19937& rng);

}  // namespace npuwb::int8test
