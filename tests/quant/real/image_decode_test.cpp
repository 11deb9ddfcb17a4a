// decodeImageFile (npuwb/Image.h) against Qt's decoders on files Qt's encoders write: the same pixels for PNG (RGB,
// RGBA, gray, palette, 16-bit), BMP (24-bit, 32-bit, 8-bit palette) and JPEG (both use libjpeg-turbo's default IDCT),
// JPEG EXIF orientations turned as Qt's autoTransform turns them; hostile files (huge dimensions in the header, cut
// short, garbage, CMYK) refused with the file named, before any pixel is decoded. Files are written with Qt's encoders
// (and TurboJPEG's for CMYK, which Qt 6.4 cannot write).
#include <gtest/gtest.h>
#include <turbojpeg.h>
#include <zlib.h>

#include <QImage>
#include <QImageReader>
#include <QImageWriter>

#include <filesystem>
#include <fstream>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/Image.h"

namespace fs = std::filesystem;
using namespace npuwb;
using namespace npuwb::imageio;

namespace {

class ImageDecodeTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("npuwb_decode_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    /// Every pixel different, in every channel (alpha too).
    static QImage pattern(int w, int h, QImage::Format format) {
        QImage image(w, h, QImage::Format_RGBA8888);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                image.setPixelColor(x, y, QColor((x * 37 + y * 11) % 256, (x * 5 + y * 53) % 256, (x * y + 7) % 256,
                                                 format == QImage::Format_RGBA8888 ? 128 + (x + y) % 128 : 255));
        return image.convertToFormat(format);
    }
    std::string save(const QImage& image, const std::string& name, const char* format, int quality = -1,
                     QImageIOHandler::Transformations turn = QImageIOHandler::TransformationNone) const {
        QImageWriter writer(QString::fromStdString(path(name)), format);
        writer.setQuality(quality);
        writer.setTransformation(turn);
        EXPECT_TRUE(writer.write(image)) << name << ": " << writer.errorString().toStdString();
        return path(name);
    }
    /// What Qt reads from `file` (EXIF orientation applied) as RGB, RGBA or gray bytes like ours.
    static QImage qtRead(const std::string& file, int channels) {
        QImageReader reader(QString::fromStdString(file));
        reader.setAutoTransform(true);
        const QImage image = reader.read();
        return image.convertToFormat(channels == 1   ? QImage::Format_Grayscale8
                                     : channels == 4 ? QImage::Format_RGBA8888
                                                     : QImage::Format_RGB888);
    }
    static void expectSamePixels(const Image& ours, const QImage& qt, const std::string& what) {
        ASSERT_EQ(ours.width, qt.width()) << what;
        ASSERT_EQ(ours.height, qt.height()) << what;
        int differ = 0;
        for (int y = 0; y < ours.height; ++y)
            differ += std::memcmp(ours.row(y), qt.constScanLine(y), static_cast<size_t>(ours.width) * ours.channels) != 0;
        EXPECT_EQ(differ, 0) << what << ": rows that differ from Qt's decoding";
    }
    template <class F> std::string errorOf(F&& f) const {
        try {
            f();
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::InvalidInput) << e.what();
            return e.what();
        }
        ADD_FAILURE() << "no error thrown";
        return {};
    }

    fs::path dir_;
};

}  // namespace

TEST_F(ImageDecodeTest, PngVariantsMatchQt) {
    struct Variant {
        const char* name;
        QImage::Format format;
        int channels;
    };
    for (const Variant& v : {Variant{"rgb.png", QImage::Format_RGB888, 3}, Variant{"rgba.png", QImage::Format_RGBA8888, 4},
                             Variant{"gray.png", QImage::Format_Grayscale8, 1},
                             Variant{"gray16.png", QImage::Format_Grayscale16, 1},
                             Variant{"rgb16.png", QImage::Format_RGBX64, 3}}) {
        const std::string file = save(pattern(23, 17, v.format), v.name, "PNG");
        const Image ours = decodeImageFile(file);
        EXPECT_EQ(ours.channels, v.channels) << v.name;
        expectSamePixels(ours, qtRead(file, ours.channels), v.name);
    }
    // A palette PNG: expanded to RGB.
    QImage indexed = pattern(19, 11, QImage::Format_RGB888).convertToFormat(QImage::Format_Indexed8);
    const std::string file = save(indexed, "palette.png", "PNG");
    const Image ours = decodeImageFile(file);
    EXPECT_EQ(ours.channels, 3);
    expectSamePixels(ours, qtRead(file, 3), "palette.png");
}

TEST_F(ImageDecodeTest, BmpVariantsMatchQt) {
    for (const auto& [name, format] : {std::pair{"rgb.bmp", QImage::Format_RGB888}, std::pair{"rgb32.bmp", QImage::Format_RGB32},
                                       std::pair{"indexed.bmp", QImage::Format_Indexed8}}) {
        QImage image = pattern(21, 13, QImage::Format_RGB888);
        image = image.convertToFormat(format);
        const std::string file = save(image, name, "BMP");
        const Image ours = decodeImageFile(file);
        EXPECT_EQ(ours.channels, 3) << name;
        expectSamePixels(ours, qtRead(file, 3), name);
    }
}

