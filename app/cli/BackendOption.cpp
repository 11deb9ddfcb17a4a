#include "BackendOption.h"

#include <iostream>

#include "npuwb/Session.h"
#include "npuwb/Error.h"

namespace npuwb::cli {

void addBackendOptions(CLI::App* cmd, std::string& backend, int& threads) {
    std::string names = "reference, auto";
    for (const auto& n : availableBackends()) names += ", " + n;
    cmd->add_option("--backend", backend, "execution backend: " + names)->capture_default_str();
    cmd->add_option("--threads", threads, "worker threads (0: physical cores; the reference executor uses 1)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1024));
}

std::string usableBackend(const std::string& requested) {
    std::string warning;
    std::string name = usableBackendName(requested, warning);
    if (!warning.empty()) std::cerr << "warning: " << warning << "\n";
    return name;
}

}  // namespace npuwb::cli
