#pragma once
// Calibration and evaluation samples, one model-input map per sample, loaded on demand so that
// calibration streams: memory does not grow with the number of samples.
#include <cstddef>
#include <map>
#include <string>

#include "npuwb/ir/Tensor.h"

namespace npuwb::quant {

struct Sample {
    std::map<std::string, Tensor> inputs;  // graph input name -> tensor of the model's input shape
    std::string origin;                    // "dataset.txt:12" or a file name, for error messages and reports
};

/// Loads samples by index. Implementations must be safe to call from several threads at once.
class SampleSource {
public:
    virtual ~SampleSource() = default;
    virtual size_t size() const = 0;
    /// Throws npuwb::Error naming the list line and file for a missing file, wrong shape,
    /// undecodable image or wrong channel count.
    virtual Sample load(size_t index) const = 0;
    /// A stable hash of the sample list and its files' contents (hex), recorded in the exported model.
    virtual std::string contentHash() const = 0;
};

}  // namespace npuwb::quant
