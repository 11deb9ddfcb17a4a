// npuwb_imageio on real files made here: PNG/BMP/JPEG images saved with QImage, .npy arrays written with the
// engine's writer, dataset.txt lists with comments, relative paths and several inputs, and every error case.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <QColor>
#include <QImage>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "npuwb/DatasetSampleSource.h"
#include "npuwb/Error.h"
#include "npuwb/Npy.h"

namespace fs = std::filesystem;
using namespace npuwb;
using namespace npuwb::imageio;

namespace {

ValueInfo imageInput(const std::string& name, SymShape shape, DType dtype = DType::F32) {
    ValueInfo v;
    v.name = name;
    v.type.dtype = dtype;
    v.type.shape = std::move(shape);
    return v;
}
SymShape dims(std::initializer_list<int64_t> values) {
    SymShape s;
    for (int64_t v : values) s.push_back(v < 0 ? Dim::named("n") : Dim::of(v));
    return s;
}

class ImageioTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("npuwb_imageio_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name), std::ios::binary) << text;
        return path(name);
    }
    std::string solid(const std::string& name, QColor color, int w = 8, int h = 8, const char* format = nullptr) const {
        QImage image(w, h, QImage::Format_RGB888);
        image.fill(color);
        EXPECT_TRUE(image.save(QString::fromStdString(path(name)), format)) << name;
        return path(name);
    }
    // Every pixel different: value = x*16 + y in red, 255 - that in green, y*8 in blue.
    std::string gradient(const std::string& name, int w, int h) const {
        QImage image(w, h, QImage::Format_RGB888);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) image.setPixelColor(x, y, QColor((x * 16 + y) % 256, 255 - (x * 16 + y) % 256, y * 8 % 256));
        EXPECT_TRUE(image.save(QString::fromStdString(path(name))));
        return path(name);
    }
    template <class F> std::string errorOf(F&& f) const {
        try {
            f();
        } catch (const Error& e) {
            return e.what();
        }
        ADD_FAILURE() << "no error thrown";
        return {};
    }

    fs::path dir_;
};

TEST_F(ImageioTest, ParsesListWithCommentsBlankLinesAndRelativePaths) {
    fs::create_directories(dir_ / "sub");
    solid("sub/a.png", Qt::red);
    solid("b.bmp", Qt::green, 8, 8, "BMP");
    const std::string list = write("list.txt", "# calibration set\n\nsub/a.png\n   \n" + path("b.bmp") + "  \n# end\n");
    const DatasetList parsed = parseDatasetList(list);
    ASSERT_EQ(parsed.entries.size(), 2u);
    EXPECT_EQ(parsed.entries[0].line, 3);
    EXPECT_EQ(parsed.entries[1].line, 5);
    EXPECT_EQ(parsed.entries[0].files[0], (dir_ / "sub" / "a.png").string());
    EXPECT_EQ(parsed.originOf(1), list + ":5");
}

TEST_F(ImageioTest, SolidColoursGiveExactNormalizedValuesInNchwRgb) {
    solid("red.png", QColor(200, 100, 50));
    const std::string list = write("list.txt", "red.png\n");
    Preprocessing p;
    p.scale = 1.0f;
    p.mean = {100.0f, 50.0f, 25.0f};
    p.std = {50.0f, 25.0f, 5.0f};
    const auto source = makeSampleSource(list, {imageInput("x", dims({1, 3, 4, 4}))}, {{"x", p}});
    const quant::Sample s = source->load(0);
    const Tensor& t = s.inputs.at("x");
    ASSERT_EQ(t.shape(), (Shape{1, 3, 4, 4}));
    ASSERT_EQ(t.dtype(), DType::F32);
    const float* v = t.data<float>();
    for (int i = 0; i < 16; ++i) {
        EXPECT_FLOAT_EQ(v[i], 2.0f);        // (200 - 100) / 50
        EXPECT_FLOAT_EQ(v[16 + i], 2.0f);   // (100 - 50) / 25
        EXPECT_FLOAT_EQ(v[32 + i], 5.0f);   // (50 - 25) / 5
    }
    EXPECT_EQ(s.origin, list + ":1");
}

