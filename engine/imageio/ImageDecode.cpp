// decodeImageFile: reads the file once (size-checked), picks the decoder by the file's signature, and applies a
// JPEG's EXIF orientation.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "imageio/Decoders.h"
#include "npuwb/Error.h"

namespace npuwb::imageio {

namespace detail {

void checkDimensions(const std::string& path, int64_t width, int64_t height) {
    if (width <= 0 || height <= 0)
        failInput(path + ": damaged image (size " + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (width > ImageLimits::kMaxSide || height > ImageLimits::kMaxSide || width * height > ImageLimits::kMaxPixels)
        failInput(path + ": the image is " + std::to_string(width) + "x" + std::to_string(height) +
                  " pixels, more than a calibration image may be (" + std::to_string(ImageLimits::kMaxPixels >> 20) +
                  " Mpixel, " + std::to_string(ImageLimits::kMaxSide) + " per side)");
}

}  // namespace detail

namespace {

/// The picture a viewer shows for EXIF orientation `o` (2-8: mirrored and/or turned; 5-8 swap width and height).
Image applyOrientation(const Image& in, int o) {
    if (o <= 1 || o > 8) return in;
    const bool swap = o >= 5;
    Image out(swap ? in.height : in.width, swap ? in.width : in.height, in.channels);
    const int W = in.width, H = in.height, C = in.channels;
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) {
            int sx = x, sy = y;
            switch (o) {
            case 2: sx = W - 1 - x; break;                    // mirrored left-right
            case 3: sx = W - 1 - x, sy = H - 1 - y; break;    // turned 180
            case 4: sy = H - 1 - y; break;                    // mirrored top-bottom
            case 5: sx = y, sy = x; break;                    // transposed
            case 6: sx = y, sy = H - 1 - x; break;            // turned 90 clockwise
            case 7: sx = W - 1 - y, sy = H - 1 - x; break;    // transversed
            case 8: sx = W - 1 - y, sy = x; break;            // turned 90 counter-clockwise
            }
            std::copy_n(in.row(sy) + static_cast<size_t>(sx) * C, C, out.row(y) + static_cast<size_t>(x) * C);
        }
    return out;
}

std::string readImageBytes(const std::string& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) fail(ErrorKind::Io, path + ": cannot read the image (" + ec.message() + ")");
    if (size > static_cast<uintmax_t>(ImageLimits::kMaxFileBytes))
        failInput(path + ": the image file is " + std::to_string(size >> 20) + " MiB, more than " +
                  std::to_string(ImageLimits::kMaxFileBytes >> 20) + " MiB");
    std::ifstream in(path, std::ios::binary);
    std::string bytes(static_cast<size_t>(size), '\0');
    if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(size)))
        fail(ErrorKind::Io, path + ": cannot read the image");
    return bytes;
}

bool startsWith(const std::string& bytes, std::string_view magic) {
    return bytes.size() >= magic.size() && std::equal(magic.begin(), magic.end(), bytes.begin());
}

}  // namespace

Image decodeImageFile(const std::string& path) {
    const std::string bytes = readImageBytes(path);
    if (startsWith(bytes, "\x89PNG\r\n\x1a\n")) return detail::decodePng(path, bytes);
    if (startsWith(bytes, "\xff\xd8\xff")) {
        int orientation = 1;
        Image image = detail::decodeJpeg(path, bytes, orientation);
        return applyOrientation(image, orientation);
    }
    if (startsWith(bytes, "BM")) return detail::decodeBmp(path, bytes);
    failInput(path + ": cannot decode the image: not a PNG, JPEG or BMP file (judged by its content)");
}

}  // namespace npuwb::imageio
