#include "OnednnWeightCache.h"

namespace npuwb::onednn {

struct WeightCache::Entry {
    dnnl::memory memory;
    int64_t bytes = 0;
    std::shared_ptr<std::atomic<int64_t>> counter;  // the cache's, which may be gone first
    ~Entry() { *counter -= bytes; }
};

dnnl::memory WeightCache::get(const std::string& key, const dnnl::memory::desc& desc, const dnnl::engine& engine,
                              const std::function<void(dnnl::memory&)>& fill, ConstantHolders& holders) {
    std::lock_guard lock(mutex_);
    std::vector<std::weak_ptr<Entry>>& forKey = entries_[key];
    std::erase_if(forKey, [](const std::weak_ptr<Entry>& e) { return e.expired(); });
    for (const std::weak_ptr<Entry>& weak : forKey)
        if (std::shared_ptr<Entry> e = weak.lock(); e && e->memory.get_desc() == desc) {
            holders.push_back(e);
            return e->memory;
        }
    auto e = std::make_shared<Entry>();
    e->counter = bytes_;  // before fill(), which may throw: the entry then subtracts its 0 bytes
    e->memory = dnnl::memory(desc, engine);
    fill(e->memory);
    e->bytes = static_cast<int64_t>(desc.get_size());
    *bytes_ += e->bytes;
    forKey.push_back(e);
    holders.push_back(e);
    return e->memory;
}

}  // namespace npuwb::onednn
