#include "InputShapeOption.h"

#include <cstdio>
#include <sstream>

#include "Commands.h"

#include "npuwb/ModelIO.h"
#include "npuwb/Error.h"

namespace npuwb::cli {

void addInputShapeOption(CLI::App* cmd, std::vector<std::string>& specs) {
    cmd->add_option("--input-shape", specs, "NAME=D1,D2,... for inputs with symbolic dims (repeatable)");
}

std::map<std::string, Shape> parseInputShapes(const std::vector<std::string>& specs) {
    std::map<std::string, Shape> shapes;
    for (const auto& spec : specs) {
        auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
            failInput("--input-shape '" + spec + "' must be NAME=D1,D2,...");
        Shape shape;
        std::stringstream ss(spec.substr(eq + 1));
        for (std::string d; std::getline(ss, d, ',');) {
            size_t used = 0;
            long long v = 0;
            try {
                v = std::stoll(d, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != d.size() || v < 1)
                failInput("--input-shape '" + spec + "': '" + d + "' is not a positive number");
            shape.push_back(v);
        }
        if (!shapes.emplace(spec.substr(0, eq), shape).second)
            failInput("--input-shape: '" + spec.substr(0, eq) + "' given twice");
    }
    return shapes;
}

std::shared_ptr<const Model> loadModelWithInputShapes(const std::string& path, const std::vector<std::string>& specs) {
    auto loaded = loadModelForCommand(path);
    std::map<std::string, Shape> shapes = parseInputShapes(specs);
    auto model = shapes.empty() ? loaded : std::make_shared<const Model>(withInputShapes(*loaded, shapes));
    for (const auto& in : inputsWithSymbolicDims(*model))
        std::fprintf(stderr, "warning: input %s has symbolic dims, taken as 1; give concrete ones with "
                             "--input-shape NAME=D1,D2,...\n", in.c_str());
    return model;
}

}  // namespace npuwb::cli
