// SHA-256 hex digests (util/Sha256.h) against the standard's test vectors and the system's sha256sum.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "npuwb/Error.h"
#include "npuwb/Sha256.h"

using namespace npuwb;

TEST(Sha256, KnownVectorsAndStreaming) {
    EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    EXPECT_EQ(sha256Hex(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    Sha256 pieces;
    for (size_t i = 0; i < two.size(); i += 5) pieces.update(two.substr(i, 5));
    EXPECT_EQ(pieces.hex(), sha256Hex(two));
}

TEST(Sha256, FileInBlocksMatchesSha256sum) {
    const auto dir = std::filesystem::temp_directory_path() / ("npuwb-sha256-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "data.bin").string();
    std::string bytes(2'500'000, '\0');  // more than one 1 MiB read block
    std::mt19937 rng(3);
    for (char& c : bytes) c = static_cast<char>(rng());
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_EQ(sha256OfFile(path), sha256Hex(bytes));
    if (FILE* p = ::popen(("sha256sum < '" + path + "'").c_str(), "r")) {
        char out[65] = {};
        const size_t n = std::fread(out, 1, 64, p);
        ::pclose(p);
        if (n == 64) {
            EXPECT_EQ(sha256OfFile(path), std::string(out, 64));
        }
    }
    try {
        sha256OfFile((dir / "missing").string());
        ADD_FAILURE() << "no error for a missing file";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}