TEST_F(ImageDecodeTest, JpegMatchesQtAndTurnsByExifOrientation) {
    const QImage picture = pattern(40, 24, QImage::Format_RGB888);
    const std::string plain = save(picture, "plain.jpg", "JPG", 90);
    const Image ours = decodeImageFile(plain);
    EXPECT_EQ(ours.channels, 3);
    expectSamePixels(ours, qtRead(plain, 3), "plain.jpg");
    const std::string gray = save(picture.convertToFormat(QImage::Format_Grayscale8), "gray.jpg", "JPG", 90);
    const Image oursGray = decodeImageFile(gray);
    EXPECT_EQ(oursGray.channels, 1);
    expectSamePixels(oursGray, qtRead(gray, 1), "gray.jpg");
    using T = QImageIOHandler;
    const std::vector<std::pair<int, T::Transformations>> turns = {
        {2, T::TransformationMirror}, {3, T::TransformationRotate180}, {4, T::TransformationFlip},
        {5, T::TransformationFlipAndRotate90}, {6, T::TransformationRotate90}, {7, T::TransformationMirrorAndRotate90},
        {8, T::TransformationRotate270}};
    for (const auto& [orientation, turn] : turns) {
        const std::string name = "exif" + std::to_string(orientation) + ".jpg";
        const std::string file = save(picture, name, "JPG", 90, turn);
        const Image turned = decodeImageFile(file);
        EXPECT_EQ(turned.width, orientation >= 5 ? 24 : 40) << name;
        expectSamePixels(turned, qtRead(file, 3), name);
    }
}

TEST_F(ImageDecodeTest, HugeDimensionsAreRefusedFromTheHeader) {
    // PNG: IHDR says 30000 x 30000 (900 Mpixel) with a valid CRC; nothing else follows that could be decoded.
    std::string png = readFile(save(pattern(4, 4, QImage::Format_RGB888), "small.png", "PNG"));
    const auto put32 = [](std::string& s, size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>(v >> (24 - 8 * i));
    };
    put32(png, 16, 30000);
    put32(png, 20, 30000);
    put32(png, 29, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(png.data() + 12), 17)));
    writeFileAtomically(path("huge.png"), png);
    EXPECT_NE(errorOf([&] { decodeImageFile(path("huge.png")); }).find("huge.png: the image is 30000x30000"),
              std::string::npos);
    // JPEG: the frame header (SOF) says 60000 x 60000.
    std::string jpg = readFile(save(pattern(16, 16, QImage::Format_RGB888), "small.jpg", "JPG", 90));
    size_t sof = jpg.find("\xff\xc0");
    ASSERT_NE(sof, std::string::npos);
    jpg[sof + 5] = jpg[sof + 7] = static_cast<char>(60000 >> 8);
    jpg[sof + 6] = jpg[sof + 8] = static_cast<char>(60000 & 0xff);
    writeFileAtomically(path("huge.jpg"), jpg);
    EXPECT_NE(errorOf([&] { decodeImageFile(path("huge.jpg")); }).find("huge.jpg: the image is 60000x60000"),
              std::string::npos);
    // BMP: the DIB header says 100000 x -100000 (top-down); the loader would allocate 30 GB from it.
    std::string bmp = readFile(save(pattern(4, 4, QImage::Format_RGB888), "small.bmp", "BMP"));
    const auto putLe32 = [](std::string& s, size_t at, int32_t v) {
        for (int i = 0; i < 4; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint32_t>(v) >> (8 * i));
    };
    putLe32(bmp, 18, 100000);
    putLe32(bmp, 22, -100000);
    writeFileAtomically(path("huge.bmp"), bmp);
    EXPECT_NE(errorOf([&] { decodeImageFile(path("huge.bmp")); }).find("huge.bmp: the image is 100000x100000"),
              std::string::npos);
}

