// `npuwb-cli convert-rknn MODEL.onnx --target CHIP [--dataset LIST] [--preprocess PRE.json] [--from-quantization
//  REPORT] [--python PY] [--run | --script-only] -o OUT.rknn`: the hand-off to RKNN-Toolkit2 (npuwb/RknnConversion.h).
// Writes OUT.convert.py and OUT.dataset.txt; when PY imports rknn.api it runs the script (progress lines, Ctrl+C and
// --timeout cancel), else prints the exact command.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "Commands.h"
#include "InputShapeOption.h"
#include "RunOptionsCli.h"
#include "npuwb/DatasetList.h"
#include "npuwb/Error.h"
#include "npuwb/Preprocessing.h"
#include "npuwb/RknnConversion.h"

namespace npuwb::cli {

namespace {

struct ConvertRknnCliOptions {
    std::string model, target, dataset, preprocess, report, output;
    std::vector<std::string> inputShapes;
    std::optional<quant::Scheme> scheme;
    std::optional<quant::ObserverKind> observer;
    bool perTensor = false, requireRun = false, scriptOnly = false;
    std::string python = "python3";
    double timeoutSeconds = 0;  // 0: none
};

volatile sig_atomic_t interrupted = 0;
void onInterrupt(int) { interrupted = 1; }

struct ChildResult {
    bool started = false;  // exec succeeded (the program exists)
    int exitCode = -1;     // -1: killed by a signal
    bool timedOut = false;
    bool cancelled = false;
    std::string output;    // only when captured
};

// Runs argv with stdout+stderr on one pipe; each line goes to `onLine`. The child has its own process group, so
// Ctrl+C (SIGINT), SIGTERM or SIGHUP reach only this process, which stops the child once like the timeout does:
// SIGINT first (the script removes its temporary output), SIGKILL 10 s later.
ChildResult runChild(const std::vector<std::string>& argv, double timeoutSeconds,
                     const std::function<void(const std::string&)>& onLine) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) fail(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
    int execPipe[2];  // closes on a successful exec; carries errno otherwise
    if (::pipe2(execPipe, O_CLOEXEC) != 0) fail(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction handler {}, old[3] {};
    handler.sa_handler = onInterrupt;
    sigemptyset(&handler.sa_mask);
    interrupted = 0;
    for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &handler, &old[i]);
    const auto restoreHandlers = [&] {
        for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &old[i], nullptr);
    };
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);
        for (int s : kStopSignals) signal(s, SIG_DFL);
        ::dup2(fds[1], STDOUT_FILENO);
        ::dup2(fds[1], STDERR_FILENO);
        ::execvp(args[0], args.data());
        const int err = errno;
        [[maybe_unused]] ssize_t n = ::write(execPipe[1], &err, sizeof err);
        ::_exit(127);
    }
    ::close(fds[1]);
    ::close(execPipe[1]);
    ChildResult result;
    if (pid < 0) {
        restoreHandlers();
        ::close(fds[0]);
        ::close(execPipe[0]);
        fail(ErrorKind::Internal, std::string("fork: ") + std::strerror(errno));
    }
    int execErrno = 0;
    result.started = ::read(execPipe[0], &execErrno, sizeof execErrno) <= 0;
    ::close(execPipe[0]);
    const auto start = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> killAt;
    std::string pending;
    bool open = true;
    while (open) {
        struct pollfd p {fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, 200);
        if (ready > 0) {
            char buf[4096];
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n <= 0) {
                if (n < 0 && errno == EINTR) continue;
                open = false;
            } else {
                pending.append(buf, static_cast<size_t>(n));
                for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
                    onLine(pending.substr(0, nl));
            }
        }
        const auto now = std::chrono::steady_clock::now();
        const bool expired = timeoutSeconds > 0 && now - start > std::chrono::duration<double>(timeoutSeconds);
        if ((interrupted || expired) && !killAt) {
            result.cancelled = interrupted;
            result.timedOut = !interrupted;
            ::kill(pid, SIGINT);
            killAt = now + std::chrono::seconds(10);
        }
        if (killAt && now > *killAt) ::kill(pid, SIGKILL);
    }
    if (!pending.empty()) onLine(pending);
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    restoreHandlers();
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