TEST_F(ImageioTest, BgrNhwcAndPixelPositionsWithoutResize) {
    gradient("g.png", 5, 3);
    const std::string list = write("list.txt", "g.png\n");
    Preprocessing p;
    p.color = ColorOrder::BGR;  // layout is guessed: the last dim is 3, dim 1 is 3 rows... so force NHWC
    p.layout = Layout::NHWC;
    const auto source = makeSampleSource(list, {imageInput("img", dims({1, 3, 5, 3}))}, {{"*", p}});
    EXPECT_EQ(source->inputs()[0].layout, Layout::NHWC);
    const Tensor t = source->load(0).inputs.at("img");
    ASSERT_EQ(t.shape(), (Shape{1, 3, 5, 3}));
    const float* v = t.data<float>();
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) {
            const float* px = v + (y * 5 + x) * 3;
            EXPECT_FLOAT_EQ(px[0], (y * 8) / 255.0f) << x << "," << y;         // blue first
            EXPECT_FLOAT_EQ(px[1], (255 - (x * 16 + y) % 256) / 255.0f);
            EXPECT_FLOAT_EQ(px[2], (x * 16 + y) % 256 / 255.0f);
        }
}

TEST_F(ImageioTest, LayoutGuessedFromShape) {
    Preprocessing p;
    EXPECT_EQ(resolveInput(imageInput("a", dims({1, 3, 224, 224})), p).layout, Layout::NCHW);
    EXPECT_EQ(resolveInput(imageInput("a", dims({1, 224, 224, 3})), p).layout, Layout::NHWC);
    EXPECT_EQ(resolveInput(imageInput("a", dims({1, 1, 48, 320})), p).layout, Layout::NCHW);
    const InputGeometry g = resolveInput(imageInput("a", dims({-1, 3, 48, 320})), p);
    EXPECT_EQ(g.shape, (Shape{1, 3, 48, 320}));
    EXPECT_EQ(g.width, 320);
    EXPECT_EQ(g.height, 48);
    // Symbolic width: needs a size.
    SymShape sym = dims({1, 3, 48, 1});
    sym[3] = Dim::named("w");
    EXPECT_NE(errorOf([&] { resolveInput(imageInput("a", sym), p); }).find("size"), std::string::npos);
    p.width = 160;
    p.height = 48;
    EXPECT_EQ(resolveInput(imageInput("a", sym), p).shape, (Shape{1, 3, 48, 160}));
}

TEST_F(ImageioTest, GrayInputAndLetterboxFill) {
    solid("wide.png", QColor(255, 255, 255), 8, 4);  // 2:1 into 4x4: rows 0 and 3 are border
    const std::string list = write("list.txt", "wide.png\n");
    Preprocessing p;
    p.resize = ResizeMode::Letterbox;
    p.fill = 51.0f;
    const auto source = makeSampleSource(list, {imageInput("x", dims({1, 1, 4, 4}))}, {{"x", p}});
    const Tensor t = source->load(0).inputs.at("x");
    ASSERT_EQ(t.shape(), (Shape{1, 1, 4, 4}));
    const float* v = t.data<float>();
    for (int x = 0; x < 4; ++x) {
        EXPECT_FLOAT_EQ(v[x], 0.2f);           // fill 51 / 255
        EXPECT_FLOAT_EQ(v[12 + x], 0.2f);
        EXPECT_FLOAT_EQ(v[4 + x], 1.0f);       // the white image
        EXPECT_FLOAT_EQ(v[8 + x], 1.0f);
    }
    // Stretch instead: no border.
    p.resize = ResizeMode::Stretch;
    const auto stretched = makeSampleSource(list, {imageInput("x", dims({1, 1, 4, 4}))}, {{"x", p}});
    const Tensor whole = stretched->load(0).inputs.at("x");
    for (float value : whole.values<float>()) EXPECT_FLOAT_EQ(value, 1.0f);
}

