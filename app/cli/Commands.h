#pragma once
// Each command lives in its own file and registers a CLI11 subcommand here. Commands report failure by
// throwing npuwb::Error; main() turns that into a message on stderr and the exit code (1 user, 2 internal).
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"

namespace npuwb::cli {

/// Each command file registers its set-up function at start-up, so adding a command touches only its own file:
///   static void addFooCommand(CLI::App& app) { ... }
///   NPUWB_CLI_COMMAND(addFooCommand);
using CommandSetup = void (*)(CLI::App&);
std::vector<CommandSetup>& registeredCommands();
inline bool registerCommand(CommandSetup setup) {
    registeredCommands().push_back(setup);
    return true;
}
#define NPUWB_CLI_COMMAND(SETUP) [[maybe_unused]] static const bool npuwbCliRegistered_##SETUP = ::npuwb::cli::registerCommand(SETUP)

/// Loads a model for a command, turning every failure into an error that names the file.
std::shared_ptr<const Model> loadModelForCommand(const std::string& path);
/// "1.2 MB", "340 KB"
std::string humanBytes(int64_t bytes);
/// "1.82 G", "310 M"
std::string humanCount(int64_t n);

}  // namespace npuwb::cli
