#pragma once
// Every remote command line is built here from separate arguments, each quoted for the POSIX shell that sshd
// starts, so file names with spaces, quotes, ';', '$()' or newlines stay one literal argument.
#include <string>
#include <vector>

namespace npuwb::remote {

/// 'text' with every ' written as '\'' : the shell takes the result literally, whatever it contains.
std::string shellQuote(const std::string& text);

/// The arguments quoted and joined by spaces.
std::string shellCommand(const std::vector<std::string>& argv);

}  // namespace npuwb::remote
