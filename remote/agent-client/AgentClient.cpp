#include "agent-client/AgentClient.h"

#include <fstream>
#include <optional>
#include <variant>

#include "ssh/ShellQuote.h"
#include "ssh/SshSession.h"
#include "npuwb/Error.h"

namespace npuwb::remote {

std::string agentJobLine(const AgentJob& job) { return toJson(job).dump() + "\n"; }

AgentJob agentMatmulJob(const ChipProfile& chip, const MatmulBenchOptions& bench, const std::string& runtime) {
    AgentJob job;
    job.runtime = runtime;
    AgentMatmulJob matmul{.chip = chip.name, .chipProfile = nlohmann::json(), .bench = bench};
    if (!chip.sourcePath.empty()) {
        std::ifstream file(chip.sourcePath);
        try {
            matmul.chipProfile = nlohmann::json::parse(file);
        } catch (const nlohmann::json::exception& e) {
            failInput("chip profile " + chip.sourcePath + ": " + e.what());
        }
    }
    job.matmul = matmul;
    return job;
}

AgentClient::AgentClient(SshSession& session, AgentInstall install) : session_(session), install_(std::move(install)) {}

std::string AgentClient::command(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"env", "LD_LIBRARY_PATH=" + install_.libDir, "NPUWB_PLUGIN_PATH=" + install_.pluginDir,
                                  install_.executable};
    argv.insert(argv.end(), args.begin(), args.end());
    // `$$` is the shell sshd started; exec keeps that pid for the agent, so a cancel can kill exactly it. The line
    // is the AgentStarted event (npuwb/AgentProtocol.h).
    return "printf '{\"event\":\"started\",\"pid\":%d}\\n' \"$$\"; exec " + shellCommand(argv);
}

namespace {
std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    if (s.size() > 2000) s = s.substr(s.size() - 2000);
    return s;
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

/// The event on a line, or nullopt for a line that is none (the version line, a probe). A malformed event is the
/// board's problem: Error(Io) naming the board.
std::optional<AgentEvent> eventOf(const nlohmann::json& line, const SshSession& session) {
    try {
        return agentEventFromJson(line);
    } catch (const Error& e) {
        fail(ErrorKind::Io, "board " + session.describe() + ": the agent sent a malformed line: " + e.what());
    }
}
}  // namespace

nlohmann::json AgentClient::runForOneObject(const std::vector<std::string>& args) {
    nlohmann::json result;
    LineReader reader([&](const nlohmann::json& j) {
        const std::optional<AgentEvent> event = eventOf(j, session_);
        if (!event || !std::holds_alternative<AgentStarted>(*event)) result = j;
    });
    ExecIo io;
    io.onStdout = [&](std::string_view d) { reader.feed(d); };
    ExecResult r = session_.exec(command(args), io);
    reader.feed("\n");
    const std::optional<AgentEvent> event = eventOf(result, session_);
    if (const auto* error = event ? std::get_if<AgentError>(&*event) : nullptr)
        fail(errorKindFromName(error->kind), "board " + session_.describe() + ": agent " + args[0] + ": " +
                                                 (error->message.empty() ? "unknown error" : error->message));
    if (r.exitStatus != 0 || !result.is_object())
        fail(ErrorKind::Io, "board " + session_.describe() + ": `npuwb-agent " + args[0] + "` failed (exit status " +
                                std::to_string(r.exitStatus) + "): " + trimmed(r.err + reader.noise()));
    return result;
}

AgentVersion AgentClient::version() {
    const nlohmann::json line = runForOneObject({"version"});
    AgentVersion v;
    try {
        v = agentVersionFromJson(line, "the agent's version line");
    } catch (const Error& e) {  // a malformed line is the board's problem, not the user's input
        fail(ErrorKind::Io, "board " + session_.describe() + ": " + e.what());
    }
    if (v.agent != kAgentName)
        fail(ErrorKind::Io, "board " + session_.describe() + ": " + install_.executable + " is not " + kAgentName);
    if (v.protocol != kAgentProtocolVersion)
        fail(ErrorKind::Unsupported, "board " + session_.describe() + ": the agent speaks protocol " +
                                         std::to_string(v.protocol) + ", this program " +
                                         std::to_string(kAgentProtocolVersion) + "; deploy again");
    return v;
}

nlohmann::json AgentClient::probe() { return runForOneObject({"probe"}); }

void AgentClient::runJob(const AgentJob& job, const AgentEvents& events, int timeoutSec,
                         const std::function<bool(AgentEvent&)>& takeResult) {
    bool answered = false;
    std::optional<AgentError> error;
    int pid = 0;
    LineReader reader([&](const nlohmann::json& j) {
        std::optional<AgentEvent> event = eventOf(j, session_);
        if (!event) return;
        if (const auto* started = std::get_if<AgentStarted>(&*event)) {
            pid = started->pid;
            if (events.started) events.started(pid);
        } else if (const auto* progress = std::get_if<AgentProgress>(&*event)) {
            if (events.progress) events.progress(*progress);
        } else if (const auto* telemetry = std::get_if<AgentTelemetry>(&*event)) {
            if (events.telemetry) events.telemetry(*telemetry);
        } else if (takeResult(*event)) {
            answered = true;
        } else if (const auto* failed = std::get_if<AgentError>(&*event)) {
            error = *failed;
        }
    });
    ExecIo io;
    io.stdinData = agentJobLine(job);
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
    const std::string what = job.matmul ? "matmul sweep" : "run of " + job.model;
    if (error)
        fail(errorKindFromName(error->kind), "board " + session_.describe() + ": agent " + what + ": " +
                                                 (error->message.empty() ? "unknown error" : error->message));
    if (!answered) {
        const std::string how = r.exitStatus < 0 ? "was killed or lost (no exit status)"
                                                 : "exited with status " + std::to_string(r.exitStatus);
        fail(ErrorKind::Io, "board " + session_.describe() + ": the agent " + how + " before sending a report" +
                                (trimmed(stderrText + reader.noise()).empty() ? "" : ": " + trimmed(stderrText + reader.noise())));
    }
}

Report AgentClient::run(const AgentJob& job, const AgentEvents& events, int timeoutSec) {
    std::optional<Report> report;
    runJob(job, events, timeoutSec, [&](AgentEvent& event) {
        auto* done = std::get_if<AgentReport>(&event);
        if (done) report = std::move(done->report);
        return done != nullptr;
    });
    return std::move(*report);
}

MatmulBenchResult AgentClient::runMatmul(const AgentJob& job, const AgentEvents& events, int timeoutSec) {
    std::optional<MatmulBenchResult> result;
    runJob(job, events, timeoutSec, [&](AgentEvent& event) {
        auto* done = std::get_if<AgentMatmulBench>(&event);
        if (done) result = std::move(done->result);
        return done != nullptr;
    });
    return std::move(*result);
}

}  // namespace npuwb::remote
