// BMP through libjpeg-turbo's TurboJPEG image loader (tjLoadImage: its cjpeg BMP reader, 8-bit palette, 24- and
// 32-bit, uncompressed). The loader allocates from the header before reading pixels, so the header's dimensions
// are checked here first: the file header, then the DIB header's width and height (BITMAPCOREHEADER: 16-bit at
// offset 18/20, later headers: 32-bit at 18/22, a negative height meaning top-down rows).
#include <turbojpeg.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "imageio/Decoders.h"
#include "npuwb/Error.h"

namespace npuwb::imageio::detail {

namespace {

int64_t littleEndian(const std::string& b, size_t at, size_t bytes, bool isSigned) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v |= uint64_t{static_cast<uint8_t>(b[at + i])} << (8 * i);
    if (isSigned && bytes < 8 && (v >> (8 * bytes - 1)) & 1) v |= ~uint64_t{0} << (8 * bytes);
    return static_cast<int64_t>(v);
}

}  // namespace

Image decodeBmp(const std::string& path, const std::string& bytes) {
    constexpr size_t kFileHeader = 14;
    if (bytes.size() < kFileHeader + 12) failInput(path + ": damaged BMP (the header is cut short)");
    const int64_t dibSize = littleEndian(bytes, kFileHeader, 4, false);
    int64_t width = 0, height = 0;
    if (dibSize == 12) {
        width = littleEndian(bytes, 18, 2, false);
        height = littleEndian(bytes, 20, 2, false);
    } else {
        if (dibSize < 40 || bytes.size() < kFileHeader + 40) failInput(path + ": damaged BMP (unknown header)");
        width = littleEndian(bytes, 18, 4, true);
        height = std::llabs(littleEndian(bytes, 22, 4, true));
    }
    checkDimensions(path, width, height);
    int w = 0, h = 0, format = TJPF_RGB;
    unsigned char* pixels = tjLoadImage(path.c_str(), &w, 1, &h, &format, 0);
    if (!pixels) failInput(path + ": cannot decode the BMP (" + tjGetErrorStr2(nullptr) + ")");
    struct Release {
        unsigned char* p;
        ~Release() { tjFree(p); }
    } release{pixels};
    if (w != width || h != height || format != TJPF_RGB)
        failInput(path + ": damaged BMP (the decoder read another size than the header says)");
    Image image(w, h, 3);
    std::memcpy(image.pixels.data(), pixels, image.pixels.size());
    return image;
}

}  // namespace npuwb::imageio::detail
