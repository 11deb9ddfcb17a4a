#include "quant/OutputAgreement.h"

#include <algorithm>

#include "npuwb/Accuracy.h"

namespace npuwb::quant::detail {

void OutputAgreementAccumulator::add(size_t sample, const std::string& output, const Tensor& reference,
                                     const Tensor& candidate) {
    if (sample >= perSample_.size() || reference.dtype() != DType::F32 || candidate.dtype() != DType::F32 ||
        reference.numel() != candidate.numel())
        return;
    const float* r = reference.data<float>();
    const float* c = candidate.data<float>();
    const size_t n = static_cast<size_t>(reference.numel());
    Stats s;
    s.cosine = cosineSimilarity(r, c, n);
    s.euclidean = euclideanDistance(r, c, n);
    for (size_t i = 0; i < n; ++i) {
        const double d = double(r[i]) - double(c[i]);
        s.signal += double(r[i]) * double(r[i]);
        s.noise += d * d;
    }
    perSample_[sample][output] = s;
}

std::vector<AccuracyOutput> OutputAgreementAccumulator::summarize(const std::vector<std::string>& outputs) const {
    std::vector<AccuracyOutput> rows;
    for (const auto& name : outputs) {
        AccuracyOutput row;
        row.name = name;
        double cosineSum = 0, euclideanSum = 0, signal = 0, noise = 0;
        size_t compared = 0;
        for (size_t i = 0; i < perSample_.size(); ++i) {
            auto it = perSample_[i].find(name);
            if (it == perSample_[i].end()) continue;
            const Stats& s = it->second;
            const double snr = snrFromEnergies(s.signal, s.noise);
            if (compared == 0 || s.cosine < row.worstCosine) {
                row.worstCosine = s.cosine;
                row.worstCosineSample = static_cast<int64_t>(i);
            }
            if (compared == 0 || snr < row.worstSnrDb) {
                row.worstSnrDb = snr;
                row.worstSnrSample = static_cast<int64_t>(i);
            }
            cosineSum += s.cosine;
            euclideanSum += s.euclidean;
            signal += s.signal;
            noise += s.noise;
            ++compared;
        }
        if (compared == 0) continue;
        row.cosine = cosineSum / double(compared);
        row.euclidean = euclideanSum / double(compared);
        row.snrDb = snrFromEnergies(signal, noise);
        row.samples = static_cast<int64_t>(compared);
        rows.push_back(row);
    }
    return rows;
}

double worstCosine(const std::vector<AccuracyOutput>& outputs) {
    double worst = 1.0;
    for (const auto& o : outputs) worst = std::min(worst, o.worstCosine);
    return worst;
}

double meanCosine(const std::vector<AccuracyOutput>& outputs) {
    double sum = 0;
    for (const auto& o : outputs) sum += o.cosine;
    return outputs.empty() ? 1.0 : sum / double(outputs.size());
}

}  // namespace npuwb::quant::detail
