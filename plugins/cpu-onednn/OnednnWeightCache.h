#pragma once
// The packed constants of one backend instance (weights, biases, constant operands in oneDNN's layouts), shared by
// every segment it builds. Compiling the same graph again, for another execution context (multi-context runs on the
// CPU), finds each one here and packs nothing: the contexts read one copy. Entries are written once, under the lock,
// before any segment that uses them exists, and only read afterwards, so concurrent runs share them safely. The
// segments own the entries (the cache only looks them up): a plan dropped for new input shapes frees its constants as
// before.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace npuwb::onednn {

/// What a segment keeps to hold its shared constants alive.
using ConstantHolders = std::vector<std::shared_ptr<const void>>;

class WeightCache {
public:
    /// The memory stored under `key` with layout `desc`; when there is none alive, a new one that `fill` writes.
    /// `key` names what the constant is (the nodes and its role there), so equal keys hold equal values. The entry
    /// goes into `holders` (the segment's), which keeps it alive.
    dnnl::memory get(const std::string& key, const dnnl::memory::desc& desc, const dnnl::engine& engine,
                     const std::function<void(dnnl::memory&)>& fill, ConstantHolders& holders);
    /// Bytes of the entries alive now, each counted once however many segments share it.
    int64_t bytes() const { return *bytes_; }

private:
    struct Entry;
    std::mutex mutex_;
    std::map<std::string, std::vector<std::weak_ptr<Entry>>> entries_;
    std::shared_ptr<std::atomic<int64_t>> bytes_ = std::make_shared<std::atomic<int64_t>>(0);
};

}  // namespace npuwb::onednn
