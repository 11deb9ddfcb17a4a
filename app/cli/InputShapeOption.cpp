#include "InputShapeOption.h"

#include <cstdio>

#include "Commands.h"

#include "npuwb/ModelIO.h"
#include "npuwb/Error.h"

namespace npuwb::cli {

void addInputShapeOption(CLI::App* cmd, std::vector<std::string>& specs) {
    cmd->add_option("--input-shape", specs, "NAME=D1,D2,... for inputs with symbolic dims (repeatable)");
}

std::shared_ptr<const Model> loadModelWithInputShapes(const std::string& path, const std::vector<std::string>& specs) {
    auto loaded = loadModelForCommand(path);
    std::map<std::string, Shape> shapes = parseInputShapeSpecs(specs);
    auto model = shapes.empty() ? loaded : std::make_shared<const Model>(withInputShapes(*loaded, shapes));
    for (const auto& in : inputsWithSymbolicDims(*model))
        std::fprintf(stderr, "warning: input %s has symbolic dims, taken as 1; give concrete ones with "
                             "--input-shape NAME=D1,D2,...\n", in.c_str());
    return model;
}

}  // namespace npuwb::cli
