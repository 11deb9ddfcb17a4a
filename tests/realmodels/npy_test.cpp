// Round trips and malformed headers for engine/util/Npy (the .npy exchange format with ONNX Runtime).
#include <gtest/gtest.h>

#include <filesystem>

#include "npuwb/Error.h"
#include "npuwb/Npy.h"

using namespace npuwb;

namespace {

template <class T> void expectRoundTrip(Shape shape, std::vector<T> values) {
    Tensor t = Tensor::fromVector<T>(shape, values);
    Tensor back = parseNpy(serializeNpy(t), "mem");
    EXPECT_EQ(back.dtype(), t.dtype());
    EXPECT_EQ(back.shape(), t.shape());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(back.data<T>()[i], values[i]);
}

std::string withHeader(const std::string& dict, size_t dataBytes) {
    std::string s = "\x93NUMPY";
    s += '\x01';
    s += '\0';
    s += static_cast<char>(dict.size() & 0xff);
    s += static_cast<char>(dict.size() >> 8);
    return s + dict + std::string(dataBytes, '\0');
}

}  // namespace

TEST(Npy, RoundTripsEveryType) {
    expectRoundTrip<float>({2, 3}, {1, 2, 3, 4, 5, -6.5f});
    expectRoundTrip<double>({1}, {3.25});
    expectRoundTrip<int8_t>({3}, {-1, 0, 127});
    expectRoundTrip<uint8_t>({3}, {0, 128, 255});
    expectRoundTrip<int32_t>({2, 1}, {-7, 9});
    expectRoundTrip<int64_t>({}, {16000});
    expectRoundTrip<bool>({2, 2}, {true, false, false, true});
    Tensor h(DType::F16, {2});
    h.data<Float16>()[0] = Float16(1.5f);
    Tensor back = parseNpy(serializeNpy(h), "mem");
    EXPECT_EQ(back.dtype(), DType::F16);
    EXPECT_EQ(static_cast<float>(back.data<Float16>()[0]), 1.5f);
}

TEST(Npy, HeaderMatchesNumpyLayout) {
    std::string bytes = serializeNpy(Tensor(DType::F32, {3}));
    EXPECT_EQ((bytes.size() - 12) % 64, 0u);  // data 64-byte aligned
    EXPECT_NE(bytes.find("'shape': (3,)"), std::string::npos);
    EXPECT_NE(bytes.find("'descr': '<f4'"), std::string::npos);
}

TEST(Npy, ReadsNumpyStyleHeaders) {
    Tensor t = parseNpy(withHeader("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 1), }\n", 16), "a.npy");
    EXPECT_EQ(t.shape(), (Shape{2, 1}));
    EXPECT_EQ(t.dtype(), DType::I64);
}

TEST(Npy, RejectsBadFilesNamingThem) {
    auto expectError = [](const std::string& bytes, const std::string& needle) {
        try {
            parseNpy(bytes, "bad.npy");
            ADD_FAILURE() << "no error for " << needle;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
            EXPECT_NE(std::string(e.what()).find("bad.npy"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectError("hello", "magic");
    expectError(withHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 4), "big-endian");
    expectError(withHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", 4), "Fortran");
    expectError(withHeader("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 8), "unsupported dtype");
    expectError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4), "does not match");
    expectError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,", 0), "malformed");
}

TEST(Npy, WritesAtomicallyAndReadsBack) {
    auto path = (std::filesystem::temp_directory_path() / "npuwb_npy_test.npy").string();
    writeNpy(path, Tensor::fromVector<float>({2}, {1.f, 2.f}));
    EXPECT_EQ(readNpy(path).data<float>()[1], 2.f);
    std::filesystem::remove(path);
    EXPECT_THROW(readNpy(path), Error);
}
