// Chip profiles: every shipped profile loads; a malformed one names the file and the field at fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "npuwb/ChipProfile.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

#include "../UnitTestSupport.h"

using namespace npuwb;
using namespace npuwb::unittest;
namespace fs = std::filesystem;

namespace {

const fs::path kChipsDir = fs::path(NPUWB_SOURCE_DIR) / "resources" / "chips";

/// Writes `text` as a profile in a fresh temp folder and returns its path.
std::string writeProfile(const std::string& fileName, const std::string& text) {
    fs::path dir = fs::temp_directory_path() / ("npuwb-chip-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::path p = dir / fileName;
    writeFileAtomically(p.string(), text);
    return p.string();
}

nlohmann::json rk3588Json() { return nlohmann::json::parse(readFile((kChipsDir / "rk3588.json").string())); }

}  // namespace

TEST(ChipProfile, AllShippedProfilesLoad) {
    for (const char* chip : {"rk3566", "rk3568", "rk3588", "rk3576", "rk3562", "rv1106", "rv1103", "rv1126b"}) {
        SCOPED_TRACE(chip);
        ChipProfile p = loadChipProfile((kChipsDir / (std::string(chip) + ".json")).string());
        const NpuDTypeRates& int8 = p.rates("int8");
        EXPECT_EQ(int8.macsPerCycle, int8.atomicInputChannels * int8.atomicOutputChannels);
        EXPECT_GT(p.clockMHz, 0);
        EXPECT_GT(p.ddrBandwidthGBps, 0);
        EXPECT_NE(p.npuOp("Convolution"), nullptr);
        EXPECT_FALSE(p.fusedOps.empty());
    }
}

TEST(ChipProfile, Rk3588FactsFromTheSources) {
    ChipProfile p = loadChipProfile((kChipsDir / "rk3588.json").string());
    EXPECT_EQ(p.cores, 3);
    EXPECT_EQ(p.rates("int8").macsPerCycle, 1024);
    EXPECT_EQ(p.bufferBytesPerCore, 384 * 1024);
    const NpuOp* conv = p.npuOp("Convolution");
    ASSERT_NE(conv, nullptr);
    EXPECT_TRUE(conv->multiCore);
    bool kernelLimit = false;
    for (const auto& l : conv->limits)
        if (l.key == "weight.kernel_h") kernelLimit = l.min == 1 && l.max == 31;
    EXPECT_TRUE(kernelLimit);
    ASSERT_NE(p.npuOp("Reshape"), nullptr);
    EXPECT_FALSE(p.npuOp("Reshape")->multiCore);  // not in the list of ops that split across cores
}

TEST(ChipProfile, Rv1106HasNoFp16Rates) {
    ChipProfile p = loadChipProfile((kChipsDir / "rv1106.json").string());
    std::string msg = errorOf([&] { p.rates("fp16"); });
    EXPECT_NE(msg.find("RV1106"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fp16"), std::string::npos) << msg;
}

TEST(ChipProfile, RuntimeFactsSayWhatTheMiniRuntimeLacks) {
    for (const char* chip : {"rv1106", "rv1103"}) {
        const ChipProfile p = loadChipProfile((kChipsDir / (std::string(chip) + ".json")).string());
        EXPECT_EQ(p.runtime.library, "librknnmrt.so") << chip;
        EXPECT_FALSE(p.runtime.perfDetail) << chip;
        EXPECT_FALSE(p.runtime.dupContext) << chip;
    }
    const ChipProfile full = loadChipProfile((kChipsDir / "rk3588.json").string());  // no "runtime": the defaults
    EXPECT_EQ(full.runtime.library, "librknnrt.so");
    EXPECT_TRUE(full.runtime.perfDetail);
    EXPECT_TRUE(full.runtime.dupContext);
    nlohmann::json j = rk3588Json();
    j["runtime"] = {{"dupContext", "no"}};
    const std::string path = writeProfile("runtime.json", j.dump());
    const std::string msg = errorOf([&] { loadChipProfile(path); });
    EXPECT_NE(msg.find("'runtime.dupContext'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected true or false"), std::string::npos) << msg;
}

TEST(ChipProfile, MalformedJsonNamesTheFile) {
    std::string path = writeProfile("broken.json", "{ \"name\": \"X\", ");
    std::string msg = errorOf([&] { loadChipProfile(path); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
}

TEST(ChipProfile, MissingFieldNamesFileAndField) {
    nlohmann::json j = rk3588Json();
    j["npu"].erase("clockMHz");
    std::string path = writeProfile("missing.json", j.dump());
    std::string msg = errorOf([&] { loadChipProfile(path); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("'npu.clockMHz'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

TEST(ChipProfile, WrongTypeNamesFileFieldAndTypes) {
    nlohmann::json j = rk3588Json();
    j["npu"]["cores"] = "three";
    std::string path = writeProfile("wrongtype.json", j.dump());
    std::string msg = errorOf([&] { loadChipProfile(path); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("'npu.cores'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected an integer, got string"), std::string::npos) << msg;
}

TEST(ChipProfile, NestedWrongTypeNamesTheFullPath) {
    nlohmann::json j = rk3588Json();
    j["ops"]["npuOps"]["Convolution"]["limits"]["stride_h"] = "1..7";
    std::string path = writeProfile("nested.json", j.dump());
    std::string msg = errorOf([&] { loadChipProfile(path); });
    EXPECT_NE(msg.find("'ops.npuOps.Convolution.limits.stride_h'"), std::string::npos) << msg;
}

TEST(ChipProfile, InconsistentMacRateIsRejected) {
    nlohmann::json j = rk3588Json();
    j["npu"]["dtypes"]["int8"]["macsPerCycle"] = 1000;
    std::string path = writeProfile("macs.json", j.dump());
    std::string msg = errorOf([&] { loadChipProfile(path); });
    EXPECT_NE(msg.find("'npu.dtypes.int8.macsPerCycle'"), std::string::npos) << msg;
}

TEST(ChipProfile, FindByNameAndUnknownChip) {
    ::setenv("NPUWB_CHIPS_DIR", kChipsDir.c_str(), 1);
    EXPECT_EQ(findChipProfile("RK3588").name, "RK3588");
    std::string msg = errorOf([] { findChipProfile("rk9999"); });
    EXPECT_NE(msg.find("rk9999"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rk3566"), std::string::npos) << msg;  // lists what exists
    ::unsetenv("NPUWB_CHIPS_DIR");
}
