#include "PerfMode.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "BoardState.h"
#include "npuwb/AtomicFile.h"

namespace npuwb::agent {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kPerformance = "performance";

bool isPermissionError(int err) { return err == EACCES || err == EPERM || err == EROFS; }

[[noreturn]] void failWrite(const std::string& file, int err, const std::string& what) {
    const std::string message = "cannot " + what + " '" + file + "': " + std::strerror(err) +
                                (isPermissionError(err) ? " (run perf-mode as root, e.g. with sudo)" : "");
    if (isPermissionError(err)) throw PermissionDenied(message);
    fail(ErrorKind::Io, message);
}

/// 0 or the errno of opening `path` for writing (nothing is written).
int writableError(const std::string& path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ::close(fd);
    return 0;
}

/// Writes a governor name like `echo performance > .../governor` does; 0 or errno.
int writeGovernor(const std::string& path, const std::string& governor) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return errno;
    const std::string text = governor + "\n";
    ssize_t n = ::write(fd, text.data(), text.size());
    int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
    if (::close(fd) != 0 && err == 0) err = errno;
    return err;
}

struct GovernorFile {
    std::string path;  // on the board ("/sys/...")
    std::string governor;
    bool offersPerformance = true;
};

std::vector<GovernorFile> governorFiles(const BoardFiles& files) {
    std::vector<GovernorFile> out;
    for (const auto& p : cpuPolicies(files))
        if (p.governor)
            out.push_back({.path = p.governorFile(),
                           .governor = *p.governor,
                           .offersPerformance = p.availableGovernors.empty() ||
                                                std::count(p.availableGovernors.begin(), p.availableGovernors.end(),
                                                           kPerformance) > 0});
    for (const auto& d : devfreqDevices(files))
        if (d.governor)
            out.push_back({.path = d.governorFile(),
                           .governor = *d.governor,
                           .offersPerformance = d.availableGovernors.empty() ||
                                                std::count(d.availableGovernors.begin(), d.availableGovernors.end(),
                                                           kPerformance) > 0});
    return out;
}

json loadState(const std::string& stateFile) {
    std::string problem;
    try {
        json state = json::parse(readFile(stateFile));
        if (state.is_object() && state.contains("governors") && state.at("governors").is_object()) return state;
        problem = "no 'governors' object";
    } catch (const json::exception& e) {
        problem = e.what();
    }
    failInput("perf-mode state file '" + stateFile + "' is damaged (" + problem + "); restore the governors by hand");
}

void checkSameRoot(const json& state, const BoardFiles& files, const std::string& stateFile) {
    if (state.value("sysfsRoot", "/") != files.root())
        failInput("perf-mode state file '" + stateFile + "' belongs to sysfs root '" + state.value("sysfsRoot", "/") +
                  "', not '" + files.root() + "'");
}

}  // namespace

std::string perfModeStateFile() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/npuwb/perf-mode.json";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : "/tmp") + "/.cache/npuwb/perf-mode.json";
}

json perfModeOn(const BoardFiles& files, const std::string& stateFile) {
    std::vector<GovernorFile> governors = governorFiles(files);
    std::error_code ec;
    const bool alreadyOn = fs::exists(stateFile, ec);
    // A second "on" keeps the governors saved by the first: they are the ones to restore.
    json saved = json::object();
    if (alreadyOn) {
        json state = loadState(stateFile);
        checkSameRoot(state, files, stateFile);
        saved = state.at("governors");
    }
    json skipped = json::array();
    std::vector<GovernorFile*> toChange;
    for (auto& g : governors) {
        if (!saved.contains(g.path)) saved[g.path] = g.governor;
        if (!g.offersPerformance)
            skipped.push_back({{"file", g.path}, {"governor", g.governor}, {"reason", "no 'performance' governor offered"}});
        else if (g.governor != kPerformance)
            toChange.push_back(&g);
    }
    // Refuse before touching anything when a file cannot be written.
    for (const GovernorFile* g : toChange)
        if (int err = writableError(files.resolve(g->path))) failWrite(files.resolve(g->path), err, "change the governor in");

    const fs::path stateDir = fs::path(stateFile).parent_path();
    fs::create_directories(stateDir, ec);
    if (ec) failWrite(stateFile, ec.value(), "save the current governors to");
    if (::access(stateDir.c_str(), W_OK) != 0) failWrite(stateFile, errno, "save the current governors to");
    writeFileAtomically(stateFile, json{{"sysfsRoot", files.root()}, {"governors", saved}}.dump(2) + "\n");

    json changed = json::array();
    for (size_t i = 0; i < toChange.size(); ++i) {
        const GovernorFile& g = *toChange[i];
        if (int err = writeGovernor(files.resolve(g.path), kPerformance)) {
            // Roll back what this call changed, so a refusal leaves the board as it was.
            for (size_t k = 0; k < i; ++k) writeGovernor(files.resolve(toChange[k]->path), toChange[k]->governor);
            if (!alreadyOn) fs::remove(stateFile, ec);
            failWrite(files.resolve(g.path), err, "change the governor in");
        }
        changed.push_back({{"file", g.path}, {"from", g.governor}, {"to", kPerformance}});
    }
    return {{"perfMode", "on"}, {"stateFile", stateFile}, {"changed", changed}, {"skipped", skipped},
            {"governorFiles", governors.size()}};
}

json perfModeOff(const BoardFiles& files, const std::string& stateFile) {
    std::error_code ec;
    if (!fs::exists(stateFile, ec))
        return {{"perfMode", "off"}, {"stateFile", stateFile}, {"restored", json::array()},
                {"note", "perf mode was not on (no state file)"}};
    json state = loadState(stateFile);
    checkSameRoot(state, files, stateFile);
    std::map<std::string, std::string> current;
    for (const auto& g : governorFiles(files)) current[g.path] = g.governor;
    std::vector<std::pair<std::string, std::string>> toRestore;
    for (const auto& [path, governor] : state.at("governors").items()) {
        auto now = current.find(path);
        if (now != current.end() && now->second != governor.get<std::string>())
            toRestore.emplace_back(path, governor.get<std::string>());
    }
    for (const auto& [path, governor] : toRestore)
        if (int err = writableError(files.resolve(path))) failWrite(files.resolve(path), err, "restore the governor in");
    json restored = json::array();
    for (const auto& [path, governor] : toRestore) {
        if (int err = writeGovernor(files.resolve(path), governor)) failWrite(files.resolve(path), err, "restore the governor in");
        restored.push_back({{"file", path}, {"from", current[path]}, {"to", governor}});
    }
    if (!fs::remove(stateFile, ec) && ec) failWrite(stateFile, ec.value(), "remove");
    return {{"perfMode", "off"}, {"stateFile", stateFile}, {"restored", restored}};
}

}  // namespace npuwb::agent
