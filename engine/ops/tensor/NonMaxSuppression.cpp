// NonMaxSuppression: greedy per (batch, class) selection of high-scoring boxes, dropping boxes whose IoU with an
// already selected box exceeds the threshold. Matches onnxruntime: scores must be strictly above
// score_threshold, ties keep the lower box index first, corners may come in either order.
#include <algorithm>
#include <numeric>

#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

struct Box {
    double yMin, xMin, yMax, xMax;
};

Box readBox(const Tensor& boxes, int64_t offset, bool centerPoint) {
    double a = boxes.elementAsDouble(offset), b = boxes.elementAsDouble(offset + 1);
    double c = boxes.elementAsDouble(offset + 2), d = boxes.elementAsDouble(offset + 3);
    if (centerPoint)  // [x_center, y_center, width, height]
        return {b - d / 2, a - c / 2, b + d / 2, a + c / 2};
    return {std::min(a, c), std::min(b, d), std::max(a, c), std::max(b, d)};  // [y1, x1, y2, x2], any corner order
}

bool overlapsTooMuch(const Box& p, const Box& q, double iouThreshold) {
    double ix0 = std::max(p.xMin, q.xMin), iy0 = std::max(p.yMin, q.yMin);
    double ix1 = std::min(p.xMax, q.xMax), iy1 = std::min(p.yMax, q.yMax);
    if (ix1 <= ix0 || iy1 <= iy0) return false;
    double inter = (ix1 - ix0) * (iy1 - iy0);
    double areaP = (p.xMax - p.xMin) * (p.yMax - p.yMin), areaQ = (q.xMax - q.xMin) * (q.yMax - q.yMin);
    double uni = areaP + areaQ - inter;
    if (areaP <= 0 || areaQ <= 0 || uni <= 0) return false;
    return inter / uni > iouThreshold;
}

void nonMaxSuppression(KernelContext& ctx) {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    if (boxes.rank() != 3 || boxes.shape()[2] != 4 || scores.rank() != 3 || scores.shape()[0] != boxes.shape()[0] ||
        scores.shape()[2] != boxes.shape()[1])
        ctx.fail("expects boxes [B,N,4] and scores [B,C,N]");
    int64_t maxPerClass = ctx.hasInput(2) && ctx.input(2).numel() > 0 ? ctx.input(2).elementAsInt(0) : 0;
    double iouThreshold = ctx.hasInput(3) && ctx.input(3).numel() > 0 ? ctx.input(3).elementAsDouble(0) : 0.0;
    bool hasScoreThreshold = ctx.hasInput(4) && ctx.input(4).numel() > 0;
    double scoreThreshold = hasScoreThreshold ? ctx.input(4).elementAsDouble(0) : 0.0;
    bool centerPoint = ctx.attrInt("center_point_box", 0) != 0;
    int64_t batches = boxes.shape()[0], n = boxes.shape()[1], classes = scores.shape()[1];

    std::vector<int64_t> selected;  // flattened [batch, class, box] triples
    for (int64_t b = 0; b < batches && maxPerClass > 0; ++b) {
        std::vector<Box> bx;
        for (int64_t i = 0; i < n; ++i) bx.push_back(readBox(boxes, (b * n + i) * 4, centerPoint));
        for (int64_t cl = 0; cl < classes; ++cl) {
            auto score = [&](int64_t i) { return scores.elementAsDouble((b * classes + cl) * n + i); };
            std::vector<int64_t> order;
            for (int64_t i = 0; i < n; ++i)
                if (!hasScoreThreshold || score(i) > scoreThreshold) order.push_back(i);
            std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) { return score(p) > score(q); });
            std::vector<int64_t> kept;
            for (int64_t i : order) {
                if (static_cast<int64_t>(kept.size()) >= maxPerClass) break;
                auto overlaps = [&](int64_t k) { return overlapsTooMuch(bx[uz(k)], bx[uz(i)], iouThreshold); };
                bool suppressed = std::any_of(kept.begin(), kept.end(), overlaps);
                if (!suppressed) kept.push_back(i);
            }
            for (int64_t k : kept) selected.insert(selected.end(), {b, cl, k});
        }
    }
    int64_t count = static_cast<int64_t>(selected.size() / 3);
    ctx.setOutput(0, Tensor::fromVector<int64_t>({count, 3}, selected));
}

}  // namespace

NPUWB_KERNEL("NonMaxSuppression", nonMaxSuppression);

}  // namespace npuwb