TEST_F(ImageioTest, JpegAndBmpDecode) {
    solid("a.jpg", QColor(40, 160, 220), 16, 16, "JPG");
    solid("b.bmp", QColor(40, 160, 220), 16, 16, "BMP");
    const std::string list = write("list.txt", "a.jpg\nb.bmp\n");
    const auto source = makeSampleSource(list, {imageInput("x", dims({1, 3, 8, 8}))});
    for (size_t i = 0; i < 2; ++i) {
        const Tensor t = source->load(i).inputs.at("x");
        const float expected[3] = {40 / 255.0f, 160 / 255.0f, 220 / 255.0f};
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 64; ++k) EXPECT_NEAR(t.data<float>()[c * 64 + k], expected[c], i == 0 ? 0.03 : 1e-6);
    }
}

TEST_F(ImageioTest, NpyEntriesWithAndWithoutBatchAndMultiInputLines) {
    std::vector<float> values(2 * 5);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
    writeNpy(path("full.npy"), Tensor::fromVector<float>({1, 2, 5}, values));
    writeNpy(path("nobatch.npy"), Tensor::fromVector<float>({2, 5}, values));
    solid("img.png", QColor(255, 0, 0), 4, 4);
    const std::string list = write("list.txt", "img.png full.npy\nimg.png nobatch.npy\n");
    const auto source =
        makeSampleSource(list, {imageInput("image", dims({1, 3, 4, 4})), imageInput("state", dims({1, 2, 5}))});
    ASSERT_EQ(source->size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const quant::Sample s = source->load(i);
        ASSERT_EQ(s.inputs.size(), 2u);
        EXPECT_EQ(s.inputs.at("state").shape(), (Shape{1, 2, 5}));
        EXPECT_EQ(s.inputs.at("state").toFloatVector(), values);
        EXPECT_FLOAT_EQ(s.inputs.at("image").data<float>()[0], 1.0f);
        EXPECT_FLOAT_EQ(s.inputs.at("image").data<float>()[16], 0.0f);
    }
}

// PP-OCR models declare [?,3,?,?]: .npy samples give the shape themselves (the GUI's Quantize dialog failed on
// them, asking for a preprocessing size only images need); every file must then have the first one's shape.
TEST_F(ImageioTest, NpyOnlyInputWithSymbolicDimsTakesTheFirstFilesShape) {
    const std::vector<float> values(3 * 6 * 10, 0.25f);
    writeNpy(path("a.npy"), Tensor::fromVector<float>({1, 3, 6, 10}, values));
    writeNpy(path("b.npy"), Tensor::fromVector<float>({3, 6, 10}, values));
    writeNpy(path("c.npy"), Tensor::fromVector<float>({1, 3, 10, 6}, values));
    const ValueInfo x = imageInput("x", dims({-1, 3, -1, -1}));
    const auto source = makeSampleSource(write("list.txt", "a.npy\nb.npy\nc.npy\n"), {x});
    EXPECT_EQ(source->inputs()[0].shape, (Shape{1, 3, 6, 10}));
    EXPECT_EQ(source->load(0).inputs.at("x").shape(), (Shape{1, 3, 6, 10}));
    EXPECT_EQ(source->load(1).inputs.at("x").shape(), (Shape{1, 3, 6, 10}));
    const std::string wrong = errorOf([&] { source->load(2); });
    EXPECT_NE(wrong.find("list.txt:3"), std::string::npos) << wrong;
    EXPECT_NE(wrong.find("wrong shape"), std::string::npos) << wrong;
    // A declared dimension the file contradicts is named at once; an image still needs a size.
    const std::string channels = errorOf([&] { makeSampleSource(path("list.txt"), {imageInput("x", dims({-1, 4, -1, -1}))}); });
    EXPECT_NE(channels.find("wrong shape"), std::string::npos) << channels;
    solid("img.png", QColor(1, 2, 3), 4, 4);
    const std::string image = errorOf([&] { makeSampleSource(write("images.txt", "img.png\n"), {x}); });
    EXPECT_NE(image.find("size"), std::string::npos) << image;
}

