#pragma once
// The files that make up the agent for one CPU architecture: bin/npuwb-agent, the engine and other libnpuwb-*.so*
// libraries in lib/, and the plugins (backends, model runtimes) in lib/plugins/ (from lib/npuwb/plugins/ in an
// installed tree). The host's own architecture comes from the build (or install) tree of the running program; other
// architectures from an agent folder laid out as DIR/<arch>/{bin,lib} (--agent-dir or $NPUWB_AGENT_DIR).
#include <optional>
#include <string>
#include <vector>

namespace npuwb::remote {

struct BundleFile {
    std::string relativePath;  // "bin/npuwb-agent", "lib/libnpuwb-engine.so.0", "lib/plugins/..."
    std::string localPath;     // the real file (symlinks resolved)
    std::string linkTo;        // non-empty: a symlink to this name in the same folder, nothing to upload
    bool executable = false;
};

struct AgentBundle {
    std::string arch;
    std::string root;  // local folder holding bin/ and lib/
    std::vector<BundleFile> files;
};

/// `uname -m` of this machine.
std::string hostArch();
/// The folder above the running executable's bin/ (the build tree or install prefix).
std::string runningTreeRoot();
/// Scans `root` for the agent's files. Throws Error(InvalidInput) naming the folder when bin/npuwb-agent is absent.
AgentBundle scanAgentBundle(const std::string& root, const std::string& arch);
/// The bundle for `arch`: the running tree when it is the host's arch, else agentDir/<arch> (agentDir empty:
/// $NPUWB_AGENT_DIR). Throws Error naming where it looked.
AgentBundle findAgentBundle(const std::string& arch, const std::string& agentDir);

}  // namespace npuwb::remote
