// The stand-in's zero-copy API through its C API, loaded with dlopen: the native attributes (NHWC, input rows padded
// to the chip profile's zero-copy input alignment: 16 pixels on RV1106, 8 on RK3566), a run through rknn_create_mem
// buffers bound with rknn_set_io_mem equal to the rknn_inputs_set path (padding never read), buffers read at every run, the vendor's error codes for bad calls with no
// buffer left behind, the test-only failure of rknn_create_mem, and the mini runtime variant librknnmrt.so exporting
// only what that runtime has.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>

#include "npuwb/ModelIO.h"
#include "standin_rknn_api.h"
#include "../../unit/UnitTestSupport.h"

using namespace npuwb;

namespace {

struct Api {
    void* handle = nullptr;
    decltype(&rknn_init) init = nullptr;
    decltype(&rknn_destroy) destroy = nullptr;
    decltype(&rknn_query) query = nullptr;
    decltype(&rknn_run) run = nullptr;
    decltype(&rknn_create_mem) createMem = nullptr;
    decltype(&rknn_destroy_mem) destroyMem = nullptr;
    decltype(&rknn_set_io_mem) setIoMem = nullptr;
    decltype(&npuwb_standin_live_mems) liveMems = nullptr;
    decltype(&rknn_inputs_set) inputsSet = nullptr;  // null in the mini runtime

    static const Api& get(const char* path) {
        static std::map<std::string, Api> loaded;
        auto it = loaded.find(path);
        if (it != loaded.end()) return it->second;
        Api a;
        a.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!a.handle) throw std::runtime_error(std::string("dlopen: ") + dlerror());
        auto sym = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(a.handle, name));
            if (!fn) throw std::runtime_error(std::string("missing symbol ") + name);
        };
        sym(a.init, "rknn_init");
        sym(a.destroy, "rknn_destroy");
        sym(a.query, "rknn_query");
        sym(a.run, "rknn_run");
        sym(a.createMem, "rknn_create_mem");
        sym(a.destroyMem, "rknn_destroy_mem");
        sym(a.setIoMem, "rknn_set_io_mem");
        sym(a.liveMems, "npuwb_standin_live_mems");
        a.inputsSet = reinterpret_cast<decltype(&rknn_inputs_set)>(dlsym(a.handle, "rknn_inputs_set"));
        return loaded[path] = a;
    }
};

/// x [1,2,3,W] -> Relu -> y [1,2,3,W], and Flatten -> f [1,6W]: a W-wide input (W 10: native rows of 16 pixels on
/// RV1106), a 4-D output and a flat one.
std::string container(const std::string& target = "rv1106", int64_t width = 10) {
    Model m;
    m.opsetImports[""] = 17;
    m.graph.name = "standin_zero_copy";
    m.graph.inputs = {unittest::tensorInfo("x", {1, 2, 3, width})};
    m.graph.outputs = {unittest::tensorInfo("y", {1, 2, 3, width}), unittest::tensorInfo("f", {1, 6 * width})};
    Node relu;
    relu.name = "relu0";
    relu.opType = "Relu";
    relu.inputs = {"x"};
    relu.outputs = {"y"};
    Node flat;
    flat.name = "flat0";
    flat.opType = "Flatten";
    flat.inputs = {"x"};
    flat.outputs = {"f"};
    m.graph.nodes = {relu, flat};
    const std::string onnx = serializeModel(m);
    return std::string("NPUWB-STANDIN-RKNN 1\n") + "{\"target_platform\":\"" + target + "\",\"onnx_bytes\":" +
           std::to_string(onnx.size()) + "}\n" + onnx;
}

rknn_context init(const Api& api, std::string bytes = container()) {
    rknn_context ctx = 0;
    EXPECT_EQ(api.init(&ctx, bytes.data(), static_cast<uint32_t>(bytes.size()), 0, nullptr), RKNN_SUCC);
    return ctx;
}

rknn_tensor_attr queried(const Api& api, rknn_context ctx, rknn_query_cmd cmd, uint32_t index) {
    rknn_tensor_attr a{};
    a.index = index;
    EXPECT_EQ(api.query(ctx, cmd, &a, sizeof a), RKNN_SUCC);
    return a;
}

