#include "BackendOption.h"

#include <iostream>

#include "backend/Backend.h"
#include "runtime/Session.h"
#include "util/Error.h"

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
    const std::string name = resolveBackendName(requested);
    if (name == "reference") return name;
    try {
        loadBackend(name);
        return name;
    } catch (const Error& e) {
        std::cerr << "warning: " << e.what() << "; running on the reference executor\n";
        return "reference";
    }
}

}  // namespace npuwb::cli
