#include "agent-client/AgentClient.h"

#include "ssh/ShellQuote.h"
#include "ssh/SshSession.h"
#include "npuwb/Error.h"

namespace npuwb::remote {

nlohmann::json toJson(const RemoteJob& job) {
    nlohmann::json j{{"model", job.model},   {"backend", job.backend}, {"runs", job.runs},
                     {"warmup", job.warmup}, {"threads", job.threads}, {"seed", job.seed},
                     {"telemetryIntervalMs", job.telemetryIntervalMs}};
    j["inputShapes"] = nlohmann::json::object();
    for (const auto& [name, dims] : job.inputShapes) j["inputShapes"][name] = dims;
    return j;
}

AgentClient::AgentClient(SshSession& session, AgentInstall install) : session_(session), install_(std::move(install)) {}

std::string AgentClient::command(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"env", "LD_LIBRARY_PATH=" + install_.libDir, "NPUWB_PLUGIN_PATH=" + install_.pluginDir,
                                  install_.executable};
    argv.insert(argv.end(), args.begin(), args.end());
    // `$$` is the shell sshd started; exec keeps that pid for the agent, so a cancel can kill exactly it.
    return "printf '{\"event\":\"started\",\"pid\":%d}\\n' \"$$\"; exec " + shellCommand(argv);
}

namespace {
std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    if (s.size() > 2000) s = s.substr(s.size() - 2000);
    return s;
}

ErrorKind kindFromAgent(const std::string& kind) {
    if (kind == "invalid-input" || kind == "InvalidInput" || kind == "invalid_input") return ErrorKind::InvalidInput;
    if (kind == "unsupported" || kind == "Unsupported") return ErrorKind::Unsupported;
    if (kind == "io" || kind == "Io") return ErrorKind::Io;
    if (kind == "cancelled" || kind == "Cancelled") return ErrorKind::Cancelled;
    if (kind == "internal" || kind == "Internal") return ErrorKind::Internal;
    return ErrorKind::Io;
}

// Splits the agent's stdout into lines and hands each complete JSON line on.
class LineReader {
public:
    explicit LineReader(std::function<void(const nlohmann::json&)> onObject) : onObject_(std::move(onObject)) {}
    void feed(std::string_view data) {
        buffer_.append(data);
        size_t nl;
        while ((nl = buffer_.find('\n')) != std::string::npos) {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.empty()) continue;
            auto j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded() || !j.is_object())
                noise_ += line + "\n";  // not protocol: kept for the error message
            else
                onObject_(j);
        }
    }
    const std::string& noise() const { return noise_; }
    std::string rest() const { return buffer_; }

private:
    std::function<void(const nlohmann::json&)> onObject_;
    std::string buffer_, noise_;
};
}  // namespace

nlohmann::json AgentClient::runForOneObject(const std::vector<std::string>& args) {
    nlohmann::json result;
    LineReader reader([&](const nlohmann::json& j) {
        if (j.value("event", "") != "started") result = j;
    });
    ExecIo io;
    io.onStdout = [&](std::string_view d) { reader.feed(d); };
    ExecResult r = session_.exec(command(args), io);
    reader.feed("\n");
    if (result.is_object() && result.value("event", "") == "error")
        fail(kindFromAgent(result.value("kind", "")),
             "board " + session_.describe() + ": agent " + args[0] + ": " + result.value("message", "unknown error"));
    if (r.exitStatus != 0 || !result.is_object())
        fail(ErrorKind::Io, "board " + session_.describe() + ": `npuwb-agent " + args[0] + "` failed (exit status " +
                                std::to_string(r.exitStatus) + "): " + trimmed(r.err + reader.noise()));
    return result;
}

AgentVersion AgentClient::version() {
    nlohmann::json j = runForOneObject({"version"});
    AgentVersion v;
    v.raw = j;
    v.version = j.value("version", "");
    v.protocol = j.value("protocol", 0);
    v.arch = j.value("arch", "");
    if (j.value("agent", "") != "npuwb-agent")
        fail(ErrorKind::Io, "board " + session_.describe() + ": " + install_.executable + " is not npuwb-agent");
    if (v.protocol != kAgentProtocol)
        fail(ErrorKind::Unsupported, "board " + session_.describe() + ": the agent speaks protocol " +
                                         std::to_string(v.protocol) + ", this program " +
                                         std::to_string(kAgentProtocol) + "; deploy again");
    return v;
}

nlohmann::json AgentClient::probe() { return runForOneObject({"probe"}); }

Report AgentClient::run(const RemoteJob& job, const AgentEvents& events, int timeoutSec) {
    bool haveReport = false;
    Report report;
    nlohmann::json error;
    int pid = 0;
    LineReader reader([&](const nlohmann::json& j) {
        const std::string ev = j.value("event", "");
        if (ev == "started") {
            pid = j.value("pid", 0);
            if (events.started) events.started(pid);
        } else if (ev == "progress") {
            if (events.progress) events.progress(j);
        } else if (ev == "telemetry") {
            if (events.telemetry) events.telemetry(j);
        } else if (ev == "report" && j.contains("report")) {
            report = reportFromJson(j["report"]);
            haveReport = true;
        } else if (ev == "error") {
            error = j;
        }
    });
    ExecIo io;
    io.stdinData = toJson(job).dump() + "\n";
    io.onStdout = [&](std::string_view d) { reader.feed(d); };
    std::string stderrText;
    io.onStderr = [&](std::string_view d) {
        stderrText.append(d);
        if (stderrText.size() > 65536) stderrText.erase(0, stderrText.size() - 65536);
    };
    io.idleTimeoutMs = timeoutSec > 0 ? timeoutSec * 1000 : 0;
    ExecResult r;
    try {
        r = session_.exec(command({"run", "-"}), io);
    } catch (const Error&) {
        // cancelled or timed out: do not leave the agent running on the board
        if (pid > 0 && session_.connected()) {
            try {
                ExecIo quick;
                quick.idleTimeoutMs = 3000;
                session_.exec("kill " + std::to_string(pid) + " 2>/dev/null", quick);
            } catch (const Error&) {
            }
        }
        throw;
    }
    reader.feed("\n");
    if (error.is_object())
        fail(kindFromAgent(error.value("kind", "")),
             "board " + session_.describe() + ": agent run of " + job.model + ": " + error.value("message", "unknown error"));
    if (!haveReport) {
        const std::string how = r.exitStatus < 0 ? "was killed or lost (no exit status)"
                                                 : "exited with status " + std::to_string(r.exitStatus);
        fail(ErrorKind::Io, "board " + session_.describe() + ": the agent " + how + " before sending a report" +
                                (trimmed(stderrText + reader.noise()).empty() ? "" : ": " + trimmed(stderrText + reader.noise())));
    }
    return report;
}

}  // namespace npuwb::remote
