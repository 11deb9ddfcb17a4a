#include "passes/Pass.h"

#include <algorithm>

#include "npuwb/Error.h"

namespace npuwb::passes {

PassRegistry& PassRegistry::instance() {
    static PassRegistry registry;
    return registry;
}

bool PassRegistry::add(Factory factory) {
    factories_.push_back(factory);
    return true;
}

std::vector<std::string> PassRegistry::names() const {
    std::vector<std::string> out;
    for (Factory f : factories_) out.push_back(f()->name());
    std::sort(out.begin(), out.end());
    return out;
}

std::unique_ptr<Pass> PassRegistry::create(const std::string& name) const {
    for (Factory f : factories_) {
        auto p = f();
        if (p->name() == name) return p;
    }
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    failInput("unknown pass '" + name + "' (known: " + known + ")");
}

std::vector<std::unique_ptr<Pass>> PassRegistry::createAll() const {
    std::vector<std::unique_ptr<Pass>> out;
    for (Factory f : factories_) out.push_back(f());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a->name() < b->name(); });
    return out;
}

std::vector<PassInfo> listPasses() {
    std::vector<PassInfo> out;
    for (const auto& p : PassRegistry::instance().createAll())
        out.push_back({p->name(), p->description(), p->guideSection(), p->runsByDefault()});
    return out;
}

}  // namespace npuwb::passes