TEST_F(ImageioTest, FolderIsSortedImages) {
    solid("b.png", QColor(0, 0, 0), 4, 4);
    solid("a.png", QColor(255, 255, 255), 4, 4);
    write("notes.txt", "ignored");
    const auto source = makeSampleSource(dir_.string(), {imageInput("x", dims({1, 3, 4, 4}))});
    ASSERT_EQ(source->size(), 2u);
    EXPECT_FLOAT_EQ(source->load(0).inputs.at("x").data<float>()[0], 1.0f);  // a.png first
    EXPECT_FLOAT_EQ(source->load(1).inputs.at("x").data<float>()[0], 0.0f);
    EXPECT_EQ(source->load(0).origin, path("a.png"));
}

TEST_F(ImageioTest, ContentHashIsStableAndSeesBytesAndPreprocessing) {
    solid("a.png", QColor(10, 20, 30), 4, 4);
    const std::string list = write("list.txt", "a.png\n");
    const std::vector<ValueInfo> inputs{imageInput("x", dims({1, 3, 4, 4}))};
    const std::string h1 = makeSampleSource(list, inputs)->contentHash();
    EXPECT_EQ(h1.size(), 64u);
    EXPECT_EQ(h1, makeSampleSource(list, inputs)->contentHash());
    Preprocessing p;
    p.mean = {0.5f};
    EXPECT_NE(h1, makeSampleSource(list, inputs, {{"x", p}})->contentHash());
    solid("a.png", QColor(10, 20, 31), 4, 4);  // one byte of colour differs
    EXPECT_NE(h1, makeSampleSource(list, inputs)->contentHash());
}

TEST_F(ImageioTest, ConcurrentLoadsAgreeWithSequentialOnes) {
    std::string text;
    for (int i = 0; i < 12; ++i) {
        const std::string name = std::to_string(i) + ".png";  // no "literal" + string: GCC 12 -Wrestrict false positive
        gradient(name, 6 + i, 5);
        text += name + "\n";
    }
    const auto source = makeSampleSource(write("list.txt", text), {imageInput("x", dims({1, 3, 8, 8}))});
    std::vector<std::vector<float>> sequential;
    for (size_t i = 0; i < source->size(); ++i) sequential.push_back(source->load(i).inputs.at("x").toFloatVector());
    std::vector<std::vector<float>> parallel(source->size());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (size_t i = t; i < source->size(); i += 4) parallel[i] = source->load(i).inputs.at("x").toFloatVector();
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(parallel, sequential);
    EXPECT_NE(sequential[0], sequential[1]);  // different sizes resample differently
}

TEST_F(ImageioTest, PreprocessingJsonRoundTripAndSingleObjectFile) {
    Preprocessing p;
    p.mean = {123.675f, 116.28f, 103.53f};
    p.std = {58.395f, 57.12f, 57.375f};
    p.scale = 1.0f;
    p.color = ColorOrder::BGR;
    p.resize = ResizeMode::Letterbox;
    p.fill = 114.0f;
    p.layout = Layout::NHWC;
    p.dtype = DType::F16;
    p.width = 64;
    p.height = 32;
    savePreprocessingFile(path("pre.json"), {{"images", p}});
    const PreprocessingSet loaded = loadPreprocessingFile(path("pre.json"));
    ASSERT_EQ(loaded.count("images"), 1u);
    EXPECT_EQ(preprocessingToJson(loaded.at("images")), preprocessingToJson(p));
    const PreprocessingSet single = loadPreprocessingFile(write("one.json", R"({"mean": 127.5, "std": 127.5, "scale": 1})"));
    const Preprocessing& any = preprocessingFor(single, "whatever");
    EXPECT_EQ(any.mean, std::vector<float>{127.5f});
    EXPECT_EQ(any.scale, 1.0f);
    EXPECT_EQ(any.color, ColorOrder::RGB);  // untouched default
}

