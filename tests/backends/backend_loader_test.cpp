#include <gtest/gtest.h>

#include <cstdlib>

#include "backend/BackendLoader.h"
#include "npuwb/sdk/Backend.h"
#include "npuwb/Session.h"
#include "npuwb/Error.h"

using namespace npuwb;

namespace {

/// Runs `f` and returns the Error it throws (fails the test when it does not throw one).
template <class F> Error thrownBy(F f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "no npuwb::Error thrown";
    return Error(ErrorKind::Internal, "");
}

struct PluginPath {
    explicit PluginPath(const char* path) { setenv("NPUWB_PLUGIN_PATH", path, 1); }
    ~PluginPath() { unsetenv("NPUWB_PLUGIN_PATH"); }
};

}  // namespace

TEST(BackendLoader, MissingPluginNamesEveryFolderSearched) {
    PluginPath env("/nonexistent/one:/nonexistent/two");
    Error e = thrownBy([] { loadBackend("no-such-backend"); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("libnpuwb-backend-no-such-backend.so"), std::string::npos) << msg;
    EXPECT_NE(msg.find("/nonexistent/one"), std::string::npos) << msg;
    EXPECT_NE(msg.find("/nonexistent/two"), std::string::npos) << msg;
    EXPECT_NE(msg.find("plugins"), std::string::npos) << msg;  // the folders next to the engine library
}

TEST(BackendLoader, PluginOfAnotherInterfaceVersionIsRefused) {
    PluginPath env(NPUWB_FAKE_PLUGIN_DIR);
    Error e = thrownBy([] { loadBackend("fake-old"); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("interface version " + std::to_string(kBackendApiVersion + 41)), std::string::npos) << msg;
    EXPECT_NE(msg.find("needs version " + std::to_string(kBackendApiVersion)), std::string::npos) << msg;
    auto names = availableBackends();
    EXPECT_NE(std::find(names.begin(), names.end(), "fake-old"), names.end());
}

TEST(BackendLoader, RejectsNamesThatCouldEscapeThePluginFolder) {
    EXPECT_EQ(thrownBy([] { loadBackend("../../evil"); }).kind(), ErrorKind::Unsupported);
}

TEST(BackendLoader, SessionWithMissingBackendThrowsAndReferenceStillWorks) {
    auto model = std::make_shared<Model>();
    SessionOptions opts;
    opts.executor.backend = "no-such-backend";
    EXPECT_EQ(thrownBy([&] { Session s(model, opts); }).kind(), ErrorKind::Unsupported);
    EXPECT_EQ(Session(model, SessionOptions{.executor = {.backend = kReferenceBackend}}).backendName(), "reference");
    EXPECT_EQ(Session(model).backendName(), "reference");  // the reference kernels unless asked otherwise
}
