// JPEG through libjpeg-turbo's libjpeg API, with libjpeg's default (accurate, "islow") IDCT and smooth chroma
// upsampling, as Qt and OpenCV decode. The header is read and the size checked before decoding; progressive files
// with more than kMaxScans scans are refused (a known way to make a decoder work without bound). The EXIF
// orientation comes from the APP1 marker through libexif.
#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>
#include <libexif/exif-data.h>

#include <csetjmp>
#include <cstring>
#include <vector>

#include "imageio/Decoders.h"
#include "npuwb/Error.h"

namespace npuwb::imageio::detail {

namespace {

constexpr int kMaxScans = 500;  // what libjpeg-turbo's own tools take as the sane limit (djpeg -maxscans)

struct ErrorManager {
    jpeg_error_mgr base;  // first: libjpeg casts cinfo->err to it
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX] = {};
};

void onError(j_common_ptr cinfo) {
    auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}

void onMessage(j_common_ptr, int) {}  // warnings (e.g. a cut-short file, padded as Qt and OpenCV pad it)

void onProgress(j_common_ptr cinfo) {
    auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
    if (d->input_scan_number > kMaxScans) {
        auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
        std::snprintf(err->message, sizeof err->message, "more than %d progressive scans", kMaxScans);
        std::longjmp(err->jump, 1);
    }
}

/// The EXIF orientation (1-8) in the saved APP1 markers, 1 when there is none.
int exifOrientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < 6 || std::memcmp(m->data, "Exif\0\0", 6) != 0) continue;
        ExifData* exif = exif_data_new_from_data(m->data, m->data_length);
        if (!exif) continue;
        int orientation = 1;
        if (ExifEntry* e = exif_data_get_entry(exif, EXIF_TAG_ORIENTATION); e && e->format == EXIF_FORMAT_SHORT)
            orientation = exif_get_short(e->data, exif_data_get_byte_order(exif));
        exif_data_unref(exif);
        return orientation >= 1 && orientation <= 8 ? orientation : 1;
    }
    return 1;
}

/// Reads the header and picks the output. No object with a destructor lives in here: libjpeg leaves by longjmp.
bool readHeader(jpeg_decompress_struct& cinfo, ErrorManager& err, const std::string& bytes, bool& cmyk) {
    if (setjmp(err.jump)) return false;
    jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_calc_output_dimensions(&cinfo);
    return true;
}

bool readPixels(jpeg_decompress_struct& cinfo, ErrorManager& err, JSAMPROW* rows) {
    if (setjmp(err.jump)) return false;
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) jpeg_read_scanlines(&cinfo, rows + cinfo.output_scanline, 1);
    jpeg_finish_decompress(&cinfo);
    return true;
}

}  // namespace

Image decodeJpeg(const std::string& path, const std::string& bytes, int& orientation) {
    jpeg_decompress_struct cinfo{};
    ErrorManager err;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = onError;
    err.base.emit_message = onMessage;
    jpeg_create_decompress(&cinfo);
    struct Release {
        jpeg_decompress_struct& cinfo;
        ~Release() { jpeg_destroy_decompress(&cinfo); }
    } release{cinfo};
    jpeg_progress_mgr progress{};
    progress.progress_monitor = onProgress;
    cinfo.progress = &progress;
    bool cmyk = false;
    if (!readHeader(cinfo, err, bytes, cmyk)) failInput(path + ": cannot decode the JPEG header (" + err.message + ")");
    if (cmyk) failInput(path + ": CMYK JPEG images are not supported; save it as RGB");
    checkDimensions(path, cinfo.output_width, cinfo.output_height);
    orientation = exifOrientation(&cinfo);
    Image image(static_cast<int>(cinfo.output_width), static_cast<int>(cinfo.output_height),
                cinfo.out_color_space == JCS_GRAYSCALE ? 1 : 3);
    std::vector<JSAMPROW> rows(static_cast<size_t>(image.height));
    for (int y = 0; y < image.height; ++y) rows[static_cast<size_t>(y)] = image.row(y);
    if (!readPixels(cinfo, err, rows.data())) failInput(path + ": damaged JPEG (" + err.message + ")");
    return image;
}

}  // namespace npuwb::imageio::detail
