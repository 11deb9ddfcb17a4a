#pragma once
// One decoder per format behind decodeImageFile (npuwb/Image.h); private to engine/imageio.
#include <string>

#include "npuwb/Image.h"

namespace npuwb::imageio::detail {

/// Throws InvalidInput naming `path` when width x height is empty or beyond ImageLimits.
void checkDimensions(const std::string& path, int64_t width, int64_t height);

/// `bytes` is the whole file; `path` names it in errors.
Image decodePng(const std::string& path, const std::string& bytes);
/// Returns the EXIF orientation (1-8; 1 when absent) in `orientation`; the caller applies it.
Image decodeJpeg(const std::string& path, const std::string& bytes, int& orientation);
Image decodeBmp(const std::string& path, const std::string& bytes);

}  // namespace npuwb::imageio::detail
