#pragma once
// A float binary op (a op b, b broadcast to a's shape) in rows: what oneDNN 2.x runs in its reference loop (a
// broadcast axis between full ones). Both operands dense row-major; b's dims padded to a's rank.
#include <cstdint>
#include <vector>

namespace npuwb::onednn {

enum class BinaryOp { Add, Sub, Mul, Div, Max, Min };

/// The output in rows of `inner` elements over which b is either contiguous or one value; for each row, where b's
/// part starts.
struct BroadcastRows {
    int64_t inner = 1;
    bool scalarB = false;            // b is one value along each row
    std::vector<int64_t> rowOffset;  // per row of the output, b's first element
};
BroadcastRows broadcastRows(const std::vector<int64_t>& outDims, const std::vector<int64_t>& bDims);

/// out = a op b over every row (OpenMP over rows).
void broadcastBinary(BinaryOp op, const BroadcastRows& rows, const float* a, const float* b, float* out);

}  // namespace npuwb::onednn
