#pragma once
// Whole-model runtimes (npuwb/sdk/ModelRuntime.h) for callers: which are installed, and running a compiled model
// file with one of them (`npuwb-cli profile MODEL.rknn`, later the board agent).
#include <string>
#include <vector>

#include "npuwb/Report.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb {

/// Names of the runtime plugins found (libnpuwb-runtime-<name>.so), in the folders backends are searched in:
/// $NPUWB_PLUGIN_PATH (colon-separated), `plugins` next to the engine library, the build tree.
std::vector<std::string> availableModelRuntimes();
/// The runtime that runs `modelPath`, by its extension (".rknn" -> "rknpu", case-insensitive) among the runtimes
/// found; empty when none claims it (a plugin that fails to load claims nothing). Never throws.
std::string modelRuntimeForFile(const std::string& modelPath);
/// Empty when runtime `name` loads and its vendor library is usable here, else why not. Never throws.
std::string modelRuntimeUnavailableReason(const std::string& name, const ModelRunOptions& options = {});
/// Loads runtime `name` and profiles `modelPath` with it. Throws Error(Unsupported) naming every folder searched when
/// the plugin is missing or was built for another interface version, and whatever the runtime throws.
Report runModelFile(const std::string& name, const std::string& modelPath, const ModelRunOptions& options);

}  // namespace npuwb
