#pragma once
// A SampleSource over a vendor-style dataset.txt whose entries are .npy arrays: one sample per line, the model's
// inputs separated by spaces in graph-input order, or each named (`input_ids=a.npy attention_mask=b.npy`, any order,
// all entries of a line or none), paths relative to the list's folder, '#' comments and blank lines ignored. Lists with images are npuwb_imageio's business (npuwb/DatasetSampleSource.h).
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/SampleSource.h"

namespace npuwb::quant {

class NpySampleSource : public SampleSource {
public:
    /// `inputNames`: the model's required inputs in order. Throws InvalidInput naming the list line for a line
    /// with the wrong number of entries, Io when the list cannot be read.
    NpySampleSource(const std::string& listPath, std::vector<std::string> inputNames);
    /// Checks every loaded tensor against these declared inputs (dtype, rank, known dims).
    NpySampleSource(const std::string& listPath, const std::vector<ValueInfo>& declaredInputs);

    size_t size() const override { return lines_.size(); }
    Sample load(size_t index) const override;
    std::string contentHash() const override;  // SHA-256 over the list's lines and every file's bytes

private:
    struct Line {
        size_t lineNumber = 0;
        std::vector<std::string> paths;  // resolved
    };
    std::string listPath_;
    std::vector<std::string> inputNames_;
    std::vector<ValueInfo> declared_;  // may be empty
    std::vector<Line> lines_;
};

/// A SampleSource over tensors already in memory (tests, the GUI's preview, generated data).
class MemorySampleSource : public SampleSource {
public:
    explicit MemorySampleSource(std::vector<Sample> samples) : samples_(std::move(samples)) {}
    size_t size() const override { return samples_.size(); }
    Sample load(size_t index) const override;
    std::string contentHash() const override;  // SHA-256 over the tensors' names, shapes and bytes

private:
    std::vector<Sample> samples_;
};

/// SHA-256 (hex) of `bytes` (OpenSSL EVP) for content hashes.
std::string sha256Hex(const std::string& bytes);

}  // namespace npuwb::quant
