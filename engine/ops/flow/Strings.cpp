// Text ops: StringNormalizer (stopword removal and ASCII case mapping) and TfIdfVectorizer (n-gram counting with
// skips over an int64 or string pool).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "ops/Kernel.h"

namespace npuwb {
namespace {

std::string mapCase(std::string s, bool upper) {
    for (char& c : s) c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Input [C] or [1, C] strings; output keeps the rank. When every word is a stopword the result is one empty string.
void stringNormalizer(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::String) ctx.fail("input must be a string tensor");
    if (x.rank() > 2 || (x.rank() == 2 && x.shape()[0] != 1)) ctx.fail("input must be [C] or [1, C]");
    std::string action = ctx.attrString("case_change_action", "NONE");
    if (action != "NONE" && action != "LOWER" && action != "UPPER") ctx.fail("unknown case_change_action '" + action + "'");
    bool caseSensitive = ctx.attrInt("is_case_sensitive", 0) != 0;
    std::set<std::string> stopwords;
    for (const std::string& w : ctx.node().attrStrings("stopwords")) stopwords.insert(caseSensitive ? w : mapCase(w, false));

    std::vector<std::string> kept;
    for (const std::string& word : x.values<std::string>()) {
        if (stopwords.count(caseSensitive ? word : mapCase(word, false))) continue;
        kept.push_back(action == "NONE" ? word : mapCase(word, action == "UPPER"));
    }
    if (kept.empty()) kept.emplace_back();
    Shape shape = x.rank() == 2 ? Shape{1, static_cast<int64_t>(kept.size())} : Shape{static_cast<int64_t>(kept.size())};
    Tensor out(DType::String, shape);
    std::copy(kept.begin(), kept.end(), out.data<std::string>());
    ctx.setOutput(0, std::move(out));
}

using Gram = std::vector<int64_t>;

void tfIdfVectorizer(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t minGram = ctx.attrInt("min_gram_length", 1), maxGram = ctx.attrInt("max_gram_length", 1);
    int64_t maxSkip = ctx.attrInt("max_skip_count", 0);
    std::string mode = ctx.attrString("mode", "TF");
    std::vector<int64_t> counts = ctx.attrInts("ngram_counts"), indexes = ctx.attrInts("ngram_indexes");
    std::vector<float> weights = ctx.attrFloats("weights");
    if (minGram < 1 || maxGram < minGram || maxSkip < 0) ctx.fail("invalid gram lengths or max_skip_count");
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF") ctx.fail("unknown mode '" + mode + "'");

    // Tokens become int64: the values themselves, or for strings their index among pool_strings (-1 if absent).
    std::vector<int64_t> pool;
    std::map<std::string, int64_t> stringIds;
    bool strings = x.dtype() == DType::String;
    if (strings) {
        std::vector<std::string> poolStrings = ctx.node().attrStrings("pool_strings");
        for (const std::string& s : poolStrings) {
            auto [it, inserted] = stringIds.emplace(s, static_cast<int64_t>(stringIds.size()));
            pool.push_back(it->second);
        }
    } else {
        pool = ctx.attrInts("pool_int64s");
    }

    std::map<Gram, int64_t> gramToOutput;
    int64_t outputSize = 0;
    size_t gramNumber = 0;
    for (size_t level = 0; level < counts.size(); ++level) {
        auto n = static_cast<int64_t>(level + 1);
        int64_t begin = counts[level];
        int64_t end = level + 1 < counts.size() ? counts[level + 1] : static_cast<int64_t>(pool.size());
        if (begin < 0 || end > static_cast<int64_t>(pool.size()) || begin > end || (end - begin) % n != 0)
            ctx.fail("ngram_counts do not match the pool");
        for (int64_t at = begin; at < end; at += n, ++gramNumber) {
            if (gramNumber >= indexes.size()) ctx.fail("ngram_indexes has too few entries");
            if (indexes[gramNumber] < 0) ctx.fail("ngram_indexes must not be negative");
            gramToOutput[Gram(pool.begin() + at, pool.begin() + at + n)] = indexes[gramNumber];
            outputSize = std::max(outputSize, indexes[gramNumber] + 1);
        }
    }

    if (x.rank() != 1 && x.rank() != 2) ctx.fail("input must be [C] or [N, C]");
    int64_t rows = x.rank() == 2 ? x.shape()[0] : 1, cols = x.shape().back();
    std::vector<int64_t> tokens(static_cast<size_t>(x.numel()));
    for (int64_t i = 0; i < x.numel(); ++i) {
        if (!strings) tokens[static_cast<size_t>(i)] = x.elementAsInt(i);
        else {
            auto it = stringIds.find(x.data<std::string>()[i]);
            tokens[static_cast<size_t>(i)] = it == stringIds.end() ? -1 : it->second;
        }
    }

    Tensor out(DType::F32, x.rank() == 2 ? Shape{rows, outputSize} : Shape{outputSize});
    float* y = out.data<float>();
    std::vector<int64_t> freq(static_cast<size_t>(outputSize));
    for (int64_t r = 0; r < rows; ++r) {
        std::fill(freq.begin(), freq.end(), 0);
        const int64_t* row = &tokens[static_cast<size_t>(r * cols)];
        auto count = [&](const Gram& g) {
            auto it = gramToOutput.find(g);
            if (it != gramToOutput.end()) ++freq[static_cast<size_t>(it->second)];
        };
        for (int64_t start = 0; start < cols; ++start) {
            if (minGram == 1) count(Gram{row[start]});  // unigrams are counted once, whatever the skip
            for (int64_t skip = 0; skip <= maxSkip && maxGram >= 2; ++skip) {
                Gram g{row[start]};
                for (int64_t n = 2; n <= maxGram; ++n) {
                    int64_t pos = start + (n - 1) * (skip + 1);
                    if (pos >= cols) break;
                    g.push_back(row[pos]);
                    if (n >= minGram) count(g);
                }
            }
        }
        for (int64_t k = 0; k < outputSize; ++k) {
            double w = static_cast<size_t>(k) < weights.size() ? weights[static_cast<size_t>(k)] : 1.0;
            double f = static_cast<double>(freq[static_cast<size_t>(k)]);
            double v = mode == "TF" ? f : mode == "IDF" ? (f > 0 ? w : 0.0) : f * w;
            y[r * outputSize + k] = static_cast<float>(v);
        }
    }
    ctx.setOutput(0, std::move(out));
}

}  // namespace

NPUWB_KERNEL("StringNormalizer", stringNormalizer);
NPUWB_KERNEL("TfIdfVectorizer", tfIdfVectorizer);

}  // namespace npuwb
