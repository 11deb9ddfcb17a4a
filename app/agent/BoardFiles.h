#pragma once
// Reading a board's sysfs/procfs files. Every path is taken under a root (env NPUWB_SYSFS_ROOT, default "/") so
// tests can point the agent at a fake tree. A missing or unreadable file is "absent" (nullopt), never an error:
// boards differ in what their kernels expose.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npuwb::agent {

class BoardFiles {
public:
    /// Root from NPUWB_SYSFS_ROOT, else "/".
    static BoardFiles fromEnvironment();
    explicit BoardFiles(std::string root);

    const std::string& root() const { return root_; }
    /// `path` ("/sys/...") under the root.
    std::string resolve(const std::string& path) const;

    bool exists(const std::string& path) const;
    /// Whole file, trailing whitespace removed.
    std::optional<std::string> readText(const std::string& path) const;
    /// First integer in the file ("1800000\n").
    std::optional<int64_t> readInt(const std::string& path) const;
    /// Whitespace-separated words ("performance schedutil ...").
    std::vector<std::string> readWords(const std::string& path) const;
    /// Entry names in a folder, sorted naturally (policy4 before policy10); empty when absent.
    std::vector<std::string> list(const std::string& folder) const;
    /// The first of `paths` that exists, as given (unresolved).
    std::optional<std::string> firstExisting(const std::vector<std::string>& paths) const;

private:
    std::string root_;
};

/// "0-3,6" -> {0,1,2,3,6}; malformed parts are skipped.
std::vector<int> parseCpuList(const std::string& text);
/// Sort key that orders "cpu2" before "cpu10".
bool naturalLess(const std::string& a, const std::string& b);

}  // namespace npuwb::agent