std::vector<float> inputValues(uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(60);  // NCHW [1,2,3,10]
    for (float& v : x) v = u(rng);
    return x;
}

size_t nchw(int c, int h, int w) { return size_t((c * 3 + h) * 10 + w); }

/// Writes NCHW x into a native input buffer: NHWC rows of 16 pixels, the padding NaN (a read of it would show).
void writeNative(rknn_tensor_mem* mem, const std::vector<float>& x) {
    auto* p = static_cast<float*>(mem->virt_addr);
    std::fill(p, p + mem->size / 4, std::numeric_limits<float>::quiet_NaN());
    for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 10; ++w)
            for (int c = 0; c < 2; ++c) p[(h * 16 + w) * 2 + c] = x[nchw(c, h, w)];
}

/// Binds a buffer to every tensor in its native layout; returns them (input, y, f).
std::vector<rknn_tensor_mem*> bindAll(const Api& api, rknn_context ctx) {
    std::vector<rknn_tensor_mem*> mems;
    for (auto [cmd, index] : {std::pair{RKNN_QUERY_NATIVE_INPUT_ATTR, 0u}, {RKNN_QUERY_NATIVE_OUTPUT_ATTR, 0u},
                              {RKNN_QUERY_NATIVE_OUTPUT_ATTR, 1u}}) {
        rknn_tensor_attr a = queried(api, ctx, cmd, index);
        rknn_tensor_mem* mem = api.createMem(ctx, a.size_with_stride);
        EXPECT_NE(mem, nullptr);
        EXPECT_EQ(api.setIoMem(ctx, mem, &a), RKNN_SUCC) << a.name;
        mems.push_back(mem);
    }
    return mems;
}

/// Runs x through the bound buffers and checks y (native NHWC) = relu(x) and f (flat) = x.
void runAndCheck(const Api& api, rknn_context ctx, const std::vector<rknn_tensor_mem*>& mems, uint32_t seed) {
    const std::vector<float> x = inputValues(seed);
    writeNative(mems[0], x);
    ASSERT_EQ(api.run(ctx, nullptr), RKNN_SUCC);
    const auto* y = static_cast<const float*>(mems[1]->virt_addr);
    const auto* f = static_cast<const float*>(mems[2]->virt_addr);
    for (int c = 0; c < 2; ++c)
        for (int h = 0; h < 3; ++h)
            for (int w = 0; w < 10; ++w) {
                EXPECT_EQ(y[(h * 10 + w) * 2 + c], std::max(0.0f, x[nchw(c, h, w)])) << c << "," << h << "," << w;
                EXPECT_EQ(f[nchw(c, h, w)], x[nchw(c, h, w)]);
            }
}

}  // namespace

TEST(StandinZeroCopy, NativeAttrsAreNhwcWithInputRowsPaddedToSixteenPixels) {
    const Api& api = Api::get(STANDIN_RKNNRT_PATH);
    const rknn_context ctx = init(api);
    for (rknn_query_cmd cmd : {RKNN_QUERY_NATIVE_INPUT_ATTR, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR}) {
        const rknn_tensor_attr x = queried(api, ctx, cmd, 0);
        EXPECT_EQ(x.fmt, RKNN_TENSOR_NHWC);
        EXPECT_EQ(std::vector<uint32_t>(x.dims, x.dims + 4), (std::vector<uint32_t>{1, 3, 10, 2}));
        EXPECT_EQ(x.w_stride, 16u);
        EXPECT_EQ(x.size, 60u * 4);
        EXPECT_EQ(x.size_with_stride, 3u * 16 * 2 * 4);
    }
    const rknn_tensor_attr y = queried(api, ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, 0);
    EXPECT_EQ(y.fmt, RKNN_TENSOR_NHWC);
    EXPECT_EQ(y.w_stride, 10u);  // outputs are not padded
    EXPECT_EQ(y.size_with_stride, y.size);
    const rknn_tensor_attr f = queried(api, ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, 1);
    EXPECT_EQ(f.fmt, RKNN_TENSOR_UNDEFINED);
    EXPECT_EQ(f.n_dims, 2u);
    EXPECT_EQ(f.size_with_stride, 60u * 4);
    // The plain attributes stay NCHW without strides.
    const rknn_tensor_attr plain = queried(api, ctx, RKNN_QUERY_INPUT_ATTR, 0);
    EXPECT_EQ(plain.fmt, RKNN_TENSOR_NCHW);
    EXPECT_EQ(plain.size_with_stride, plain.size);
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    // A 20-wide input: rows of 32 pixels on RV1106 (alignment 16), 24 on RK3566 (alignment 8).
    for (auto [target, stride] : {std::pair{"rv1106", 32u}, {"rk3566", 24u}}) {
        const rknn_context wide = init(api, container(target, 20));
        const rknn_tensor_attr a = queried(api, wide, RKNN_QUERY_NATIVE_INPUT_ATTR, 0);
        EXPECT_EQ(a.w_stride, stride) << target;
        EXPECT_EQ(a.size_with_stride, 3u * stride * 2 * 4) << target;
        EXPECT_EQ(api.destroy(wide), RKNN_SUCC);
    }
}

