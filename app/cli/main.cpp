// npuwb-cli: the headless face of NPU Workbench. Exit codes: 0 ok, 1 user error, 2 internal error.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <new>

#include "Commands.h"
#include "npuwb/SchemaWarmUp.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/Limits.h"
#include "npuwb/ProcessMemory.h"

int main(int argc, char** argv) {
    npuwb::returnLargeFreedBlocksToSystem();
    npuwb::removeTemporaryFilesOnSignals();  // Ctrl+C during a write leaves no hidden temporary file behind
    npuwb::guardInputsAgainstOverwrite();     // `-o` or `--json` naming an input (or each other) is refused
    // NPUWB_TIMEOUT=SECONDS bounds every command's local work (model runs, proofs, calibration, Loop bodies).
    if (const char* limit = std::getenv("NPUWB_TIMEOUT"); limit && *limit) {
        char* end = nullptr;
        const double seconds = std::strtod(limit, &end);
        if (end == limit || *end != '\0' || !(seconds > 0)) {
            std::cerr << "error: NPUWB_TIMEOUT='" << limit << "' is not a number of seconds\n";
            return 1;
        }
        npuwb::setProcessDeadline(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                                         std::chrono::duration<double>(seconds)),
                                  seconds);
    }
    // ONNX's operator schemas (about 10 ms) build on a second thread while the arguments parse and a backend
    // plugin loads; most commands load a model, whose shape inference needs them.
    npuwb::onnxconv::SchemaRegistryWarmUpScope schemas;
    CLI::App app{"NPU Workbench command line: inspect, run and profile ONNX models headless.\n"
                 "Every command has --help. Reports are JSON in the same schema the GUI uses."};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("npuwb-cli ") + NPUWB_VERSION);
    for (auto setup : npuwb::cli::registeredCommands()) setup(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 1;
    } catch (const npuwb::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return e.kind() == npuwb::ErrorKind::Internal ? 2 : 1;
    } catch (const std::filesystem::filesystem_error& e) {  // an output folder that is a file, or read-only
        std::cerr << "error: cannot use '" << e.path1().string() << "': " << e.code().message() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of memory (lower the memory budget with NPUWB_MEMORY_BUDGET to be stopped "
                     "earlier, with the node named)\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
