// runForked: the child's result comes back whole; a throw, a crash or a hang in the child fails only the call.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "util/ForkedCall.h"

using namespace npuwb;

TEST(ForkedCall, ReturnsTheChildsBytesWhole) {
    std::string big(3 << 20, 'x');  // larger than a pipe buffer, ending in bytes that look like nothing special
    big.back() = '\0';
    ForkedResult r = runForked([&] { return big; }, 30);
    EXPECT_EQ(r.status, ForkedResult::Status::Ok);
    EXPECT_EQ(r.output, big);
    EXPECT_EQ(runForked([] { return std::string(); }, 30).status, ForkedResult::Status::Ok) << "an empty result is one";
}

TEST(ForkedCall, AThrowOrACrashInTheChildIsReportedAsCrashed) {
    ForkedResult thrown = runForked([]() -> std::string { throw std::runtime_error("bad model"); }, 30);
    EXPECT_EQ(thrown.status, ForkedResult::Status::Crashed);
    EXPECT_TRUE(thrown.output.empty());
    ForkedResult crashed = runForked([]() -> std::string { std::raise(SIGSEGV); return "never"; }, 30);
    EXPECT_EQ(crashed.status, ForkedResult::Status::Crashed);
}

TEST(ForkedCall, AHangIsCutOffAtTheTimeout) {
    const auto start = std::chrono::steady_clock::now();
    ForkedResult r = runForked([]() -> std::string {
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return "late";
    }, 1);
    EXPECT_EQ(r.status, ForkedResult::Status::TimedOut);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}
