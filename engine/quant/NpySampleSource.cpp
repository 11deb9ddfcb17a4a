#include "npuwb/NpySampleSource.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>

#include "npuwb/Session.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/Npy.h"
#include "npuwb/Sha256.h"

namespace npuwb::quant {

std::string sha256Hex(const std::string& bytes) { return npuwb::sha256Hex(bytes); }

namespace {
std::string inputList(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? " (" : ", ") + n;
    return s + ")";
}
}  // namespace

NpySampleSource::NpySampleSource(const std::string& listPath, std::vector<std::string> inputNames)
    : listPath_(listPath), inputNames_(std::move(inputNames)) {
    if (inputNames_.empty()) failInput(listPath + ": the model has no inputs to feed");
    const std::string text = readFile(listPath, 64 << 20);  // a list of file names
    const std::filesystem::path base = std::filesystem::path(listPath).parent_path();
    std::istringstream in(text);
    std::string line;
    for (size_t lineNo = 1; std::getline(in, line); ++lineNo) {
        if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream fields(line);
        Line entry{lineNo, {}};
        std::vector<std::string> names;  // NAME=FILE entries: the input each feeds, else graph-input order
        for (std::string p; fields >> p;) {
            const size_t eq = p.find('=');
            const std::string name = eq == std::string::npos ? "" : p.substr(0, eq);
            const bool named = !name.empty() && std::find(inputNames_.begin(), inputNames_.end(), name) !=
                                                    inputNames_.end();
            if (named) p = p.substr(eq + 1);
            names.push_back(named ? name : "");
            std::filesystem::path path(p);
            entry.paths.push_back(path.is_absolute() ? path.string() : (base / path).string());
        }
        if (entry.paths.empty()) continue;
        const std::string where = listPath + ":" + std::to_string(lineNo) + ": ";
        if (entry.paths.size() != inputNames_.size())
            failInput(where + std::to_string(entry.paths.size()) + " entries, but the model has " +
                      std::to_string(inputNames_.size()) + " input(s)" + inputList(inputNames_));
        const size_t namedCount = static_cast<size_t>(std::count_if(names.begin(), names.end(),
                                                                    [](const auto& n) { return !n.empty(); }));
        if (namedCount != 0 && namedCount != names.size())
            failInput(where + "name every entry (NAME=FILE.npy) or none" + inputList(inputNames_));
        if (namedCount != 0) {
            std::vector<std::string> ordered(inputNames_.size());
            for (size_t k = 0; k < names.size(); ++k) {
                const size_t at = static_cast<size_t>(
                    std::find(inputNames_.begin(), inputNames_.end(), names[k]) - inputNames_.begin());
                if (!ordered[at].empty()) failInput(where + "input '" + names[k] + "' is named twice");
                ordered[at] = entry.paths[k];
            }
            entry.paths = std::move(ordered);
        }
        lines_.push_back(std::move(entry));
    }
    if (lines_.empty()) failInput(listPath + ": the data set list has no samples");
}

NpySampleSource::NpySampleSource(const std::string& listPath, const std::vector<ValueInfo>& declaredInputs)
    : NpySampleSource(listPath, [&] {
          std::vector<std::string> names;
          for (const auto& d : declaredInputs) names.push_back(d.name);
          return names;
      }()) {
    declared_ = declaredInputs;
}

Sample NpySampleSource::load(size_t index) const {
    if (index >= lines_.size()) failInput(listPath_ + ": sample " + std::to_string(index) + " does not exist");
    const Line& line = lines_[index];
    Sample s;
    s.origin = listPath_ + ":" + std::to_string(line.lineNumber);
    for (size_t i = 0; i < line.paths.size(); ++i) {
        const std::string& path = line.paths[i];
        try {
            std::error_code ec;  // a name too long for the file system is an error in the list, not an exception
            if (!std::filesystem::exists(path, ec)) failInput("file not found: " + path + (ec ? " (" + ec.message() + ")" : ""));
            const std::string ext = std::filesystem::path(path).extension().string();
            if (ext != ".npy") failUnsupported(path + ": only .npy entries are supported here (images need the image loader)");
            Tensor t = readNpy(path);
            if (i < declared_.size()) {
                try {
                    checkInputAgainstDeclared(declared_[i], Value(t));
                } catch (const Error& e) {  // name the file: a list line feeds several inputs
                    throw Error(e.kind(), path + ": " + e.what());
                }
            }
            s.inputs[inputNames_[i]] = std::move(t);
        } catch (const Error& e) {
            throw Error(e.kind(), s.origin + ": " + e.what());
        }
    }
    return s;
}

std::string NpySampleSource::contentHash() const {
    Sha256 h;
    for (const Line& line : lines_)
        for (const auto& path : line.paths) {
            h.update(std::filesystem::path(path).filename().string());
            h.update("\n", 1);
            h.update(readFile(path));
        }
    return h.hex();
}

Sample MemorySampleSource::load(size_t index) const {
    if (index >= samples_.size()) failInput("sample " + std::to_string(index) + " does not exist");
    return samples_[index];
}

std::string MemorySampleSource::contentHash() const {
    Sha256 h;
    for (const Sample& s : samples_)
        for (const auto& [name, t] : s.inputs) {
            h.update(name + " " + std::string(dtypeName(t.dtype())) + " " + shapeToString(t.shape()) + "\n");
            h.update(t.raw(), t.byteSize());
        }
    return h.hex();
}

}  // namespace npuwb::quant
