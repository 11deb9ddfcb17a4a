// Channel conversion and resizing of decoded images (npuwb/Image.h). Resizing is stb_image_resize (Debian's
// libstb-dev), compiled into this file from its single header.
#include <algorithm>

#include "npuwb/Error.h"
#include "npuwb/Image.h"

#define STB_IMAGE_RESIZE_IMPLEMENTATION
#define STB_IMAGE_RESIZE_STATIC
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <stb/stb_image_resize.h>
#pragma GCC diagnostic pop

namespace npuwb::imageio {

Image convertChannels(const Image& image, int channels) {
    if (image.channels == channels) return image;
    if (channels != 1 && channels != 3 && channels != 4) fail(ErrorKind::Internal, "images have 1, 3 or 4 channels");
    Image out(image.width, image.height, channels);
    const size_t pixels = static_cast<size_t>(image.width) * image.height;
    const int from = image.channels;
    for (size_t i = 0; i < pixels; ++i) {
        const uint8_t* s = image.pixels.data() + i * from;
        uint8_t* d = out.pixels.data() + i * channels;
        const uint8_t r = s[0], g = from >= 3 ? s[1] : s[0], b = from >= 3 ? s[2] : s[0];
        if (channels == 1) {
            d[0] = static_cast<uint8_t>((299 * r + 587 * g + 114 * b + 500) / 1000);
        } else {
            d[0] = r, d[1] = g, d[2] = b;
            if (channels == 4) d[3] = from == 4 ? s[3] : 255;
        }
    }
    return out;
}

Image resizeImage(const Image& image, int width, int height) {
    if (image.width == width && image.height == height) return image;
    if (width <= 0 || height <= 0 || image.empty()) fail(ErrorKind::Internal, "resizeImage: empty image or size");
    Image out(width, height, image.channels);
    const int alpha = image.channels == 4 ? 3 : STBIR_ALPHA_CHANNEL_NONE;
    if (!stbir_resize_uint8_generic(image.pixels.data(), image.width, image.height, 0, out.pixels.data(), width, height,
                                    0, image.channels, alpha, 0, STBIR_EDGE_CLAMP, STBIR_FILTER_TRIANGLE,
                                    STBIR_COLORSPACE_LINEAR, nullptr))
        fail(ErrorKind::Internal, "stb_image_resize failed");
    return out;
}

}  // namespace npuwb::imageio
