#include "RunOptionsCli.h"

#include <iostream>

#include "npuwb/Session.h"

namespace npuwb::cli {

void addExecutorOptions(CLI::App* cmd, ExecutorOptions& executor, const std::string& what) {
    // Every command adds these options at start-up: look for plugins once.
    static const std::string choices = [] {
        std::string text = std::string(kAutoBackend) + " (the fastest backend found, here " +
                           resolveBackendName(kAutoBackend) + "), " + kReferenceBackend +
                           " (the single-threaded reference kernels, the oracle)";
        for (const auto& name : availableBackends()) text += ", " + name;
        return text;
    }();
    const std::string help = "what " + what + " on: " + choices;
    cmd->add_option("--backend", executor.backend, help)->capture_default_str();
    cmd->add_option("--threads", executor.threads, "backend worker threads (0: physical cores; the reference kernels "
                                                   "use 1)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1024));
}

void addSeedOption(CLI::App* cmd, uint64_t& seed) {
    cmd->add_option("--seed", seed, "seed for generated inputs")->capture_default_str();
}

ExecutorOptions usableExecutor(const ExecutorOptions& requested) {
    std::string warning;
    ExecutorOptions usable = requested;
    usable.backend = usableBackendName(requested.backend, warning);
    if (!warning.empty()) std::cerr << "warning: " << warning << "\n";
    return usable;
}

}  // namespace npuwb::cli
