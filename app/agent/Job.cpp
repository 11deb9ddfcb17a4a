#include "Job.h"

#include <iostream>
#include <iterator>

#include "npuwb/AtomicFile.h"

namespace npuwb::agent {

AgentJob loadJob(const std::string& path) {
    if (path == "-") {
        std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        return parseAgentJob(text, "(stdin)");
    }
    return parseAgentJob(readFile(path), "'" + path + "'");
}

}  // namespace npuwb::agent
