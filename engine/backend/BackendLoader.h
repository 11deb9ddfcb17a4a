#pragma once
// Loads backend plugins (npuwb/sdk/Backend.h) from the plugin folders.
#include <memory>
#include <string>

#include "npuwb/sdk/Backend.h"

namespace npuwb {

/// Loads a backend by name ("cpu-onednn") from the plugin folders: $NPUWB_PLUGIN_PATH (colon-separated), the
/// folder `plugins` next to the engine library's folder (`<prefix>/lib/npuwb/plugins` when installed) and the
/// build tree. Throws Error(Unsupported) naming every place it looked, or the version mismatch.
std::shared_ptr<Backend> loadBackend(const std::string& name);

}  // namespace npuwb
