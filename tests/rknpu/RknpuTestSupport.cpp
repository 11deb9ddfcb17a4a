#include "RknpuTestSupport.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "npuwb/AtomicFile.h"
#include "npuwb/ModelIO.h"
#include "../unit/UnitTestSupport.h"

namespace npuwb::rknpu_test {

namespace {

Model convRelu() {
    Model m;
    m.opsetImports[""] = 17;
    m.graph.name = "rknpu_conv_relu";
    m.graph.inputs = {unittest::tensorInfo("x", {1, 3, 8, 8})};
    m.graph.outputs = {unittest::tensorInfo("y", {1, 4, 8, 8})};
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Tensor w(DType::F32, {4, 3, 3, 3}), b(DType::F32, {4});
    for (float& v : w.values<float>()) v = u(rng);
    for (float& v : b.values<float>()) v = u(rng);
    m.graph.initializers["w"] = w;
    m.graph.initializers["b"] = b;
    Node conv;
    conv.name = "conv0";
    conv.opType = "Conv";
    conv.inputs = {"x", "w", "b"};
    conv.outputs = {"c"};
    conv.attributes["pads"] = Attribute::ofInts({1, 1, 1, 1});
    Node relu;
    relu.name = "relu0";
    relu.opType = "Relu";
    relu.inputs = {"c"};
    relu.outputs = {"y"};
    m.graph.nodes = {conv, relu};
    return m;
}

}  // namespace

std::string workFile(const std::string& name) {
    const std::string dir = std::string(RKNPU_TEST_WORK_DIR) + "/" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    return dir + "/" + name;
}

std::string standinModel(const std::string& target, int batch) {
    static std::map<std::string, std::string> made;
    const std::string key = target + "-b" + std::to_string(batch);
    if (auto it = made.find(key); it != made.end()) return it->second;
    const std::string onnx = workFile("conv_relu.onnx");
    if (!std::filesystem::exists(onnx)) writeFileAtomically(onnx, serializeModel(convRelu()));
    const std::string out = workFile("conv_relu-" + key + ".rknn");
    const std::string command = "/usr/bin/python3 " + std::string(STANDIN_MAKE_CONTAINER) + " " + onnx + " --target " +
                                target + " --batch " + std::to_string(batch) + " -o " + out;
    if (std::system(command.c_str()) != 0) failInput("cannot make the stand-in container: " + command);
    return made[key] = out;
}

ModelRunOptions standinOptions(int runs, int warmup) {
    ModelRunOptions options;
    options.library = STANDIN_RKNNRT_PATH;
    options.runs = runs;
    options.warmup = warmup;
    return options;
}

}  // namespace npuwb::rknpu_test
