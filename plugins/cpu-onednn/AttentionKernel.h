#pragma once
// The run-time kernel of the fused attention core (built by OnednnAttention.cpp): per (batch, block of score rows),
// the first GEMM into a block that stays in cache, the steps row by row, the second GEMM. Either GEMM runs on 8-bit
// values with exact int32 sums when both its operands are dequantized 8-bit values (a QDQ model's Q, K, V and
// quantized probabilities), else in float; an 8-bit operand of a float GEMM is dequantized per task into the thread's
// scratch (the same loop as a DequantizeLinear kernel), so no float copy of Q, K or V is ever made.
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "AttentionRowsAvx512.h"
#include "OnednnQuant.h"

namespace npuwb::onednn {

/// One step between the two MatMuls, applied to each score row.
struct ScoreStep {
    enum class Kind { RoundToHalf, Multiply, Divide, Add, Softmax, QuantizeDequantize } kind;
    float value = 0.f;                    // Multiply, Divide
    std::string tensor{};                 // Add: the value added, broadcast to the scores
    QuantInfo quantize{}, dequantize{};  // QuantizeDequantize
};

/// A tensor the kernel reads: a matrix per batch index (GEMM operands), or rows broadcast to the scores (addends).
struct AttentionOperand {
    dnnl::memory m;
    char trans = 'N';  // GEMM operands: 'N' row-major with leading dimension ld, 'T' column-major
    int64_t ld = 0;
    std::vector<int64_t> batchStrides{};   // per output batch dim, in elements; 0 where the operand broadcasts
    int64_t rowStride = 0, colStride = 0;  // addends: per score row and column (0: broadcast)
    QuantInfo quant{};                     // 8-bit operands: the value's parameters
    bool bytes = false;                    // stored as 8-bit values (dequantized per task for a float GEMM)
};

class AttentionKernel {
public:
    AttentionOperand a, b, v, y;  // scores = a x b; y = probabilities x v
    std::vector<AttentionOperand> addends;  // the Add steps' other operands, in step order
    std::vector<ScoreStep> scores, probabilities;
    std::vector<int64_t> batchDims;
    int64_t m = 0, n = 0, k = 0, d = 0, rowsPerTask = 1;
    float alpha = 1.f;           // a leading Multiply step, folded into the first GEMM
    bool int8Scores = false;     // a and b are 8-bit
    bool int8Values = false;     // the last probability step is a QDQ and v is 8-bit
    std::optional<QuantInfo> yQuant{};  // y holds the output quantized with these parameters (bytes)

    /// Runs on the calling thread's OpenMP team (one run at a time: the segment's mutex).
    void run();

private:
    struct Scratch {
        std::vector<float> scores;
        std::vector<int32_t> sums;
        std::vector<uint8_t> bytes;
        std::vector<float> a{}, b{}, v{};  // 8-bit operands of float GEMMs, dequantized
        std::vector<float> y{};            // the output block in float, before it is quantized into y
    };
    std::vector<Scratch> scratch_;
    // 8-bit operands stored with the other signedness than oneDNN's u8 x s8 GEMM takes: flipped (x ^ 0x80) per run.
    std::vector<uint8_t> flippedA_, flippedB_, flippedV_;

    std::atomic<bool> failed_{false};  // a GEMM returned an error in this run
    // The steps in the form avx512::scoreRowSoftmax takes (planned on the first run): three passes per row.
    bool rowsPlanned_ = false, fusedRows_ = false, addsToRows_ = false;
    ScorePrologue prologue_{};
    ProbabilityEpilogue epilogue_{};

    /// Whether the steps are [fp16 round] [Multiply|Divide] [Add], Softmax, [8-bit QDQ] (the fused row's form).
    void planRows();
    void runTask(int64_t task, Scratch& scratch);
    /// The float GEMM's view of operand `o` of batch `batch` (`rows` x `cols` from row `row0`): its own storage when
    /// float, else those values dequantized into `to` in the same order. Returns the data and its leading dimension.
    std::pair<const float*, int64_t> floatOperand(const AttentionOperand& o, int64_t batch, int64_t row0, int64_t rows,
                                                  int64_t cols, std::vector<float>& to) const;
    void check(dnnl_status_t status);
    void applySteps(std::span<const ScoreStep> steps, float* row, int64_t batch, int64_t rowIndex,
                    uint8_t* bytes) const;
    int64_t offset(const AttentionOperand& o, int64_t batch) const;
    /// The bytes operand `o` addresses (`rows` x `cols` per batch) with the sign bit flipped into `to`, at the same
    /// offsets: u8 <-> s8 with the zero point moved by 128.
    void flip(const AttentionOperand& o, int64_t rows, int64_t cols, std::vector<uint8_t>& to) const;
};

}  // namespace npuwb::onednn