TEST_F(ImageioTest, ErrorsNameTheListLineAndFile) {
    solid("ok.png", Qt::red, 4, 4);
    write("broken.png", "this is not a PNG at all");
    writeNpy(path("wrongshape.npy"), Tensor(DType::F32, {1, 3, 5, 4}));
    writeNpy(path("wrongtype.npy"), Tensor(DType::I32, {1, 3, 4, 4}));
    const std::string list =
        write("list.txt", "ok.png\n# comment\nmissing.png\nbroken.png\nwrongshape.npy\nwrongtype.npy\nnotes.txt\n");
    const std::vector<ValueInfo> inputs{imageInput("x", dims({1, 3, 4, 4}))};
    const auto source = makeSampleSource(list, inputs);
    EXPECT_NO_THROW(source->load(0));
    const std::string missing = errorOf([&] { source->load(1); });
    EXPECT_NE(missing.find(list + ":3"), std::string::npos) << missing;
    EXPECT_NE(missing.find("missing.png"), std::string::npos) << missing;
    const std::string broken = errorOf([&] { source->load(2); });
    EXPECT_NE(broken.find(list + ":4"), std::string::npos) << broken;
    EXPECT_NE(broken.find("cannot decode"), std::string::npos) << broken;
    const std::string shape = errorOf([&] { source->load(3); });
    EXPECT_NE(shape.find(list + ":5"), std::string::npos) << shape;
    EXPECT_NE(shape.find("[1,3,5,4]"), std::string::npos) << shape;
    const std::string dtype = errorOf([&] { source->load(4); });
    EXPECT_NE(dtype.find(list + ":6"), std::string::npos) << dtype;
    EXPECT_NE(dtype.find("int32"), std::string::npos) << dtype;
    const std::string kind = errorOf([&] { source->load(5); });
    EXPECT_NE(kind.find(list + ":7"), std::string::npos) << kind;
    EXPECT_NE(errorOf([&] { source->contentHash(); }).find("missing.png"), std::string::npos);

    // Wrong channel count: a 2-channel input cannot take an image; a mean with 2 values does not fit 3 channels.
    const auto twoChannels = makeSampleSource(list, {imageInput("x", dims({1, 2, 5, 5}))});
    const std::string channels = errorOf([&] { twoChannels->load(0); });
    EXPECT_NE(channels.find("channel"), std::string::npos) << channels;
    EXPECT_NE(channels.find(list + ":1"), std::string::npos) << channels;
    Preprocessing p;
    p.mean = {1.0f, 2.0f};
    const auto badMean = makeSampleSource(list, inputs, {{"x", p}});
    EXPECT_NE(errorOf([&] { badMean->load(0); }).find("channels"), std::string::npos);

    // File count per line against the inputs, checked before any load.
    const std::string two = write("two.txt", "ok.png\nok.png ok.png\n");
    const std::string count = errorOf([&] { makeSampleSource(two, inputs); });
    EXPECT_NE(count.find(two + ":2"), std::string::npos) << count;
    // Empty list, missing list, quoted paths, unknown input in preprocessing, bad JSON.
    EXPECT_NE(errorOf([&] { parseDatasetList(write("empty.txt", "# nothing\n\n")); }).find("no samples"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { loadDatasetList(path("nope.txt")); }).find("nope.txt"), std::string::npos);
    EXPECT_NE(errorOf([&] { parseDatasetList(write("q.txt", "ok.png\n\"a b.png\"\n")); }).find("q.txt:2"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { makeSampleSource(list, inputs, {{"y", Preprocessing{}}}); }).find("'y'"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { loadPreprocessingFile(write("bad.json", R"({"x": {"colour": "rgb"}})")); }).find("colour"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { loadPreprocessingFile(write("bad2.json", R"({"resize": "crop"})")); }).find("letterbox"),
              std::string::npos);
    // A folder for a two-input model.
    EXPECT_NE(errorOf([&] {
                  makeSampleSource(dir_.string(), {imageInput("a", dims({1, 3, 4, 4})), imageInput("b", dims({1, 3, 4, 4}))});
              }).find("2 inputs"),
              std::string::npos);
}

}  // namespace