TEST_F(ImageDecodeTest, DamagedAndUnknownFilesAreClearErrors) {
    const std::string png = readFile(save(pattern(32, 32, QImage::Format_RGB888), "ok.png", "PNG"));
    writeFileAtomically(path("cut.png"), png.substr(0, png.size() / 2));
    EXPECT_NE(errorOf([&] { decodeImageFile(path("cut.png")); }).find("cut.png: damaged PNG"), std::string::npos);
    writeFileAtomically(path("header.png"), png.substr(0, 20));
    EXPECT_NE(errorOf([&] { decodeImageFile(path("header.png")); }).find("header.png: cannot decode the PNG header"),
              std::string::npos);
    const std::string bmp = readFile(save(pattern(32, 32, QImage::Format_RGB888), "ok.bmp", "BMP"));
    writeFileAtomically(path("cut.bmp"), bmp.substr(0, bmp.size() / 2));
    EXPECT_NE(errorOf([&] { decodeImageFile(path("cut.bmp")); }).find("cut.bmp: cannot decode the BMP"), std::string::npos);
    writeFileAtomically(path("stub.bmp"), "BM\x10");
    EXPECT_NE(errorOf([&] { decodeImageFile(path("stub.bmp")); }).find("stub.bmp: damaged BMP"), std::string::npos);
    writeFileAtomically(path("text.jpg"), "not an image at all");
    EXPECT_NE(errorOf([&] { decodeImageFile(path("text.jpg")); }).find("text.jpg: cannot decode the image: not a PNG, JPEG or BMP"),
              std::string::npos);
    writeFileAtomically(path("bad.jpg"), std::string("\xff\xd8\xff\xe0", 4) + std::string(40, '\x11'));
    EXPECT_NE(errorOf([&] { decodeImageFile(path("bad.jpg")); }).find("bad.jpg: cannot decode the JPEG header"),
              std::string::npos);
    // A JPEG cut short decodes as far as it goes (the rest padded), as Qt and OpenCV read it.
    const std::string jpg = readFile(save(pattern(64, 64, QImage::Format_RGB888), "ok.jpg", "JPG", 90));
    writeFileAtomically(path("cut.jpg"), jpg.substr(0, jpg.size() * 3 / 4));
    EXPECT_EQ(decodeImageFile(path("cut.jpg")).width, 64);
    try {
        decodeImageFile(path("missing.png"));
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("missing.png"), std::string::npos);
    }
    // A CMYK JPEG (as print workflows write them; TurboJPEG's encoder makes one): a clear refusal.
    std::vector<unsigned char> cmyk(8 * 8 * 4, 0);
    for (size_t i = 0; i < cmyk.size(); i += 4) cmyk[i + 1] = cmyk[i + 2] = 255;  // red
    tjhandle encoder = tjInitCompress();
    unsigned char* jpeg = nullptr;
    unsigned long jpegSize = 0;
    ASSERT_EQ(tjCompress2(encoder, cmyk.data(), 8, 0, 8, TJPF_CMYK, &jpeg, &jpegSize, TJSAMP_444, 90, 0), 0);
    writeFileAtomically(path("cmyk.jpg"), std::string(reinterpret_cast<char*>(jpeg), jpegSize));
    tjFree(jpeg);
    tjDestroy(encoder);
    EXPECT_NE(errorOf([&] { decodeImageFile(path("cmyk.jpg")); }).find("cmyk.jpg: CMYK JPEG images are not supported"),
              std::string::npos);
}

TEST_F(ImageDecodeTest, ResizeAndChannelConversions) {
    Image solid(7, 5, 3);
    for (size_t i = 0; i < solid.pixels.size(); ++i) solid.pixels[i] = static_cast<uint8_t>(i % 3 == 0 ? 200 : i % 3 == 1 ? 100 : 50);
    for (const auto& [w, h] : {std::pair{3, 2}, std::pair{20, 11}}) {  // shrink and enlarge keep a solid colour exact
        const Image r = resizeImage(solid, w, h);
        ASSERT_EQ(r.pixels.size(), static_cast<size_t>(w * h * 3));
        for (size_t i = 0; i < r.pixels.size(); ++i) ASSERT_EQ(r.pixels[i], solid.pixels[i % 3]) << w << "x" << h;
    }
    // 2x2 -> 1x1 averages; a left-right ramp enlarged stays monotonic between its ends.
    Image four(2, 2, 1);
    four.pixels = {0, 100, 200, 60};
    EXPECT_EQ(resizeImage(four, 1, 1).pixels, (std::vector<uint8_t>{90}));
    Image ramp(2, 1, 1);
    ramp.pixels = {0, 240};
    const Image wide = resizeImage(ramp, 8, 1);
    EXPECT_TRUE(std::is_sorted(wide.pixels.begin(), wide.pixels.end()));
    EXPECT_LT(wide.pixels.front(), 30);
    EXPECT_GT(wide.pixels.back(), 210);
    // BT.601 gray; gray to RGB repeats; RGBA drops alpha, RGB gains an opaque one.
    Image rgb(1, 1, 3);
    rgb.pixels = {255, 0, 0};
    EXPECT_EQ(convertChannels(rgb, 1).pixels, (std::vector<uint8_t>{76}));
    EXPECT_EQ(convertChannels(convertChannels(rgb, 1), 3).pixels, (std::vector<uint8_t>{76, 76, 76}));
    EXPECT_EQ(convertChannels(rgb, 4).pixels, (std::vector<uint8_t>{255, 0, 0, 255}));
    Image rgba(1, 1, 4);
    rgba.pixels = {1, 2, 3, 4};
    EXPECT_EQ(convertChannels(rgba, 3).pixels, (std::vector<uint8_t>{1, 2, 3}));
}
