#include <cstdio>

#include "Commands.h"
#include "npuwb/ModelIO.h"

namespace npuwb::cli {

std::vector<CommandSetup>& registeredCommands() {
    static std::vector<CommandSetup> commands;
    return commands;
}

std::shared_ptr<const Model> loadModelForCommand(const std::string& path) {
    return std::make_shared<const Model>(loadModel(path));
}

std::string humanBytes(int64_t bytes) {
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) { v /= 1024.0; ++u; }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

std::string humanCount(int64_t n) {
    const char* units[] = {"", "K", "M", "G", "T"};
    double v = static_cast<double>(n);
    int u = 0;
    while (v >= 1000.0 && u < 4) { v /= 1000.0; ++u; }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : "%.2f %s", v, units[u]);
    return buf;
}

}  // namespace npuwb::cli
