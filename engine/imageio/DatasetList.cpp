#include "npuwb/DatasetList.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb::imageio {

namespace fs = std::filesystem;

namespace {

std::string lowerExtension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

std::string trim(const std::string& s) {
    const auto begin = s.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return {};
    return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

}  // namespace

bool isImageFile(const std::string& path) {
    const std::string ext = lowerExtension(path);
    return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp";
}

bool isNpyFile(const std::string& path) { return lowerExtension(path) == ".npy"; }

std::string DatasetList::originOf(size_t index) const {
    if (index >= entries.size()) return source;
    const DatasetEntry& entry = entries[index];
    if (isFolder || entry.line == 0) return entry.files.empty() ? source : entry.files.front();
    return source + ":" + std::to_string(entry.line);
}

DatasetList parseDatasetList(const std::string& listPath) {
    std::error_code ec;
    if (!fs::exists(listPath, ec)) fail(ErrorKind::Io, listPath + ": data set list not found");
    const std::string text = readFile(listPath);
    const fs::path base = fs::absolute(fs::path(listPath)).parent_path();
    DatasetList list;
    list.source = listPath;
    std::istringstream lines(text);
    std::string raw;
    int lineNo = 0;
    while (std::getline(lines, raw)) {
        ++lineNo;
        const std::string line = trim(raw);
        if (line.empty() || line.front() == '#') continue;
        if (line.find_first_of("\"'") != std::string::npos)
            failInput(listPath + ":" + std::to_string(lineNo) +
                      ": quoted paths are not supported (entries are separated by spaces, as in RKNN's dataset.txt)");
        DatasetEntry entry;
        entry.line = lineNo;
        std::istringstream words(line);
        std::string word;
        while (words >> word) {
            fs::path p(word);
            if (p.is_relative()) p = base / p;
            entry.files.push_back(p.lexically_normal().string());
        }
        list.entries.push_back(std::move(entry));
    }
    if (list.entries.empty()) failInput(listPath + ": the data set list has no samples (only blank or # lines)");
    return list;
}

DatasetList listDatasetFolder(const std::string& folder) {
    DatasetList list;
    list.source = folder;
    list.isFolder = true;
    std::vector<std::string> files;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
        const std::string path = e.path().string();
        if (std::error_code entryError; e.is_regular_file(entryError) && (isImageFile(path) || isNpyFile(path))) files.push_back(path);
    }
    if (ec) fail(ErrorKind::Io, folder + ": cannot list the folder (" + ec.message() + ")");
    std::sort(files.begin(), files.end());
    if (files.empty()) failInput(folder + ": no images (jpg, png, bmp) or .npy files in this folder");
    for (std::string& f : files) list.entries.push_back(DatasetEntry{{std::move(f)}, 0});
    return list;
}

DatasetList loadDatasetList(const std::string& listOrFolder) {
    std::error_code ec;
    if (fs::is_directory(listOrFolder, ec)) return listDatasetFolder(listOrFolder);
    return parseDatasetList(listOrFolder);
}

}  // namespace npuwb::imageio