void runConvertRknn(const ConvertRknnCliOptions& o) {
    auto model = loadModelForCommand(o.model);
    rknn::ConversionOptions co;
    co.modelPath = o.model;
    co.outputPath = o.output;
    co.target = o.target;
    co.scheme = o.scheme;
    co.observer = o.observer;
    co.perChannel = !o.perTensor;
    co.inputShapes = parseInputShapeSpecs(o.inputShapes);
    if (!o.report.empty()) co.quantization = rknn::loadQuantizationFacts(o.report);
    // The quantization report remembers its data set and preprocessing; the options here win.
    std::string dataset = o.dataset, preprocess = o.preprocess;
    if (co.quantization && dataset.empty()) dataset = co.quantization->datasetPath;
    if (co.quantization && preprocess.empty()) preprocess = co.quantization->preprocessPath;
    if (!dataset.empty()) co.dataset = imageio::loadDatasetList(dataset);
    if (!preprocess.empty()) co.preprocessing = imageio::loadPreprocessingFile(preprocess);
    const rknn::ConversionPlan plan = rknn::planConversion(*model, co);
    rknn::writeConversionFiles(plan);

    std::printf("conversion script: %s\n", plan.scriptPath.c_str());
    if (!plan.datasetPath.empty())
        std::printf("data set list:     %s (%zu sample(s))\n", plan.datasetPath.c_str(), plan.datasetSamples.size());
    std::printf("target %s, %s", plan.target.c_str(),
                plan.quantize ? ("quantized " + plan.quantizedDtype + " / " + plan.quantizedAlgorithm + " / " +
                                 plan.quantizedMethod).c_str()
                              : "float16 (no quantization)");
    std::printf(", %zu layer(s) kept in float16\n", plan.hybridLayers.size());
    for (const auto& in : plan.inputs) {
        std::printf("input %s %s", in.name.c_str(), shapeToString(in.shape).c_str());
        if (!in.mean.empty()) {
            std::printf(" mean_values [");
            for (size_t c = 0; c < in.mean.size(); ++c) std::printf("%s%g", c ? ", " : "", in.mean[c]);
            std::printf("] std_values [");
            for (size_t c = 0; c < in.std.size(); ++c) std::printf("%s%g", c ? ", " : "", in.std[c]);
            std::printf("]");
        }
        std::printf("\n");
    }
    constexpr size_t kListedLayers = 20;  // the script lists them all
    for (size_t i = 0; i < plan.hybridLayers.size() && i < kListedLayers; ++i) {
        const rknn::HybridLayer& l = plan.hybridLayers[i];
        std::printf("  float16: %-32s (node %s: %s)\n", l.tensor.c_str(), l.node.c_str(), l.reason.c_str());
    }
    if (plan.hybridLayers.size() > kListedLayers)
        std::printf("  ... and %zu more in the script's HYBRID_LAYERS\n", plan.hybridLayers.size() - kListedLayers);
    for (const auto& n : plan.notes) std::printf("note: %s\n", n.c_str());
    const std::string command = rknn::runCommand(plan, o.python);
    if (o.scriptOnly) {
        std::printf("run it with: %s\n", command.c_str());
        return;
    }
    std::fflush(stdout);

    std::string probeOutput;
    const ChildResult probe = runChild({o.python, "-c", rknn::toolkitProbeSource()}, 60,
                                       [&](const std::string& line) { probeOutput += line + "\n"; });
    if (!probe.started || probe.exitCode != 0) {
        const std::string why = !probe.started ? "'" + o.python + "' was not found"
                                               : "'" + o.python + "' cannot import rknn.api (RKNN-Toolkit2)";
        if (o.requireRun) failInput(why + "; the script is " + plan.scriptPath + ", run it with: " + command);
        std::printf("%s: the script was not run. Run it where RKNN-Toolkit2 is installed:\n  %s\n", why.c_str(),
                    command.c_str());
        return;
    }
    std::printf("RKNN-Toolkit2 (%s) found in %s: running the script\n",
                probeOutput.substr(0, probeOutput.find('\n')).c_str(), o.python.c_str());
    std::fflush(stdout);
    const ChildResult run = runChild({o.python, plan.scriptPath}, o.timeoutSeconds, [](const std::string& line) {
        std::printf("%s%s\n", line.rfind("[npuwb]", 0) == 0 ? "" : "  | ", line.c_str());
        std::fflush(stdout);
    });
    if (run.cancelled) failInput("conversion cancelled (" + plan.scriptPath + "); " + plan.outputPath + " not written");
    if (run.timedOut)
        failInput("conversion stopped after the --timeout of " + std::to_string(o.timeoutSeconds) + " s (" +
                  plan.scriptPath + "); " + plan.outputPath + " not written");
    if (run.exitCode != 0)
        failInput("RKNN-Toolkit2 failed (exit " + std::to_string(run.exitCode) + ") running " + plan.scriptPath +
                  "; its output is above");
    if (std::error_code ec; !std::filesystem::is_regular_file(plan.outputPath, ec))
        failInput(plan.scriptPath + " finished but wrote no " + plan.outputPath);
    std::printf("wrote %s (%s)\n", plan.outputPath.c_str(),
                humanBytes(static_cast<int64_t>(std::filesystem::file_size(plan.outputPath))).c_str());
}

}  // namespace

