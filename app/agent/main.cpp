// npuwb-agent: the board side of NPU Workbench, run by the desktop over SSH. It speaks only JSON on stdout
// (app/agent/README.md, npuwb/AgentProtocol.h): one line per event, and {"event":"error",...} with exit code 1
// (user/board problem) or 2 (internal) on failure; a run stopped by SIGTERM/SIGHUP exits with 128 + the signal.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "AgentInfo.h"
#include "Job.h"
#include "JsonLines.h"
#include "PerfMode.h"
#include "Probe.h"
#include "StopSignals.h"
#include "npuwb/Error.h"

namespace {

using namespace npuwb::agent;

/// Deployed as a bundle (bin/npuwb-agent, lib/libnpuwb-engine.so, lib/plugins/libnpuwb-{backend,runtime}-*.so): the
/// engine looks for plugins in NPUWB_PLUGIN_PATH and beside itself in plugins/ folders, so add the bundle's lib/ too.
void addBundlePluginFolder() {
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return;
    const std::string lib = (exe.parent_path().parent_path() / "lib").string();
    const char* current = std::getenv("NPUWB_PLUGIN_PATH");
    const std::string value = current && *current ? std::string(current) + ":" + lib : lib;
    setenv("NPUWB_PLUGIN_PATH", value.c_str(), 1);
}

void emitError(std::string_view kind, const std::string& message) {
    emitEvent(npuwb::AgentError{.kind = std::string(kind), .message = message});
}

}  // namespace

int main(int argc, char** argv) {
    installStopHandlers();
    addBundlePluginFolder();

    CLI::App app{"npuwb-agent: runs and profiles models on a board for NPU Workbench; JSON lines on stdout.\n"
                 "The sysfs/procfs root is NPUWB_SYSFS_ROOT (default /)."};
    app.require_subcommand(1);
    auto* version = app.add_subcommand("version", "Agent name, version, protocol and architecture (one JSON line)");
    bool pretty = false;
    auto* probe = app.add_subcommand("probe", "Board description: CPU, memory, NPU driver/load, clocks, librknnrt");
    probe->add_flag("--pretty", pretty, "Indented JSON for people");
    std::string jobPath;
    auto* run = app.add_subcommand("run", "Run a job (JSON file, or - for stdin): progress, telemetry, report");
    run->add_option("job", jobPath, "Job file or -")->required();
    std::string mode;
    auto* perf = app.add_subcommand("perf-mode", "Set every cpufreq/devfreq governor to performance, or restore them");
    perf->add_option("state", mode, "on or off")->required()->check(CLI::IsMember({"on", "off"}));

    try {
        try {
            app.parse(argc, argv);
        } catch (const CLI::CallForHelp& e) {
            return app.exit(e);
        } catch (const CLI::ParseError& e) {
            emitError(errorKindName(npuwb::ErrorKind::InvalidInput), e.what());
            return 1;
        }
        const BoardFiles files = BoardFiles::fromEnvironment();
        if (*version) {
            emitLine(toJson(npuwb::AgentVersion{.version = kAgentVersion, .arch = machineArch()}));
        } else if (*probe) {
            const nlohmann::json j = probeBoard(files);
            if (pretty) std::cout << j.dump(2) << std::endl;
            else emitLine(j);
        } else if (*run) {
            startStopWatchdog(3000);  // a stop that the engine cannot see within 3 s ends the process anyway
            runJob(loadJob(jobPath), files);
        } else if (*perf) {
            const std::string stateFile = perfModeStateFile();
            emitLine(mode == "on" ? perfModeOn(files, stateFile) : perfModeOff(files, stateFile));
        }
    } catch (const PermissionDenied& e) {
        emitError("PermissionDenied", e.what());
        return 1;
    } catch (const npuwb::Error& e) {
        emitError(errorKindName(e.kind()), e.what());
        if (e.kind() == npuwb::ErrorKind::Cancelled && stopSignal() != 0) return stopExitCode();
        return e.kind() == npuwb::ErrorKind::Internal ? 2 : 1;
    } catch (const std::exception& e) {
        emitError(errorKindName(npuwb::ErrorKind::Internal), e.what());
        return 2;
    }
    return 0;
}
