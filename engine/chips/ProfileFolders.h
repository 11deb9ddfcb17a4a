#pragma once
// Profiles (chips, devices) found by name in a list of folders: the names on offer and the file a name picks.
// Chip and device profiles share this lookup so both say the same things when a name is unknown.
#include <string>
#include <vector>

namespace npuwb {

/// Stems of the *.json files in `folders`, sorted, without repeats (missing folders are skipped).
std::vector<std::string> profileNamesIn(const std::vector<std::string>& folders);

/// The first `folders/<lower-case name>.json` that is a regular file. Throws InvalidInput when none is, naming
/// `kind` ("chip", "device profile"), the profiles on offer, the folders searched and `envVar` to add one.
std::string findProfileFile(const std::vector<std::string>& folders, const std::string& name, const std::string& kind,
                            const std::string& envVar);

}  // namespace npuwb
