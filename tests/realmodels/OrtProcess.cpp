#include "OrtProcess.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "npuwb/Npy.h"

namespace npuwb::realmodels {
namespace {

int spawnAndWait(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
        execvp(args[0], args.data());
        std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::map<std::string, Tensor> runOrt(const OrtOptions& options, const std::string& model,
                                     const std::map<std::string, std::string>& inputFiles, const std::string& outputDir,
                                     std::vector<std::string>* order) {
    std::filesystem::remove_all(outputDir);  // never read a previous run's outputs
    std::vector<std::string> argv{options.node, options.script, "--model", model, "--output-dir", outputDir,
                                  "--opt-level", options.optLevel};
    for (const auto& [name, file] : inputFiles) {
        argv.push_back("--input");
        argv.push_back(name + "=" + file);
    }
    int code = spawnAndWait(argv);
    if (code != 0) throw std::runtime_error("ONNX Runtime failed (exit " + std::to_string(code) + "), see stderr");

    std::ifstream in(outputDir + "/outputs.json");
    auto manifest = nlohmann::json::parse(in);
    std::map<std::string, Tensor> outputs;
    for (const auto& entry : manifest.at("outputs")) {
        auto name = entry.at("name").get<std::string>();
        outputs[name] = readNpy(outputDir + "/" + entry.at("file").get<std::string>());
        if (order) order->push_back(name);
    }
    return outputs;
}

}  // namespace npuwb::realmodels
