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
    // ONNX's operator schemas (about 10 ms) build on a second thread while the arguments parse and a backend
    // plugin loads; most commands load a model, whose shape inference needs them.
    npuwb::onnxconv::SchemaRegistryWarmUpScope schemas;
    CLI::App app{"NPU Workbench command line: inspect, run and profile ONNX models headless.\n"
                 "Every command has --help. Reports are JSON in the same schema the GUI uses."};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("npuwb-cli ") + NPUWB_VERSION);
    // Limits on the local work of every command (model runs, proofs, calibration, Loop bodies): they apply before
    // any command's callback runs, and can be given before or after the command name.
    app.fallthrough();
    app.add_option_function<double>(
           "--time-limit",
           [](double seconds) {
               npuwb::setProcessDeadline(std::chrono::steady_clock::now() +
                                             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                 std::chrono::duration<double>(seconds)),
                                         seconds);
           },
           "seconds of local work before the command stops with exit 1 (default: none; also $NPUWB_TIMEOUT)")
        ->envname("NPUWB_TIMEOUT")
        ->check(CLI::PositiveNumber)
        ->type_name("SECONDS");
    app.add_option_function<std::string>(
           "--memory-budget",
           [](const std::string& size) { npuwb::setMemoryBudgetBytes(npuwb::parseByteSize(size, "--memory-budget")); },
           "bytes that live tensors may hold (\"4G\", \"512M\"); default 80% of available memory (also "
           "$NPUWB_MEMORY_BUDGET)")
        ->type_name("SIZE");
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
        std::cerr << "error: out of memory (lower the memory budget with --memory-budget to be stopped "
                     "earlier, with the node named)\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
