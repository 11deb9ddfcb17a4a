// PNG through libpng: the header is read and its size checked before any row is decoded. Palettes, low bit depths
// and tRNS transparency are expanded, 16-bit samples scaled to 8 bits with rounding; gamma and colour profiles are
// not applied (as OpenCV and Qt read pixels).
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "imageio/Decoders.h"
#include "npuwb/Error.h"

namespace npuwb::imageio::detail {

namespace {

struct PngContext {
    const std::string* bytes = nullptr;
    size_t offset = 0;
    char error[256] = {};
};

void readFromMemory(png_structp png, png_bytep out, png_size_t length) {
    auto* ctx = static_cast<PngContext*>(png_get_io_ptr(png));
    if (length > ctx->bytes->size() - ctx->offset) png_error(png, "the file is cut short");
    std::memcpy(out, ctx->bytes->data() + ctx->offset, length);
    ctx->offset += length;
}

void onError(png_structp png, png_const_charp message) {
    auto* ctx = static_cast<PngContext*>(png_get_error_ptr(png));
    std::snprintf(ctx->error, sizeof ctx->error, "%s", message);
    png_longjmp(png, 1);
}

void onWarning(png_structp, png_const_charp) {}  // e.g. a colour profile libpng does not like: not our business

/// Reads the header and sets the transforms. No object with a destructor lives in here: libpng leaves by longjmp.
bool readHeader(png_structp png, png_infop info, png_uint_32& width, png_uint_32& height, int& channels) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_set_user_limits(png, ImageLimits::kMaxSide, ImageLimits::kMaxSide);
    png_read_info(png, info);
    width = png_get_image_width(png, info);
    height = png_get_image_height(png, info);
    const int colorType = png_get_color_type(png, info);
    const bool transparency = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    png_set_expand(png);  // palette -> RGB, 1/2/4-bit gray -> 8 bits, tRNS -> alpha
    png_set_scale_16(png);
    if (!(colorType & PNG_COLOR_MASK_COLOR) && ((colorType & PNG_COLOR_MASK_ALPHA) || transparency))
        png_set_gray_to_rgb(png);  // gray + alpha: RGBA (images here have 1, 3 or 4 channels)
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    channels = png_get_channels(png, info);
    return true;
}

bool readPixels(png_structp png, png_infop info, png_bytepp rows) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_read_image(png, rows);
    png_read_end(png, info);
    return true;
}

}  // namespace

Image decodePng(const std::string& path, const std::string& bytes) {
    PngContext ctx;
    ctx.bytes = &bytes;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, onError, onWarning);
    if (!png) fail(ErrorKind::Internal, path + ": libpng could not start");
    png_infop info = png_create_info_struct(png);
    struct Release {
        png_structp& png;
        png_infop& info;
        ~Release() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
    } release{png, info};
    if (!info) fail(ErrorKind::Internal, path + ": libpng could not start");
    png_set_read_fn(png, &ctx, readFromMemory);
    png_uint_32 width = 0, height = 0;
    int channels = 0;
    if (!readHeader(png, info, width, height, channels))
        failInput(path + ": cannot decode the PNG header (" + ctx.error + ")");
    checkDimensions(path, width, height);
    if (channels != 1 && channels != 3 && channels != 4)
        failInput(path + ": unexpected PNG layout with " + std::to_string(channels) + " channels");
    Image image(static_cast<int>(width), static_cast<int>(height), channels);
    std::vector<png_bytep> rows(height);
    for (png_uint_32 y = 0; y < height; ++y) rows[y] = image.row(static_cast<int>(y));
    if (!readPixels(png, info, rows.data())) failInput(path + ": damaged PNG (" + ctx.error + ")");
    return image;
}

}  // namespace npuwb::imageio::detail
