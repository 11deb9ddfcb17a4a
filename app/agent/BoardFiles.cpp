#include "BoardFiles.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace npuwb::agent {

namespace fs = std::filesystem;

BoardFiles BoardFiles::fromEnvironment() {
    const char* env = std::getenv("NPUWB_SYSFS_ROOT");
    return BoardFiles(env && *env ? env : "/");
}

BoardFiles::BoardFiles(std::string root) : root_(std::move(root)) {
    while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string BoardFiles::resolve(const std::string& path) const {
    if (root_ == "/" || root_.empty()) return path;
    return root_ + (path.empty() || path.front() != '/' ? "/" : "") + path;
}

bool BoardFiles::exists(const std::string& path) const {
    std::error_code ec;
    return fs::exists(resolve(path), ec);
}

std::optional<std::string> BoardFiles::readText(const std::string& path) const {
    std::ifstream in(resolve(path), std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return std::nullopt;  // e.g. EPERM on a debugfs file read by a normal user
    std::string text = ss.str();
    while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) || text.back() == '\0'))
        text.pop_back();
    return text;
}

std::optional<int64_t> BoardFiles::readInt(const std::string& path) const {
    auto text = readText(path);
    if (!text) return std::nullopt;
    const char* p = text->c_str();
    while (*p && !std::isdigit(static_cast<unsigned char>(*p)) && *p != '-') ++p;
    if (!*p) return std::nullopt;
    char* end = nullptr;
    long long v = std::strtoll(p, &end, 10);
    if (end == p) return std::nullopt;
    return static_cast<int64_t>(v);
}

std::vector<std::string> BoardFiles::readWords(const std::string& path) const {
    std::vector<std::string> words;
    auto text = readText(path);
    if (!text) return words;
    std::istringstream ss(*text);
    for (std::string w; ss >> w;) words.push_back(w);
    return words;
}

std::vector<std::string> BoardFiles::list(const std::string& folder) const {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(resolve(folder), ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end(), naturalLess);
    return names;
}

std::optional<std::string> BoardFiles::firstExisting(const std::vector<std::string>& paths) const {
    for (const auto& p : paths)
        if (exists(p)) return p;
    return std::nullopt;
}

std::vector<int> parseCpuList(const std::string& text) {
    std::vector<int> cpus;
    std::stringstream ss(text);
    for (std::string part; std::getline(ss, part, ',');) {
        int a = 0, b = 0;
        char dash = 0;
        std::istringstream ps(part);
        if (!(ps >> a)) continue;
        if (ps >> dash && dash == '-' && ps >> b) {
            for (int c = a; c <= b && c - a < 4096; ++c) cpus.push_back(c);
        } else {
            cpus.push_back(a);
        }
    }
    return cpus;
}

bool naturalLess(const std::string& a, const std::string& b) {
    auto split = [](const std::string& s) {
        size_t i = s.size();
        while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
        long long n = i < s.size() && s.size() - i < 18 ? std::stoll(s.substr(i)) : -1;
        return std::make_pair(s.substr(0, i), n);
    };
    auto [pa, na] = split(a);
    auto [pb, nb] = split(b);
    if (pa != pb) return a < b;
    return na < nb;
}

}  // namespace npuwb::agent