TEST(StandinZeroCopy, BuffersAreReadAtEveryRunAndEqualTheInputsSetPath) {
    const Api& api = Api::get(STANDIN_RKNNRT_PATH);
    const uint64_t before = api.liveMems();
    const rknn_context ctx = init(api);
    const std::vector<rknn_tensor_mem*> mems = bindAll(api, ctx);
    EXPECT_EQ(api.liveMems(), before + 3);
    for (uint32_t seed : {1u, 2u}) runAndCheck(api, ctx, mems, seed);  // new contents, new outputs
    // rknn_inputs_set on a context without buffers gives the same y.
    const rknn_context plain = init(api);
    std::vector<float> x = inputValues(2);
    rknn_input in{};
    in.buf = x.data();
    in.size = 60 * 4;
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    ASSERT_EQ(api.inputsSet(plain, 1, &in), RKNN_SUCC);
    ASSERT_EQ(api.run(plain, nullptr), RKNN_SUCC);
    // Output y bound in NCHW float32 (the caller's choice of format) on the same context.
    rknn_tensor_attr y = queried(api, plain, RKNN_QUERY_OUTPUT_ATTR, 0);
    rknn_tensor_mem* dense = api.createMem(plain, y.size);
    ASSERT_EQ(api.setIoMem(plain, dense, &y), RKNN_SUCC);
    ASSERT_EQ(api.run(plain, nullptr), RKNN_SUCC);
    const auto* got = static_cast<const float*>(dense->virt_addr);
    const auto* native = static_cast<const float*>(mems[1]->virt_addr);
    for (int c = 0; c < 2; ++c)
        for (int h = 0; h < 3; ++h)
            for (int w = 0; w < 10; ++w) EXPECT_EQ(got[nchw(c, h, w)], native[(h * 10 + w) * 2 + c]);
    EXPECT_EQ(api.destroyMem(plain, dense), RKNN_SUCC);
    for (rknn_tensor_mem* m : mems) EXPECT_EQ(api.destroyMem(ctx, m), RKNN_SUCC);
    EXPECT_EQ(api.liveMems(), before);
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    EXPECT_EQ(api.destroy(plain), RKNN_SUCC);
}

