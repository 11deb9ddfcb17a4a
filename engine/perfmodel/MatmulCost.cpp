// The cost model's estimate of one matmul of the NPU's matmul API: the same per-layer formula as a conv
// (LayerCost.h) with M as the output pixels, K the input and N the output channels, the MAC array read off B's
// native block and the operands' native sizes moved over DDR.
#include <algorithm>

#include "npuwb/Matmul.h"
#include "perfmodel/LayerCost.h"

namespace npuwb {

MatmulEstimate estimateMatmul(const MatmulSpec& spec, int64_t M, const ChipProfile& chip, int64_t cores) {
    const MatmulTypeInfo& info = matmulTypeInfo(spec.type);
    const MatmulNativeLayout native = matmulNativeLayout(spec.type, chip);
    NpuDTypeRates rates;
    rates.atomicInputChannels = native.bKBlock;
    rates.atomicOutputChannels = native.bNBlock;
    rates.macsPerCycle = native.bKBlock * native.bNBlock;
    rates.c2 = native.aKBlock;
    rates.bytes = std::max<int64_t>(1, int64_t(dtypeSize(info.a)));
    NpuWork work;
    work.kind = NpuWorkKind::Conv;
    work.conv.outH = M;
    work.conv.outW = 1;
    work.conv.inChannelsPerGroup = spec.K;
    work.conv.outChannels = spec.N;
    work.macs = M * spec.K * spec.N;
    work.activationReadBytes =
        matmulOperandBytes(MatmulOperand::A, MatmulLayout::Native, info.a, M, spec.K, spec.N, native);
    work.weightBytes = matmulOperandBytes(MatmulOperand::B, MatmulLayout::Native, info.b, M, spec.K, spec.N, native);
    work.writeBytes = matmulOperandBytes(MatmulOperand::C, MatmulLayout::Native, info.c, M, spec.K, spec.N, native);
    const int64_t used = std::clamp<int64_t>(cores, 1, chip.cores);
    work.splitsAcrossCores = used > 1;
    const NpuLayerCost cost = npuLayerCost(work, chip, rates, used, chip.coefficients);
    MatmulEstimate e;
    e.timeUs = cost.timeUs;
    e.npuCycles = cost.npuCycles;
    e.ddrCycles = cost.ddrCycles;
    e.paddedMacs = cost.paddedMacs;
    e.bytesMoved = cost.bytesRead + cost.bytesWritten;
    e.peakGops = 2.0 * double(rates.macsPerCycle) * chip.clockMHz * 1e6 * double(used) / 1e9;
    e.macUsagePercent = cost.macUsagePercent;
    return e;
}

}  // namespace npuwb
