// Hardening against hostile input at the engine's depth: readers take regular files only, writes never replace a device or an
// input and leave no temporary file when interrupted, the memory budget and run limits stop work with a message.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <thread>

#include "npuwb/AtomicFile.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"
#include "npuwb/Limits.h"
#include "npuwb/Npy.h"
#include "npuwb/Report.h"

#include "../UnitTestSupport.h"

namespace fs = std::filesystem;
using namespace npuwb;
using namespace npuwb::unittest;

namespace {

fs::path freshFolder(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("npuwb-hardening-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

}  // namespace

TEST(Hardening, ReadersRefuseFifosWithoutBlocking) {
    fs::path dir = freshFolder("fifo");
    const std::string fifo = (dir / "pipe").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_NE(errorOf([&] { readFile(fifo); }).find("is a FIFO"), std::string::npos);
    EXPECT_NE(errorOf([&] { readNpy(fifo); }).find("is a FIFO"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_NE(errorOf([&] { readFile("/dev/zero"); }).find("is a character device"), std::string::npos);
    EXPECT_NE(errorOf([&] { readFile(dir.string()); }).find("is a folder"), std::string::npos);
    fs::remove_all(dir);
}

TEST(Hardening, ReadFileRefusesFilesOverItsLimit) {
    fs::path dir = freshFolder("limit");
    const std::string file = (dir / "big.txt").string();
    std::ofstream(file) << std::string(4096, 'x');
    EXPECT_EQ(readFile(file, 4096).size(), 4096u);
    EXPECT_NE(errorOf([&] { readFile(file, 4095); }).find("more than the"), std::string::npos);
    fs::remove_all(dir);
}

TEST(Hardening, WritesNeverReplaceADeviceOrFifo) {
    fs::path dir = freshFolder("device");
    const std::string fifo = (dir / "pipe").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ErrorKind kind = ErrorKind::Internal;
    EXPECT_NE(errorOf([&] { writeFileAtomically(fifo, "x"); }, &kind).find("is a FIFO"), std::string::npos);
    EXPECT_EQ(kind, ErrorKind::InvalidInput);
    struct stat st {};
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));  // still the FIFO
    EXPECT_NE(errorOf([&] { writeFileAtomically(dir.string(), "x"); }).find("is a folder"), std::string::npos);
    fs::remove_all(dir);
}

TEST(Hardening, NpyDeclaringMoreThanItHoldsIsRefusedBeforeAllocating) {
    // 32768 x 32768 float32 = 4 GB declared, 16 bytes present: refused without taking the 4 GB (the budget here
    // is far below it, so an allocation first would fail with a different message).
    setMemoryBudgetBytes(uint64_t(64) << 20);
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (32768, 32768), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header + std::string(16, '\0');
    EXPECT_NE(errorOf([&] { parseNpy(bytes, "huge.npy"); }).find("data size 16 bytes"), std::string::npos);
    setMemoryBudgetBytes(0);
}

TEST(Hardening, MemoryBudgetNamesShapeAndBytes) {
    setMemoryBudgetBytes(uint64_t(16) << 20);
    const uint64_t live = liveTensorBytes();
    std::string msg = errorOf([] { Tensor t(DType::F32, {1024, 1024, 8}); });
    EXPECT_NE(msg.find("[1024,1024,8]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("33.6 MB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("memory budget"), std::string::npos) << msg;
    {
        Tensor small(DType::F32, {1024, 1024});  // 4 MB fits, and is counted while it lives
        EXPECT_EQ(liveTensorBytes(), live + (4u << 20));
    }
    EXPECT_EQ(liveTensorBytes(), live);
    setMemoryBudgetBytes(0);
    EXPECT_NE(errorOf([] { tensorByteSize(DType::F64, {int64_t(1) << 62, 4}); }).find("more"), std::string::npos);
    EXPECT_EQ(parseByteSize("4G", "x"), uint64_t(4) << 30);
    EXPECT_EQ(parseByteSize("512M", "x"), uint64_t(512) << 20);
    EXPECT_NE(errorOf([] { parseByteSize("lots", "--memory-budget"); }).find("--memory-budget"), std::string::npos);
}

TEST(Hardening, RunLimitsStopOnCancelDeadlineAndLoopCap) {
    std::atomic<bool> cancel{false};
    {
        RunLimitsScope scope(RunLimits{.cancel = &cancel});
        EXPECT_NO_THROW(checkRunLimits());
        cancel = true;
        ErrorKind kind = ErrorKind::Internal;
        EXPECT_EQ(errorOf([] { checkRunLimits(); }, &kind), "run cancelled");
        EXPECT_EQ(kind, ErrorKind::Cancelled);
    }
    EXPECT_NO_THROW(checkRunLimits());  // the scope ended
    {
        RunLimitsScope scope(RunLimits{.deadline = std::chrono::steady_clock::now(), .timeoutSeconds = 1.5});
        EXPECT_NE(errorOf([] { checkRunLimits(); }).find("time limit of 1.5 s"), std::string::npos);
    }
    {
        RunLimitsScope scope(RunLimits{.maxLoopIterations = 3, .loopCapReason = "test cap"});
        for (int i = 0; i < 3; ++i) EXPECT_NO_THROW(countLoopIteration("loop"));
        EXPECT_NE(errorOf([] { countLoopIteration("loop"); }).find("test cap"), std::string::npos);
    }
}

TEST(Hardening, InterruptedWriteLeavesNoTemporaryFile) {
    fs::path dir = freshFolder("signal");
    const std::string target = (dir / "out.bin").string();
    for (size_t megabytes : {256, 1024}) {  // larger if the first write finished before the signal
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            removeTemporaryFilesOnSignals();
            std::string big(megabytes << 20, 'x');
            writeFileAtomically(target, big);
            _exit(0);
        }
        bool sawTemporary = false;
        for (int i = 0; i < 20000 && !sawTemporary; ++i) {
            for (const auto& e : fs::directory_iterator(dir))
                sawTemporary = sawTemporary || e.path().filename().string().rfind(".out.bin.tmp-", 0) == 0;
            if (!sawTemporary) std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        ::kill(child, SIGTERM);
        int status = 0;
        ::waitpid(child, &status, 0);
        if (!sawTemporary || !WIFSIGNALED(status)) continue;  // finished first: try a larger write
        EXPECT_EQ(WTERMSIG(status), SIGTERM);
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().filename().string().find(".tmp-") != std::string::npos) ADD_FAILURE() << "left behind: " << e.path();
        fs::remove_all(dir);
        return;
    }
    fs::remove_all(dir);
    GTEST_SKIP() << "every write finished before the signal arrived";
}

TEST(Hardening, JsonReadersNameNumbersTooLargeInsteadOfThrowingTheLibrarysError) {
    // fuzz_agent_job's finding, in every JSON reader: nlohmann throws out_of_range (not parse_error) for a number
    // too large for a double; it escaped the readers as an internal error.
    fs::path dir = freshFolder("json");
    const std::string file = (dir / "big.json").string();
    std::ofstream(file) << R"({"schemaVersion": 1E7777777777777777777777777777777})";
    ErrorKind kind = ErrorKind::Internal;
    EXPECT_NE(errorOf([&] { loadReport(file); }, &kind).find("big.json"), std::string::npos);
    EXPECT_EQ(kind, ErrorKind::InvalidInput);
    kind = ErrorKind::Internal;
    EXPECT_NE(errorOf([&] { loadChipProfile(file); }, &kind).find("big.json"), std::string::npos);
    EXPECT_NE(kind, ErrorKind::Internal);
    fs::remove_all(dir);
}
