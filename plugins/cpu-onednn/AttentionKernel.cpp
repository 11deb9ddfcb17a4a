// The fused attention core's run-time kernel (AttentionKernel.h).
#include "AttentionKernel.h"

#include <omp.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "AttentionRows.h"
#include "MatmulConvert.h"
#include "OnednnQuantAvx512.h"

namespace npuwb::onednn {

namespace {

bool isSigned(const QuantInfo& q) { return q.type == DType::I8; }

/// The values an 8-bit type holds, as floats.
std::optional<std::pair<float, float>> byteRange(DType t) {
    if (t == DType::U8) return std::make_pair(0.f, 255.f);
    if (t == DType::I8) return std::make_pair(-128.f, 127.f);
    return std::nullopt;
}

/// An 8-bit operand's bytes: its flipped copy when it has one.
const uint8_t* bytesOf(const AttentionOperand& o, const std::vector<uint8_t>& flipped) {
    return flipped.empty() ? static_cast<const uint8_t*>(o.m.get_data_handle()) : flipped.data();
}

}  // namespace

void AttentionKernel::flip(const AttentionOperand& o, int64_t rows, int64_t cols, std::vector<uint8_t>& to) const {
    // Only the lines the GEMMs address: a strided view (a head's columns of a fused QKV projection) spans more.
    to.resize(o.m.get_desc().get_size());
    const auto* from = static_cast<const uint8_t*>(o.m.get_data_handle());
    const int64_t lines = o.trans == 'N' ? rows : cols, length = o.trans == 'N' ? cols : rows;
    int64_t batches = 1;
    for (int64_t dim : batchDims) batches *= dim;
    for (int64_t batch = 0; batch < batches; ++batch)  // broadcast batches repeat lines: assigned, not toggled
        for (int64_t line = 0, at = offset(o, batch); line < lines; ++line, at += o.ld)
            for (int64_t i = at; i < at + length; ++i) to[size_t(i)] = from[i] ^ 0x80;
}

int64_t AttentionKernel::offset(const AttentionOperand& o, int64_t batch) const {
    int64_t at = 0;
    for (size_t i = batchDims.size(); i-- > 0;) {
        at += (batch % batchDims[i]) * o.batchStrides[i];
        batch /= batchDims[i];
    }
    return at;
}

std::pair<const float*, int64_t> AttentionKernel::floatOperand(const AttentionOperand& o, int64_t batch,
                                                                int64_t row0, int64_t rows, int64_t cols,
                                                                std::vector<float>& to) const {
    const int64_t first = offset(o, batch) + row0 * (o.trans == 'N' ? o.ld : 1);
    if (!o.bytes) return {static_cast<const float*>(o.m.get_data_handle()) + first, o.ld};
    // 'N': rows of `cols` values o.ld apart; 'T': columns of `rows` values o.ld apart. Each line is contiguous.
    const int64_t lines = o.trans == 'N' ? rows : cols, length = o.trans == 'N' ? cols : rows;
    to.resize(size_t(lines * length));
    dequantizeRows(static_cast<const uint8_t*>(o.m.get_data_handle()) + first, o.ld, to.data(), lines, length, o.quant);
    return {to.data(), std::max<int64_t>(length, 1)};
}

void AttentionKernel::applySteps(std::span<const ScoreStep> steps, float* row, int64_t batch, int64_t rowIndex,
                                 uint8_t* bytes) const {
    size_t addend = 0;
    for (const ScoreStep& s : steps) {
        switch (s.kind) {
        case ScoreStep::Kind::RoundToHalf: roundToHalf(row, row, n); break;
        case ScoreStep::Kind::Multiply: multiplyRow(row, n, s.value); break;
        case ScoreStep::Kind::Divide: divideRow(row, n, s.value); break;
        case ScoreStep::Kind::Add: {
            const AttentionOperand& o = addends[addend++];
            const auto* base = static_cast<const float*>(o.m.get_data_handle()) + offset(o, batch);
            addRow(row, n, base + rowIndex * o.rowStride, o.colStride);
            break;
        }
        case ScoreStep::Kind::Softmax: softmaxRow(row, n); break;
        case ScoreStep::Kind::QuantizeDequantize:
            if (auto range = byteRange(s.quantize.type)) {
                quantizeDequantizeRow(row, n, s.quantize.scale, float(s.quantize.zero), range->first, range->second,
                                      s.dequantize.scale, float(s.dequantize.zero));
            } else {
                quantizeBuffer(row, bytes, size_t(n), s.quantize);
                dequantizeBuffer(bytes, row, size_t(n), s.dequantize);
            }
            break;
        }
    }
}

void AttentionKernel::planRows() {
    rowsPlanned_ = true;
    fusedRows_ = false;
    if (!avx512::available()) return;
    size_t at = 0;
    auto next = [&](ScoreStep::Kind kind) { return at < scores.size() && scores[at].kind == kind; };
    ScorePrologue pre;
    if (next(ScoreStep::Kind::RoundToHalf)) pre.roundToHalf = true, ++at;
    if (next(ScoreStep::Kind::Multiply) || next(ScoreStep::Kind::Divide)) {
        pre.scale = scores[at].kind == ScoreStep::Kind::Multiply ? ScorePrologue::Scale::Multiply
                                                                 : ScorePrologue::Scale::Divide;
        pre.scaleValue = scores[at++].value;
    }
    const bool add = next(ScoreStep::Kind::Add);
    at += add ? 1 : 0;
    if (at != scores.size()) return;
    // The probability steps the float path runs: the Softmax, then a QDQ unless the GEMM takes its bytes.
    const size_t floatSteps = probabilities.size() - (int8Values ? 1 : 0);
    if (floatSteps == 0 || probabilities[0].kind != ScoreStep::Kind::Softmax || floatSteps > 2) return;
    ProbabilityEpilogue post;
    if (floatSteps == 2) {
        const ScoreStep& s = probabilities[1];
        auto range = s.kind == ScoreStep::Kind::QuantizeDequantize ? byteRange(s.quantize.type) : std::nullopt;
        if (!range) return;
        post = {.quantizeDequantize = true, .qScale = s.quantize.scale, .qZero = float(s.quantize.zero),
                .lo = range->first, .hi = range->second, .dScale = s.dequantize.scale,
                .dZero = float(s.dequantize.zero)};
    }
    prologue_ = pre;
    addsToRows_ = add;
    epilogue_ = post;
    fusedRows_ = true;
}

void AttentionKernel::runTask(int64_t task, Scratch& scratch) {
    const int64_t blocksPerBatch = (m + rowsPerTask - 1) / rowsPerTask;
    const int64_t batch = task / blocksPerBatch, row0 = (task % blocksPerBatch) * rowsPerTask;
    const int64_t rows = std::min(rowsPerTask, m - row0);
    float* s = scratch.scores.data();
    int32_t* sums = scratch.sums.data();
    const int32_t noOffset = 0;
    const int64_t aRow = row0 * (a.trans == 'N' ? a.ld : 1);
    if (int8Scores) {
        const auto* pa = bytesOf(a, flippedA_) + offset(a, batch) + aRow;
        const auto* pb = reinterpret_cast<const int8_t*>(bytesOf(b, flippedB_)) + offset(b, batch);
        const auto aZero = uint8_t(a.quant.zero + (isSigned(a.quant) ? 128 : 0));
        const auto bZero = int8_t(b.quant.zero - (isSigned(b.quant) ? 0 : 128));
        check(dnnl_gemm_u8s8s32(a.trans, b.trans, 'F', rows, n, k, 1.f, pa, a.ld, aZero, pb, b.ld, bZero, 0.f, sums,
                                n, &noOffset));
        const float scale = a.quant.scale * b.quant.scale * alpha;
        for (int64_t i = 0; i < rows * n; ++i) s[i] = float(sums[i]) * scale;
    } else {
        const auto [pa, lda] = floatOperand(a, batch, row0, rows, k, scratch.a);
        const auto [pb, ldb] = floatOperand(b, batch, 0, k, n, scratch.b);
        check(dnnl_sgemm(a.trans, b.trans, rows, n, k, alpha, pa, lda, pb, ldb, 0.f, s, n));
    }
    // With 8-bit values the last step's quantized row is the second GEMM's operand: its dequantize is skipped.
    const std::span<const ScoreStep> floatSteps(probabilities.data(), probabilities.size() - (int8Values ? 1 : 0));
    for (int64_t r = 0; r < rows; ++r) {
        float* row = s + r * n;
        if (fusedRows_) {
            ScorePrologue pre = prologue_;
            if (addsToRows_) {
                const AttentionOperand& o = addends[0];
                pre.addend = static_cast<const float*>(o.m.get_data_handle()) + offset(o, batch) +
                             (row0 + r) * o.rowStride;
                pre.addendStride = o.colStride;
            }
            avx512::scoreRowSoftmax(row, n, pre, epilogue_);
        } else {
            applySteps(scores, row, batch, row0 + r, scratch.bytes.data());
            applySteps(floatSteps, row, batch, row0 + r, scratch.bytes.data());
        }
        if (int8Values) {
            const QuantInfo& q = probabilities.back().quantize;
            uint8_t* quantized = scratch.bytes.data() + r * n;
            quantizeBuffer(row, quantized, size_t(n), q);
            if (isSigned(q))
                for (int64_t i = 0; i < n; ++i) quantized[i] ^= 0x80;
        }
    }
    // The output rows: y's own (float), or a block quantized into y's bytes afterwards.
    const int64_t yAt = offset(y, batch) + row0 * y.ld;
    if (yQuant) scratch.y.resize(size_t(rows * d));
    float* py = yQuant ? scratch.y.data() : static_cast<float*>(y.m.get_data_handle()) + yAt;
    const int64_t ldy = yQuant ? d : y.ld;
    if (int8Values) {
        const QuantInfo& p = probabilities.back().dequantize;
        const auto* pv = reinterpret_cast<const int8_t*>(bytesOf(v, flippedV_)) + offset(v, batch);
        const auto pZero = uint8_t(p.zero + (isSigned(p) ? 128 : 0));
        const auto vZero = int8_t(v.quant.zero - (isSigned(v.quant) ? 0 : 128));
        check(dnnl_gemm_u8s8s32('N', v.trans, 'F', rows, d, n, 1.f, scratch.bytes.data(), n, pZero, pv, v.ld, vZero,
                                0.f, sums, d, &noOffset));
        const float scale = p.scale * v.quant.scale;
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < d; ++j) py[r * ldy + j] = float(sums[r * d + j]) * scale;
    } else {
        const auto [pv, ldv] = floatOperand(v, batch, 0, n, d, scratch.v);
        check(dnnl_sgemm('N', v.trans, rows, d, n, 1.f, s, n, pv, ldv, 0.f, py, ldy));
    }
    if (yQuant) {
        auto* bytes = static_cast<uint8_t*>(y.m.get_data_handle()) + yAt;
        for (int64_t r = 0; r < rows; ++r) quantizeBuffer(py + r * d, bytes + r * y.ld, size_t(d), *yQuant);
    }
}

