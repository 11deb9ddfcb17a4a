#pragma once
// The options every command that runs a model shares, bound straight to the engine's option types
// (npuwb/RunOptions.h) so their defaults are the engine's: --backend/--threads (ExecutorOptions), --seed, and
// enum options named by the engine's name functions.
#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "npuwb/RunOptions.h"

namespace npuwb::cli {

/// --backend and --threads. `what` says what runs on them ("the model", "the proofs", ...).
void addExecutorOptions(CLI::App* cmd, ExecutorOptions& executor, const std::string& what);
/// --seed for generated inputs.
void addSeedOption(CLI::App* cmd, uint64_t& seed);
/// The executor to use: the backend resolved ("auto"), or the reference kernels with a warning on stderr when the
/// plugin cannot be loaded (missing, built for another interface version).
ExecutorOptions usableExecutor(const ExecutorOptions& requested);

/// An option whose text names an enum value through the engine's name functions (errors list the choices).
template <class E>
CLI::Option* addNamedOption(CLI::App* cmd, const std::string& flags, E& target, E (*fromName)(std::string_view),
                            std::string_view (*toName)(E), const std::string& help) {
    const auto set = [&target, fromName](const std::string& text) { target = fromName(text); };
    return cmd->add_option_function<std::string>(flags, set, help)->default_str(std::string(toName(target)));
}

}  // namespace npuwb::cli