static void addConvertRknnCommand(CLI::App& app) {
    auto o = std::make_shared<ConvertRknnCliOptions>();
    CLI::App* cmd = app.add_subcommand(
        "convert-rknn",
        "Write a ready RKNN-Toolkit2 conversion script (OUT.convert.py, OUT.dataset.txt) from the workbench's state "
        "and run it when the toolkit is installed.\nBy default the script runs when PYTHON imports rknn.api "
        "(progress on stdout, Ctrl+C or --timeout cancel); otherwise the exact command is printed and the exit code "
        "is 0. --run makes a missing toolkit an error (exit 1); --script-only never runs it.");
    cmd->add_option("model", o->model, "float ONNX model")->required();
    cmd->add_option("--target", o->target, "chip, as the chip profiles name it (rk3588, rk3566, ...)")->required();
    cmd->add_option("--dataset", o->dataset,
                    "calibration dataset.txt or image folder (default: the one the --from-quantization report "
                    "used); without one the toolkit builds a float16 model");
    cmd->add_option("--preprocess", o->preprocess,
                    "per-input preprocessing JSON: mean/std/scale become the toolkit's mean_values/std_values, "
                    "bgr its quant_img_RGB2BGR (default: the report's)");
    addInputShapeOption(cmd, o->inputShapes);
    cmd->add_option("--from-quantization", o->report,
                    "`quantize --json` or `accuracy --json` report: scheme, observer, and the layers kept in float "
                    "(fp16 layers; accuracy: also layers below the SNR threshold) for hybrid quantization");
    cmd->add_option_function<std::string>(
        "--scheme", [o](const std::string& s) { o->scheme = quant::schemeFromName(s); },
        "w8a8 | w8a16 | w4a16 | fp16 (no quantization); default: the report's, else w8a8");
    cmd->add_option_function<std::string>(
        "--observer", [o](const std::string& s) { o->observer = quant::observerFromName(s); },
        "minmax -> normal | kl -> kl_divergence | mmse -> mmse; default: the report's, else minmax");
    cmd->add_flag("--per-tensor", o->perTensor, "quantized_method layer instead of channel");
    cmd->add_option("--python", o->python, "Python with RKNN-Toolkit2")->capture_default_str();
    auto run = cmd->add_flag("--run", o->requireRun, "run the script; fail (exit 1) when PYTHON lacks the toolkit");
    cmd->add_flag("--script-only", o->scriptOnly, "write the script and its inputs, never run it")->excludes(run);
    cmd->add_option("--timeout", o->timeoutSeconds, "stop the toolkit after SECONDS (exit 1; default: none)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("-o,--output", o->output, "the .rknn model to write; the script lands beside it")->required();
    cmd->callback([o] { runConvertRknn(*o); });
}
NPUWB_CLI_COMMAND(addConvertRknnCommand);

}  // namespace npuwb::cli
