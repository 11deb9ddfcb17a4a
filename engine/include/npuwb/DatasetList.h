#pragma once
// A data set as a list of samples, each sample one file per model input. Two sources:
//  - an RKNN-compatible dataset.txt: one sample per line, several inputs separated by spaces (model input
//    order), image files (jpg/png/bmp) or .npy arrays, relative paths resolved against the list's folder,
//    blank lines and '#' comments skipped;
//  - a folder of images (sorted by file name), one single-input sample per image.
#include <string>
#include <vector>

namespace npuwb::imageio {

struct DatasetEntry {
    std::vector<std::string> files;  // absolute or list-relative-resolved paths, one per model input
    int line = 0;                    // 1-based line in the list file; 0 for folder entries
};

struct DatasetList {
    std::string source;  // the list file or folder, as given
    bool isFolder = false;
    std::vector<DatasetEntry> entries;

    /// "dataset.txt:12" or the file name of a folder entry: where error messages point.
    std::string originOf(size_t index) const;
};

/// Parses a dataset.txt. Throws Error(Io) naming the file when unreadable, InvalidInput naming file and line
/// when a line is malformed (e.g. a quoted entry) or the list has no samples. File existence is checked on load.
DatasetList parseDatasetList(const std::string& listPath);
/// Lists *.jpg/*.jpeg/*.png/*.bmp/*.npy in a folder, sorted. Throws InvalidInput when none are found.
DatasetList listDatasetFolder(const std::string& folder);
/// A folder gives listDatasetFolder, anything else parseDatasetList.
DatasetList loadDatasetList(const std::string& listOrFolder);

/// True for the image extensions decodeImageFile reads (case-insensitive): jpg, jpeg, png, bmp.
bool isImageFile(const std::string& path);
bool isNpyFile(const std::string& path);

}  // namespace npuwb::imageio
