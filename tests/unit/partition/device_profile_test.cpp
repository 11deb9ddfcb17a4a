// Device profiles: every shipped one loads; a malformed one names the file and the field at fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "npuwb/AtomicFile.h"
#include "npuwb/DeviceProfile.h"
#include "npuwb/Error.h"

#include "../UnitTestSupport.h"

using namespace npuwb;
using namespace npuwb::unittest;
namespace fs = std::filesystem;

namespace {

const fs::path kDevicesDir = fs::path(NPUWB_SOURCE_DIR) / "resources" / "devices";

nlohmann::json snapdragon() {
    return nlohmann::json::parse(readFile((kDevicesDir / "snapdragon-x2-elite.json").string()));
}

}  // namespace

TEST(DeviceProfile, AllShippedProfilesLoad) {
    int count = 0;
    for (const auto& entry : fs::directory_iterator(kDevicesDir)) {
        if (entry.path().extension() != ".json") continue;
        SCOPED_TRACE(entry.path().string());
        DeviceProfile d = loadDeviceProfile(entry.path().string());
        EXPECT_FALSE(d.name.empty());
        EXPECT_FALSE(d.units.empty());
        ++count;
    }
    EXPECT_GE(count, 3);
}

TEST(DeviceProfile, SnapdragonCarriesTheArticlesMeasurements) {
    DeviceProfile d = loadDeviceProfile((kDevicesDir / "snapdragon-x2-elite.json").string());
    ASSERT_EQ(d.units.size(), 3u);
    const DeviceUnit* gpu = d.unit("GPU");
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->affinity.at("softmax"), "excellent");
    EXPECT_EQ(d.unit("NPU")->affinity.at("gemm"), "excellent");
    EXPECT_EQ(d.unit("CPU")->affinity.at("control"), "excellent");
    ASSERT_EQ(gpu->measured.size(), 2u);
    EXPECT_EQ(gpu->measured[0].opType, "Softmax");
    EXPECT_EQ(gpu->measured[0].inputShape, (Shape{12, 128, 128}));
    EXPECT_DOUBLE_EQ(gpu->measured[0].us, 180);
    EXPECT_FALSE(d.executable());
    DeviceProfile local = loadDeviceProfile((kDevicesDir / "local-2core.json").string());
    EXPECT_TRUE(local.executable());
    EXPECT_TRUE(local.transfer.calibrate);
    EXPECT_EQ(local.units[1].executor->cpus, (std::vector<int>{1}));
}

TEST(DeviceProfile, ErrorsNameTheFileAndTheField) {
    auto bad = [](const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json j = snapdragon();
        edit(j);
        return errorOf([&] { deviceProfileFromJson(j, "bad.json"); });
    };
    EXPECT_EQ(bad([](auto& j) { j["units"][1].erase("kind"); }),
              "device profile 'bad.json': field 'units[1].kind': missing");
    EXPECT_EQ(bad([](auto& j) { j["units"][0]["kind"] = "tpu"; }),
              "device profile 'bad.json': field 'units[0].kind': expected npu, gpu or cpu, got 'tpu'");
    EXPECT_EQ(bad([](auto& j) { j["units"][0]["affinity"]["gemm"] = "superb"; }),
              "device profile 'bad.json': field 'units[0].affinity.gemm': unknown level 'superb' (levels: "
              "affinityFactors keys or \"none\")");
    EXPECT_EQ(bad([](auto& j) { j["units"][2]["affinity"]["matmul"] = "good"; }),
              "device profile 'bad.json': field 'units[2].affinity.matmul': unknown op class");
    EXPECT_EQ(bad([](auto& j) { j["units"][0]["gmacsPerSecond"] = "fast"; }),
              "device profile 'bad.json': field 'units[0].gmacsPerSecond': expected a number, got string");
    EXPECT_EQ(bad([](auto& j) { j["units"][0]["measured"][1]["us"] = -1; }),
              "device profile 'bad.json': field 'units[0].measured[1].us': must be greater than 0, got -1.000000");
    EXPECT_EQ(bad([](auto& j) { j["units"][1]["name"] = "NPU"; }),
              "device profile 'bad.json': field 'units[1].name': unit 'NPU' is listed twice");
    EXPECT_EQ(bad([](auto& j) { j["units"][0]["costs"] = "calibrated"; }),
              "device profile 'bad.json': field 'units[0].costs': 'calibrated' costs need an \"executor\" to measure on");
    EXPECT_EQ(bad([](auto& j) { j["units"][0]["costs"] = "chip"; }),
              "device profile 'bad.json': field 'units[0].costs': 'chip' costs need the profile's top-level \"chip\" "
              "field");
    EXPECT_EQ(bad([](auto& j) { j["transfer"]["syncUs"] = "calibrate"; }),
              "device profile 'bad.json': field 'transfer.syncUs': \"calibrate\" needs an executor on every unit");
    EXPECT_EQ(bad([](auto& j) { j["units"] = nlohmann::json::array(); }),
              "device profile 'bad.json': field 'units': expected a non-empty array of units");
    EXPECT_EQ(bad([](auto& j) { j["affinityFactors"].erase("excellent"); }),
              "device profile 'bad.json': field 'affinityFactors.excellent': missing (the reference level, usually 1)");
    EXPECT_NE(errorOf([] { loadDeviceProfile("/nonexistent/dev.json"); }).find("cannot be read"), std::string::npos);
    EXPECT_NE(errorOf([] { findDeviceProfile("no-such-device"); }).find("unknown device profile 'no-such-device'"),
              std::string::npos);
}

TEST(DeviceProfile, OpClassesFollowTheAffinityTable) {
    DeviceProfile d = loadDeviceProfile((kDevicesDir / "snapdragon-x2-elite.json").string());
    EXPECT_EQ(opClassOf("MatMul", d), "gemm");
    EXPECT_EQ(opClassOf("Conv", d), "conv");
    EXPECT_EQ(opClassOf("Softmax", d), "softmax");
    EXPECT_EQ(opClassOf("Gelu", d), "activation");
    EXPECT_EQ(opClassOf("ReduceMean", d), "reduce");
    EXPECT_EQ(opClassOf("If", d), "control");
    EXPECT_EQ(opClassOf("Transpose", d), "reorganize");
    EXPECT_EQ(opClassOf("Add", d), "elementwise");
    EXPECT_EQ(opClassOf("SomethingNew", d), "elementwise");
    d.opClasses["Add"] = "reduce";
    EXPECT_EQ(opClassOf("Add", d), "reduce");
}
