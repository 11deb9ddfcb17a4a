#include "ssh/ShellQuote.h"

#include "npuwb/Error.h"

namespace npuwb::remote {

std::string shellQuote(const std::string& text) {
    // A NUL would end the C string handed to sshd in the middle of a quote.
    if (text.find('\0') != std::string::npos) failInput("a remote argument contains a NUL byte");
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out += "'\\''";  // close the quote, an escaped quote, reopen
        else
            out += c;
    }
    out += "'";
    return out;
}

std::string shellCommand(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        out += shellQuote(a);
    }
    return out;
}

}  // namespace npuwb::remote
