#pragma once
// The --backend / --threads options shared by `run` and `profile`.
#include <string>

#include <CLI/CLI.hpp>

namespace npuwb::cli {

void addBackendOptions(CLI::App* cmd, std::string& backend, int& threads);
/// The backend to use: `requested` resolved ("auto"), or "reference" with a warning on stderr when the plugin
/// cannot be loaded (missing, built for another interface version).
std::string usableBackend(const std::string& requested);

}  // namespace npuwb::cli
