#pragma once
// Decoded 8-bit images and decoding image files (PNG, JPEG, BMP) with Debian's libraries: libpng, libjpeg-turbo
// (JPEG, and BMP through its TurboJPEG image loader) and libexif (a JPEG's EXIF orientation). Every file's header is
// read and its dimensions checked against ImageLimits before any pixel is decoded, so a hostile file cannot make the
// decoder allocate or work without bound. Part of npuwb_imageio (engine/imageio), Qt-free.
#include <cstdint>
#include <string>
#include <vector>

namespace npuwb::imageio {

/// Pixels row by row from the top, channels interleaved: 1 gray, 3 RGB, 4 RGBA.
struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::vector<uint8_t> pixels;  // width * height * channels

    Image() = default;
    Image(int w, int h, int c) : width(w), height(h), channels(c), pixels(static_cast<size_t>(w) * h * c) {}
    bool empty() const { return pixels.empty(); }
    uint8_t* row(int y) { return pixels.data() + static_cast<size_t>(y) * width * channels; }
    const uint8_t* row(int y) const { return pixels.data() + static_cast<size_t>(y) * width * channels; }
};

/// What a decodable image may be: larger ones are refused before decoding.
struct ImageLimits {
    static constexpr int64_t kMaxSide = 32768;              // pixels, either dimension
    static constexpr int64_t kMaxPixels = int64_t{1} << 26;  // 64 Mpixel: 8192 x 8192
    static constexpr int64_t kMaxFileBytes = int64_t{1} << 30;
};

/// Decodes a PNG, JPEG or BMP file (recognised by its content, not its name) into 8-bit gray, RGB or RGBA, with a
/// JPEG's EXIF orientation applied as viewers do. Throws Error(Io) when the file cannot be read, InvalidInput
/// naming the file for an unknown format, a damaged file, dimensions beyond ImageLimits, or a variant the
/// libraries do not decode (CMYK JPEG, RLE-compressed or 16-bit BMP).
Image decodeImageFile(const std::string& path);

/// `image` with `channels` channels: gray from colour with ITU-R BT.601 weights (0.299 R + 0.587 G + 0.114 B, as
/// OpenCV and PIL compute it), colour from gray by repetition, alpha dropped or set opaque.
Image convertChannels(const Image& image, int channels);
/// Resized to width x height with a triangle (tent) filter: bilinear when enlarging, averaging over the covered
/// pixels when shrinking (stb_image_resize, edges clamped).
Image resizeImage(const Image& image, int width, int height);

}  // namespace npuwb::imageio
