// Reductions over every axis (no axes given: LPRNet's global-context ReduceMean) and over inner runs of axes, pooling
// a Transpose's output (LPRNet's channel-wise MaxPool), and linear Resize with align_corners coordinates (DeepLabV3+'s
// image pooling branch), spatial reductions of a Conv's channels-last output (MNASNet's closing mean): seeded random
// shapes, sizes and scales.
#include "DifferentialHarness.h"

namespace npuwb::difftest {

namespace {

std::string dims(const Shape& s) {
    std::string out;
    for (int64_t d : s) {  // appended step by step: GCC 12 warns (-Wrestrict, a false positive) on "x" + string&&
        if (!out.empty()) out += 'x';
        out += std::to_string(d);
    }
    return out;
}

}  // namespace

void addAllAxisReduceCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> side(1, 40), rank(1, 5);
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"})
        for (int64_t keep : {0, 1}) {
            Shape shape(static_cast<size_t>(rank(rng)));
            for (auto& d : shape) d = shape.size() > 3 ? side(rng) % 9 + 1 : side(rng);
            std::string label = std::string(op) + " all axes keepdims=" + std::to_string(keep) + " " + dims(shape);
            cases.push_back(makeCase(label, {makeNode(op, {"X"}, {"Y"}, {{"keepdims", Attribute::ofInt(keep)}})},
                                     {{"X", shape}}, {"Y"}, {}, rng));
        }
}

void addInnerAxisReduceCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> side(1, 30);
    const std::vector<std::vector<int64_t>> runs = {{2}, {1}, {1, 2}, {-2}};
    int i = 0;
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"})
        for (const auto& axes : runs) {
            const int64_t keep = i++ % 2;
            const Shape shape{1 + i % 2, side(rng), side(rng) % 9 + 1, side(rng)};
            std::map<std::string, Attribute> attrs{{"keepdims", Attribute::ofInt(keep)}};
            std::vector<std::string> inputs{"X"};
            std::map<std::string, Tensor> init;
            if (std::string(op) == "ReduceSum") {  // axes an input since opset 13
                inputs.push_back("axes");
                init["axes"] = Tensor::fromVector<int64_t>({static_cast<int64_t>(axes.size())}, axes);
            } else {
                attrs["axes"] = Attribute::ofInts(axes);
            }
            std::string label = std::string(op) + " inner axes " + dims(axes) + " keepdims=" + std::to_string(keep);
            cases.push_back(makeCase(label.append(" ").append(dims(shape)), {makeNode(op, inputs, {"Y"}, attrs)},
                                     {{"X", shape}}, {"Y"}, init, rng));
        }
}

void addConvSpatialReduceCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> channels(1, 70), side(1, 12);
    int i = 0;
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"})
        for (int64_t keep : {0, 1}) {
            // Channel counts of whole 16-lane blocks first (the channels-last outputs), then any.
            const int64_t batch = 1 + i % 2, c = channels(rng) % 8 + 1, oc = i < 4 ? 16 << i : channels(rng);
            const int64_t h = side(rng), w = side(rng);
            ++i;
            std::map<std::string, Tensor> init{{"W", randomTensor({oc, c, 1, 1}, rng)}, {"B", randomTensor({oc}, rng)}};
            std::map<std::string, Attribute> attrs{{"keepdims", Attribute::ofInt(keep)}};
            std::vector<std::string> inputs{"a"};
            if (std::string(op) == "ReduceSum") {  // axes an input since opset 13
                inputs.push_back("axes");
                init["axes"] = Tensor::fromVector<int64_t>({2}, {2, 3});
            } else {
                attrs["axes"] = Attribute::ofInts({2, 3});
            }
            const Shape x{batch, c, h, w};
            std::string label = "Conv+" + std::string(op) + " over H,W keepdims=" + std::to_string(keep) + " " +
                                dims(x) + " oc=" + std::to_string(oc);
            cases.push_back(makeCase(label,
                                     {makeNode("Conv", {"X", "W", "B"}, {"a"}), makeNode(op, inputs, {"Y"}, attrs)},
                                     {{"X", x}}, {"Y"}, init, rng));
        }
}

void addTransposedPoolCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> side(2, 40), window(2, 4);
    for (const char* op : {"MaxPool", "AveragePool"}) {
        const int64_t c = side(rng), h = side(rng) % 9 + 1, w = side(rng) * 4, k = window(rng);
        // [N,C,H,W] -> [N,W,H,C] then a 1xk window over the old channels, like LPRNet's channel-wise pooling.
        std::map<std::string, Attribute> pool{{"kernel_shape", Attribute::ofInts({1, k})},
                                              {"strides", Attribute::ofInts({1, k})}};
        std::string label = std::string("Transpose+").append(op).append(" k=1x").append(std::to_string(k));
        cases.push_back(makeCase(label.append(" ").append(dims({1, c, h, w})),
                                 {makeNode("Transpose", {"X"}, {"T"}, {{"perm", Attribute::ofInts({0, 3, 2, 1})}}),
                                  makeNode(op, {"T"}, {"Y"}, pool)},
                                 {{"X", {1, c, h, w}}}, {"Y"}, {}, rng));
    }
}

void addAlignCornersResizeCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> side(1, 24), channels(1, 40), batch(1, 2);
    // DeepLabV3+'s own: a 1x1 pooled map stretched to 65x65 (every output its channel's value), by sizes.
    std::vector<std::pair<Shape, Shape>> sizes = {{{1, 256, 1, 1}, {1, 256, 65, 65}}};
    for (int i = 0; i < 5; ++i) {  // up, down and mixed, odd sizes and single rows/columns
        const int64_t n = batch(rng), c = channels(rng);
        sizes.push_back({{n, c, side(rng), side(rng)}, {n, c, side(rng), side(rng)}});
    }
    for (const auto& [in, out] : sizes) {
        std::map<std::string, Attribute> attrs{{"mode", Attribute::ofString("linear")},
                                               {"coordinate_transformation_mode", Attribute::ofString("align_corners")}};
        std::map<std::string, Tensor> init{
            {"sizes", Tensor::fromVector<int64_t>({4}, std::vector<int64_t>(out.begin(), out.end()))}};
        cases.push_back(makeCase("Resize linear align_corners " + dims(in) + "->" + dims(out),
                                 {makeNode("Resize", {"X", "", "", "sizes"}, {"Y"}, attrs)}, {{"X", in}}, {"Y"},
                                 init, rng));
    }
    // By scales: the output size is floor(in * scale), the unrounded in * scale is what align_corners divides by.
    const std::vector<std::pair<Shape, std::vector<float>>> scaled = {
        {{1, 5, 7, 9}, {1.f, 1.f, 2.f, 1.5f}}, {{1, 3, 10, 6}, {1.f, 1.f, 0.55f, 2.3f}}, {{2, 4, 1, 5}, {1.f, 1.f, 3.f, 1.f}}};
    for (const auto& [in, s] : scaled) {
        std::map<std::string, Attribute> attrs{{"mode", Attribute::ofString("linear")},
                                               {"coordinate_transformation_mode", Attribute::ofString("align_corners")}};
        std::map<std::string, Tensor> init{{"scales", Tensor::fromVector<float>({4}, s)}};
        cases.push_back(makeCase("Resize linear align_corners " + dims(in) + " scales " + std::to_string(s[2]) + "," +
                                     std::to_string(s[3]),
                                 {makeNode("Resize", {"X", "", "scales"}, {"Y"}, attrs)}, {{"X", in}}, {"Y"}, init, rng));
    }
    // A one-pixel map stretched and added to a full-size value (the stretched map is stored channels-last for the
    // Convs that usually read it), batch 2.
    std::map<std::string, Attribute> attrs{{"mode", Attribute::ofString("linear")},
                                           {"coordinate_transformation_mode", Attribute::ofString("align_corners")}};
    std::map<std::string, Tensor> init{{"sizes", Tensor::fromVector<int64_t>({4}, {2, 24, 9, 5})}};
    cases.push_back(makeCase("Resize linear align_corners [2,24,1,1]->[2,24,9,5], then Add",
                             {makeNode("Resize", {"X", "", "", "sizes"}, {"r"}, attrs), makeNode("Add", {"r", "Z"}, {"Y"})},
                             {{"X", {2, 24, 1, 1}}, {"Z", {2, 24, 9, 5}}}, {"Y"}, init, rng));
}

}  // namespace npuwb::difftest
