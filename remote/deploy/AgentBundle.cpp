#include "deploy/AgentBundle.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "npuwb/Error.h"

namespace npuwb::remote {

namespace fs = std::filesystem;

std::string hostArch() {
    utsname u{};
    if (uname(&u) != 0) return "unknown";
    return u.machine;
}

std::string runningTreeRoot() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) fail(ErrorKind::Internal, "cannot find the running executable: " + ec.message());
    return exe.parent_path().parent_path().string();
}

namespace {
bool startsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

void addLibraries(AgentBundle& bundle, const fs::path& folder, const std::string& relFolder,
                  bool (*wanted)(const std::string&)) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return;
    std::vector<fs::directory_entry> entries;
    for (const auto& e : fs::directory_iterator(folder, ec)) entries.push_back(e);
    std::sort(entries.begin(), entries.end());
    for (const auto& e : entries) {
        const std::string name = e.path().filename().string();
        if (!wanted(name)) continue;
        BundleFile f;
        f.relativePath = relFolder + "/" + name;
        if (e.is_symlink(ec)) {
            const fs::path target = fs::read_symlink(e.path(), ec);
            if (!ec && !target.has_parent_path()) {  // same-folder link (libfoo.so.0 -> libfoo.so.0.1.0)
                f.linkTo = target.string();
                bundle.files.push_back(f);
                continue;
            }
        }
        if (!e.is_regular_file(ec)) continue;
        f.localPath = fs::canonical(e.path(), ec).string();
        f.executable = true;
        bundle.files.push_back(f);
    }
}
}  // namespace

AgentBundle scanAgentBundle(const std::string& root, const std::string& arch) {
    AgentBundle b;
    b.arch = arch;
    b.root = root;
    const fs::path agent = fs::path(root) / "bin" / "npuwb-agent";
    std::error_code ec;
    if (!fs::is_regular_file(agent, ec))
        failInput("no agent for " + arch + ": " + agent.string() + " does not exist (build the npuwb-agent target)");
    b.files.push_back({.relativePath = "bin/npuwb-agent",
                       .localPath = fs::canonical(agent).string(),
                       .linkTo = "",
                       .executable = true});
    addLibraries(b, fs::path(root) / "lib", "lib", [](const std::string& n) {
        return startsWith(n, "libnpuwb-") && n.find(".so") != std::string::npos;  // engine, backends, runtimes
    });
    // Plugins (backends, model runtimes): a build tree keeps them in lib/plugins, an installed tree in
    // <prefix>/lib/npuwb/plugins; on the board they always land in lib/plugins.
    for (const char* plugins : {"lib/plugins", NPUWB_INSTALL_PLUGINDIR})
        addLibraries(b, fs::path(root) / plugins, "lib/plugins", [](const std::string& n) {
            return (startsWith(n, "libnpuwb-backend-") || startsWith(n, "libnpuwb-runtime-")) && n.ends_with(".so");
        });
    return b;
}

AgentBundle findAgentBundle(const std::string& arch, const std::string& agentDir) {
    if (arch == hostArch()) return scanAgentBundle(runningTreeRoot(), arch);
    std::string dir = agentDir;
    if (dir.empty())
        if (const char* env = std::getenv("NPUWB_AGENT_DIR")) dir = env;
    if (dir.empty())
        failInput("the board is " + arch + " but this machine is " + hostArch() +
                  ": give an agent built for " + arch + " with --agent-dir DIR (DIR/" + arch +
                  "/bin/npuwb-agent) or NPUWB_AGENT_DIR");
    return scanAgentBundle((fs::path(dir) / arch).string(), arch);
}

}  // namespace npuwb::remote