TEST(StandinZeroCopy, BadCallsReturnTheVendorsErrorCodesAndLeaveNoBuffer) {
    const Api& api = Api::get(STANDIN_RKNNRT_PATH);
    const uint64_t before = api.liveMems();
    const rknn_context ctx = init(api), other = init(api);
    const rknn_context unknown = 987654321;
    rknn_tensor_attr x = queried(api, ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0);
    EXPECT_EQ(api.createMem(unknown, 64), nullptr);
    EXPECT_EQ(api.createMem(ctx, 0), nullptr);
    rknn_tensor_mem* small = api.createMem(ctx, x.size);  // without the row padding: too small
    rknn_tensor_mem* theirs = api.createMem(other, x.size_with_stride);
    ASSERT_NE(small, nullptr);
    ASSERT_NE(theirs, nullptr);
    testing::internal::CaptureStderr();
    EXPECT_EQ(api.setIoMem(ctx, small, &x), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.setIoMem(ctx, theirs, &x), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.setIoMem(unknown, small, &x), RKNN_ERR_CTX_INVALID);
    EXPECT_EQ(api.setIoMem(ctx, nullptr, &x), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.setIoMem(ctx, small, nullptr), RKNN_ERR_PARAM_INVALID);
    rknn_tensor_attr renamed = x;
    std::strcpy(renamed.name, "nope");
    EXPECT_EQ(api.setIoMem(other, theirs, &renamed), RKNN_ERR_PARAM_INVALID);
    rknn_tensor_attr reindexed = x;
    reindexed.index = 1;
    EXPECT_EQ(api.setIoMem(other, theirs, &reindexed), RKNN_ERR_PARAM_INVALID);
    rknn_tensor_attr nc1hwc2 = x;
    nc1hwc2.fmt = RKNN_TENSOR_NC1HWC2;
    EXPECT_EQ(api.setIoMem(other, theirs, &nc1hwc2), RKNN_ERR_INPUT_INVALID);
    EXPECT_EQ(api.run(ctx, nullptr), RKNN_ERR_INPUT_INVALID);  // nothing bound, nothing set
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("'x' needs a buffer of 384 bytes, got 240"), std::string::npos) << said;
    EXPECT_EQ(api.destroyMem(ctx, theirs), RKNN_ERR_PARAM_INVALID);  // another context's
    EXPECT_EQ(api.destroyMem(unknown, theirs), RKNN_ERR_CTX_INVALID);
    EXPECT_EQ(api.destroyMem(other, theirs), RKNN_SUCC);
    EXPECT_EQ(api.destroyMem(other, theirs), RKNN_ERR_PARAM_INVALID);  // already destroyed
    EXPECT_EQ(api.destroyMem(ctx, small), RKNN_SUCC);
    // The test-only failure: the second rknn_create_mem call on a context returns no buffer, the others do.
    setenv("NPUWB_STANDIN_FAIL_CREATE_MEM", "2", 1);
    testing::internal::CaptureStderr();
    rknn_tensor_mem* secondCall = api.createMem(other, 64);  // `other` made `theirs` with its first call
    rknn_tensor_mem* thirdCall = api.createMem(other, 64);
    rknn_tensor_mem* secondOnCtx = api.createMem(ctx, 64);  // counted per context: `ctx` made `small` first
    const std::string failed = testing::internal::GetCapturedStderr();
    unsetenv("NPUWB_STANDIN_FAIL_CREATE_MEM");
    EXPECT_EQ(secondCall, nullptr);
    EXPECT_NE(thirdCall, nullptr);
    EXPECT_EQ(secondOnCtx, nullptr);
    EXPECT_NE(failed.find("NPUWB_STANDIN_FAIL_CREATE_MEM"), std::string::npos) << failed;
    EXPECT_EQ(api.destroyMem(other, thirdCall), RKNN_SUCC);
    EXPECT_EQ(api.liveMems(), before);
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    EXPECT_EQ(api.destroy(other), RKNN_SUCC);
}

TEST(StandinZeroCopy, TheMiniRuntimeExportsOnlyWhatLibrknnmrtHas) {
    void* mini = dlopen(STANDIN_RKNNMRT_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(mini, nullptr) << dlerror();
    for (const char* absent : {"rknn_inputs_set", "rknn_outputs_get", "rknn_outputs_release", "rknn_dup_context",
                               "rknn_set_core_mask"})
        EXPECT_EQ(dlsym(mini, absent), nullptr) << absent;
    const Api& api = Api::get(STANDIN_RKNNMRT_PATH);
    EXPECT_EQ(api.inputsSet, nullptr);
    const rknn_context ctx = init(api);
    rknn_sdk_version v{};
    ASSERT_EQ(api.query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof v), RKNN_SUCC);
    EXPECT_NE(std::string(v.api_version).find("librknnmrt.so"), std::string::npos) << v.api_version;
    const std::vector<rknn_tensor_mem*> mems = bindAll(api, ctx);
    runAndCheck(api, ctx, mems, 3);
    for (rknn_tensor_mem* m : mems) EXPECT_EQ(api.destroyMem(ctx, m), RKNN_SUCC);
    EXPECT_EQ(api.liveMems(), 0u);
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    dlclose(mini);
}