void AttentionKernel::check(dnnl_status_t status) {
    if (status != dnnl_success) failed_.store(true, std::memory_order_relaxed);
}

void AttentionKernel::run() {
    const int threads = std::max(1, omp_get_max_threads());
    if (scratch_.size() < size_t(threads)) {
        const auto block = size_t(rowsPerTask * n);
        scratch_.resize(size_t(threads), Scratch{.scores = std::vector<float>(block),
                                                 .sums = std::vector<int32_t>(size_t(rowsPerTask * std::max(n, d))),
                                                 .bytes = std::vector<uint8_t>(block)});
    }
    if (!rowsPlanned_) planRows();
    if (int8Scores && isSigned(a.quant)) flip(a, m, k, flippedA_);
    if (int8Scores && !isSigned(b.quant)) flip(b, k, n, flippedB_);
    if (int8Values && !isSigned(v.quant)) flip(v, n, d, flippedV_);
    int64_t batches = 1;
    for (int64_t dim : batchDims) batches *= dim;
    const int64_t tasks = batches * ((m + rowsPerTask - 1) / rowsPerTask);
    // GEMMs called inside the parallel loop run on their thread alone (oneDNN does not nest).
    failed_ = false;
#pragma omp parallel for schedule(dynamic, 1) if (threads > 1)
    for (int64_t t = 0; t < tasks; ++t) runTask(t, scratch_[size_t(omp_get_thread_num())]);
    // Thrown here, not inside the parallel loop (an exception may not leave an OpenMP region).
    if (failed_) throw std::runtime_error("cpu-onednn attention core: oneDNN's GEMM refused its arguments");
}

}  // namespace npuwb::onednn
