// A run whose median is far above its fastest run says the machine was busy, with the load average it recorded;
// a tight run, an estimate and a single run say nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "npuwb/Report.h"
#include "npuwb/RunSpread.h"

using namespace npuwb;

namespace {

Report measured(double medianUs, double minUs, int64_t runs) {
    Report r = newReport("profile");
    r.run.runs = runs;
    r.run.medianUs = medianUs;
    r.run.minUs = minUs;
    r.environment.cores = 2;
    return r;
}

}  // namespace

TEST(RunSpread, ABusyRunIsNamedWithItsRatioAndLoad) {
    Report r = measured(264010.0, 18810.0, 10);
    r.environment.loadAverage = 3.14;
    const std::string warning = busyMachineWarning(r);
    EXPECT_NE(warning.find("busy"), std::string::npos) << warning;
    EXPECT_NE(warning.find("14.0x"), std::string::npos) << warning;
    EXPECT_NE(warning.find("264.0 ms"), std::string::npos) << warning;
    EXPECT_NE(warning.find("18.8 ms"), std::string::npos) << warning;
    EXPECT_NE(warning.find("load average 3.1 on 2 cores"), std::string::npos) << warning;
    // The load average travels in the report's environment.
    EXPECT_EQ(reportFromJson(toJson(r)).environment.loadAverage, 3.14);
    EXPECT_FALSE(reportFromJson(toJson(measured(1, 1, 3))).environment.loadAverage.has_value());
}

TEST(RunSpread, QuietRunsEstimatesAndSingleRunsSayNothing) {
    EXPECT_EQ(busyMachineWarning(measured(1100.0, 1000.0, 10)), "");  // 1.1x: cache and clock noise
    EXPECT_EQ(busyMachineWarning(measured(1490.0, 1000.0, 10)), "");  // just under the threshold
    EXPECT_NE(busyMachineWarning(measured(1510.0, 1000.0, 10)), "");
    EXPECT_EQ(busyMachineWarning(measured(5000.0, 1000.0, 2)), "");  // too few runs for a spread
    Report estimate = measured(5000.0, 1000.0, 10);
    estimate.kind = "estimate";
    EXPECT_EQ(busyMachineWarning(estimate), "");
    EXPECT_EQ(busyMachineWarning(measured(5000.0, 0.0, 10)), "");  // no fastest run recorded
}
