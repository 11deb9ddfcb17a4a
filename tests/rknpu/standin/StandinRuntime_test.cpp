// The stand-in librknnrt.so through its C API, loaded with dlopen as a runtime plugin loads the vendor's: init from a
// path and from memory, attributes, outputs equal to the engine's own run of the embedded ONNX model, perf detail the
// engine's vendor-log importer reads, memory sizes, weights shared by rknn_dup_context, concurrent contexts, core
// masks per chip, the refusal of real .rknn files, and error codes for bad calls. The zero-copy API and the mini
// runtime variant librknnmrt.so: StandinZeroCopy_test.cpp.
#include "standin_rknn_api.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"
#include "npuwb/VendorPerfLog.h"
#include "../../unit/UnitTestSupport.h"

namespace fs = std::filesystem;
using namespace npuwb;

namespace {

struct Api {
    void* handle = nullptr;
    decltype(&rknn_init) init = nullptr;
    decltype(&rknn_dup_context) dup = nullptr;
    decltype(&rknn_destroy) destroy = nullptr;
    decltype(&rknn_query) query = nullptr;
    decltype(&rknn_inputs_set) inputsSet = nullptr;
    decltype(&rknn_set_core_mask) setCoreMask = nullptr;
    decltype(&rknn_set_batch_core_num) setBatchCoreNum = nullptr;
    decltype(&rknn_run) run = nullptr;
    decltype(&rknn_outputs_get) outputsGet = nullptr;
    decltype(&rknn_outputs_release) outputsRelease = nullptr;
    decltype(&npuwb_standin_weight_bytes_allocated) weightBytes = nullptr;

    static const Api& get() {
        static const Api api = [] {
            Api a;
            a.handle = dlopen(STANDIN_RKNNRT_PATH, RTLD_NOW | RTLD_LOCAL);
            if (!a.handle) throw std::runtime_error(std::string("dlopen: ") + dlerror());
            auto sym = [&](auto& fn, const char* name) {
                fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(a.handle, name));
                if (!fn) throw std::runtime_error(std::string("missing symbol ") + name);
            };
            sym(a.init, "rknn_init");
            sym(a.dup, "rknn_dup_context");
            sym(a.destroy, "rknn_destroy");
            sym(a.query, "rknn_query");
            sym(a.inputsSet, "rknn_inputs_set");
            sym(a.setCoreMask, "rknn_set_core_mask");
            sym(a.setBatchCoreNum, "rknn_set_batch_core_num");
            sym(a.run, "rknn_run");
            sym(a.outputsGet, "rknn_outputs_get");
            sym(a.outputsRelease, "rknn_outputs_release");
            sym(a.weightBytes, "npuwb_standin_weight_bytes_allocated");
            return a;
        }();
        return api;
    }
};

Tensor randomTensor(Shape shape, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Tensor t(DType::F32, std::move(shape));
    for (float& v : t.values<float>()) v = u(rng);
    return t;
}

constexpr int64_t kWeightBytes = (8 * 3 * 3 * 3 + 8 + 4 * 8 + 4) * 4;  // conv w, b, gemm w, b

/// x [1,3,16,16] -> Conv 3x3 (8) -> Relu -> GlobalAveragePool -> Flatten -> Gemm (4) -> y [1,4]
Model smallModel() {
    Model m;
    m.opsetImports[""] = 17;
    Graph& g = m.graph;
    g.name = "standin_small";
    g.inputs = {unittest::tensorInfo("x", {1, 3, 16, 16})};
    g.outputs = {unittest::tensorInfo("y", {1, 4})};
    g.initializers["w"] = randomTensor({8, 3, 3, 3}, 1);
    g.initializers["b"] = randomTensor({8}, 2);
    g.initializers["gw"] = randomTensor({4, 8}, 3);
    g.initializers["gb"] = randomTensor({4}, 4);
    auto node = [](std::string name, std::string op, std::vector<std::string> in, std::vector<std::string> out) {
        Node n;
        n.name = std::move(name);
        n.opType = std::move(op);
        n.inputs = std::move(in);
        n.outputs = std::move(out);
        return n;
    };
    g.nodes.push_back(node("conv0", "Conv", {"x", "w", "b"}, {"c"}));
    g.nodes.back().attributes["pads"] = Attribute::ofInts({1, 1, 1, 1});
    g.nodes.push_back(node("relu0", "Relu", {"c"}, {"r"}));
    g.nodes.push_back(node("pool0", "GlobalAveragePool", {"r"}, {"p"}));
    g.nodes.push_back(node("flat0", "Flatten", {"p"}, {"f"}));
    g.nodes.push_back(node("fc0", "Gemm", {"f", "gw", "gb"}, {"y"}));
    g.nodes.back().attributes["transB"] = Attribute::ofInt(1);
    return m;
}

std::string container(const std::string& target, int batch, const std::string& onnx) {
    return std::string("NPUWB-STANDIN-RKNN 1\n") + "{\"target_platform\":\"" + target + "\",\"batch\":" +
           std::to_string(batch) + ",\"onnx_bytes\":" + std::to_string(onnx.size()) + "}\n" + onnx;
}

class Standin : public ::testing::Test {
protected:
    const Api& api = Api::get();
    std::string onnx = serializeModel(smallModel());

    rknn_context init(const std::string& bytes, uint32_t flags = 0) {
        rknn_context ctx = 0;
        std::string copy = bytes;
        EXPECT_EQ(api.init(&ctx, copy.data(), static_cast<uint32_t>(copy.size()), flags, nullptr), RKNN_SUCC);
        return ctx;
    }
    /// One run through the C API: float NCHW in, float out.
    std::vector<float> runOnce(rknn_context ctx, const Tensor& x, int* rc = nullptr) {
        rknn_input in{};
        in.index = 0;
        in.buf = const_cast<void*>(x.raw());
        in.size = static_cast<uint32_t>(x.byteSize());
        in.type = RKNN_TENSOR_FLOAT32;
        in.fmt = RKNN_TENSOR_NCHW;
        int r = api.inputsSet(ctx, 1, &in);
        if (r == RKNN_SUCC) r = api.run(ctx, nullptr);
        rknn_output out{};
        out.want_float = 1;
        if (r == RKNN_SUCC) r = api.outputsGet(ctx, 1, &out, nullptr);
        if (rc) *rc = r;
        else EXPECT_EQ(r, RKNN_SUCC);
        if (r != RKNN_SUCC) return {};
        std::vector<float> y(static_cast<const float*>(out.buf), static_cast<const float*>(out.buf) + out.size / 4);
        EXPECT_EQ(api.outputsRelease(ctx, 1, &out), RKNN_SUCC);
        return y;
    }
    static std::shared_ptr<const Model> model(const std::string& onnx) {
        static std::shared_ptr<const Model> m = std::make_shared<Model>(loadModelFromBytes(onnx, ".", "small"));
        return m;
    }
    /// The engine's own run of the embedded model on the backend the stand-in uses.
    std::vector<float> engineRun(const Tensor& x) {
        SessionOptions options;
        options.executor.backend = kAutoBackend;
        Session session(model(onnx), options);
        auto out = session.runTensors({{"x", x}});
        return out.at("y").toFloatVector();
    }
    /// Nodes the engine executes after its exact rewrites (Flatten before Gemm goes): the perf table's rows.
    size_t executedNodes() { return Session(model(onnx)).executionOrder().size(); }
};

void expectNear(const std::vector<float>& a, const std::vector<float>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5f + 1e-5f * std::fabs(b[i])) << "element " << i;
}

TEST_F(Standin, InitsFromPathWrittenByTheToolAndFromMemory) {
    fs::create_directories(STANDIN_WORK_DIR);
    const std::string onnxPath = std::string(STANDIN_WORK_DIR) + "/small.onnx";
    const std::string rknnPath = std::string(STANDIN_WORK_DIR) + "/small-rk3588.rknn";
    std::ofstream(onnxPath, std::ios::binary) << onnx;
    const std::string tool = std::string(NPUWB_SOURCE_DIR) + "/tests/rknpu/standin/make_standin_rknn.py";
    ASSERT_EQ(std::system(("/usr/bin/python3 " + tool + " " + onnxPath + " --target RK3588 -o " + rknnPath).c_str()), 0);
    rknn_context fromPath = 0;
    ASSERT_EQ(api.init(&fromPath, const_cast<char*>(rknnPath.c_str()), 0, 0, nullptr), RKNN_SUCC);
    rknn_context fromMemory = init(container("rk3588", 1, onnx));
    EXPECT_NE(fromPath, fromMemory);
    for (rknn_context ctx : {fromPath, fromMemory}) {
        rknn_input_output_num io{};
        ASSERT_EQ(api.query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io), RKNN_SUCC);
        EXPECT_EQ(io.n_input, 1u);
        EXPECT_EQ(io.n_output, 1u);
        rknn_tensor_attr a{};
        a.index = 0;
        ASSERT_EQ(api.query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a), RKNN_SUCC);
        EXPECT_STREQ(a.name, "x");
        ASSERT_EQ(a.n_dims, 4u);
        EXPECT_EQ(std::vector<uint32_t>(a.dims, a.dims + 4), (std::vector<uint32_t>{1, 3, 16, 16}));
        EXPECT_EQ(a.n_elems, 768u);
        EXPECT_EQ(a.size, 768u * 4);
        EXPECT_EQ(a.type, RKNN_TENSOR_FLOAT32);
        EXPECT_EQ(a.fmt, RKNN_TENSOR_NCHW);
        a = rknn_tensor_attr{};
        ASSERT_EQ(api.query(ctx, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, &a, sizeof a), RKNN_SUCC);
        EXPECT_EQ(std::vector<uint32_t>(a.dims, a.dims + 4), (std::vector<uint32_t>{1, 16, 16, 3}));
        EXPECT_EQ(a.fmt, RKNN_TENSOR_NHWC);
        a = rknn_tensor_attr{};
        ASSERT_EQ(api.query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a), RKNN_SUCC);
        EXPECT_STREQ(a.name, "y");
        EXPECT_EQ(a.n_dims, 2u);
        EXPECT_EQ(a.size, 16u);
        rknn_sdk_version v{};
        ASSERT_EQ(api.query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof v), RKNN_SUCC);
        EXPECT_NE(std::string(v.api_version).find("stand-in"), std::string::npos);
        EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    }
}

TEST_F(Standin, ToolRefusesUnknownTargetsAndNonOnnxInputsAndWritesTheBatch) {
    fs::create_directories(STANDIN_WORK_DIR);
    const std::string dir = STANDIN_WORK_DIR;
    std::ofstream(dir + "/tool.onnx", std::ios::binary) << onnx;
    std::ofstream(dir + "/real.rknn", std::ios::binary) << "RKNN" << std::string(16, '\0');
    const std::string tool = "/usr/bin/python3 " + std::string(NPUWB_SOURCE_DIR) + "/tests/rknpu/standin/make_standin_rknn.py ";
    const std::string quiet = " 2>/dev/null";
    EXPECT_NE(std::system((tool + dir + "/tool.onnx --target rk9999 -o " + dir + "/x.rknn" + quiet).c_str()), 0);
    EXPECT_NE(std::system((tool + dir + "/tool.onnx --target rk3588 --batch 0 -o " + dir + "/x.rknn" + quiet).c_str()), 0);
    EXPECT_NE(std::system((tool + dir + "/real.rknn --target rk3588 -o " + dir + "/x.rknn" + quiet).c_str()), 0);
    EXPECT_NE(std::system((tool + dir + "/missing.onnx --target rk3588 -o " + dir + "/x.rknn" + quiet).c_str()), 0);
    EXPECT_FALSE(fs::exists(dir + "/x.rknn"));
    const std::string out = dir + "/tool-b2-rk3576.rknn";
    ASSERT_EQ(std::system((tool + dir + "/tool.onnx --target rk3576 --batch 2 -o " + out).c_str()), 0);
    rknn_context ctx = 0;
    ASSERT_EQ(api.init(&ctx, const_cast<char*>(out.c_str()), 0, 0, nullptr), RKNN_SUCC);
    rknn_tensor_attr a{};
    ASSERT_EQ(api.query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a), RKNN_SUCC);
    EXPECT_EQ(a.dims[0], 2u);
    EXPECT_EQ(api.setCoreMask(ctx, RKNN_NPU_CORE_0_1), RKNN_SUCC);  // rk3576: two cores
    testing::internal::CaptureStderr();
    EXPECT_EQ(api.setCoreMask(ctx, RKNN_NPU_CORE_0_1_2), RKNN_ERR_PARAM_INVALID);
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
}

TEST_F(Standin, RunsARealModelLikeTheEngine) {
    const std::string path = std::string(NPUWB_MODELS_DIR) + "/mobilenet_v2.onnx";  // the fetch_models fixture's
    ASSERT_TRUE(fs::exists(path)) << path << " not fetched (scripts/fetch-models.sh)";
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    rknn_context ctx = init(container("rk3588", 1, bytes), RKNN_FLAG_COLLECT_PERF_MASK);
    rknn_tensor_attr a{};
    ASSERT_EQ(api.query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a), RKNN_SUCC);
    ASSERT_EQ(a.n_dims, 4u);
    const Shape shape{a.dims[0], a.dims[1], a.dims[2], a.dims[3]};
    const Tensor x = randomTensor(shape, 11);
    auto model = std::make_shared<Model>(loadModelFromBytes(bytes, ".", "mobilenet_v2"));
    SessionOptions options;
    options.executor.backend = kAutoBackend;
    Session session(model, options);
    const std::vector<float> expected = session.runTensors({{a.name, x}}).begin()->second.toFloatVector();
    const std::vector<float> got = runOnce(ctx, x);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], expected[i], 1e-4f + 1e-4f * std::fabs(expected[i])) << i;
    rknn_perf_detail d{};
    ASSERT_EQ(api.query(ctx, RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_SUCC);
    const VendorPerfLog log = parseRknnPerfLog(std::string(d.perf_data, d.data_len), "mobilenet_v2 perf detail");
    EXPECT_EQ(log.layers.size(), session.executionOrder().size());
    size_t convsTimed = 0;
    for (const auto& row : log.layers) convsTimed += row.opType == "Conv" && row.timeUs > 0;
    EXPECT_GT(convsTimed, 10u);
    rknn_mem_size m{};
    ASSERT_EQ(api.query(ctx, RKNN_QUERY_MEM_SIZE, &m, sizeof m), RKNN_SUCC);
    EXPECT_GT(m.total_weight_size, 10u << 20);  // about 14 MB of float weights
    EXPECT_GT(m.total_internal_size, 1u << 20);
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
}

TEST_F(Standin, RunEqualsTheEnginesRunOfTheEmbeddedModelInEveryInputLayoutAndType) {
    rknn_context ctx = init(container("rk3588", 1, onnx));
    const Tensor x = randomTensor({1, 3, 16, 16}, 7);
    const std::vector<float> expected = engineRun(x);
    expectNear(runOnce(ctx, x), expected);
    rknn_perf_run perf{};
    ASSERT_EQ(api.query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf), RKNN_SUCC);
    EXPECT_GT(perf.run_duration, 0);

    // The same input as NHWC floats: converted to the model's NCHW.
    std::vector<float> nhwc(768);
    const float* src = x.data<float>();
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 256; ++i) nhwc[static_cast<size_t>(i * 3 + c)] = src[c * 256 + i];
    rknn_input in{};
    in.buf = nhwc.data();
    in.size = 768 * 4;
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NHWC;
    ASSERT_EQ(api.inputsSet(ctx, 1, &in), RKNN_SUCC);
    ASSERT_EQ(api.run(ctx, nullptr), RKNN_SUCC);
    std::vector<float> y(4);
    rknn_output out{};
    out.want_float = 1;
    out.is_prealloc = 1;
    out.buf = y.data();
    out.size = 16;
    ASSERT_EQ(api.outputsGet(ctx, 1, &out, nullptr), RKNN_SUCC);
    expectNear(y, expected);

    // uint8 input: converted by value to the model's float.
    std::vector<uint8_t> bytes(768);
    Tensor asFloat(DType::F32, {1, 3, 16, 16});
    for (size_t i = 0; i < bytes.size(); ++i) asFloat.data<float>()[i] = bytes[i] = static_cast<uint8_t>(i % 251);
    in = rknn_input{};
    in.buf = bytes.data();
    in.size = 768;
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NCHW;
    ASSERT_EQ(api.inputsSet(ctx, 1, &in), RKNN_SUCC);
    ASSERT_EQ(api.run(ctx, nullptr), RKNN_SUCC);
    ASSERT_EQ(api.outputsGet(ctx, 1, &out, nullptr), RKNN_SUCC);
    expectNear(y, engineRun(asFloat));
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
}

TEST_F(Standin, PerfDetailIsTheVendorTableOfTheLastRunOnlyWithTheCollectFlag) {
    rknn_context plain = init(container("rk3588", 1, onnx));
    runOnce(plain, randomTensor({1, 3, 16, 16}, 3));
    rknn_perf_detail d{};
    EXPECT_EQ(api.query(plain, RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_ERR_PARAM_INVALID);

    rknn_context perf = init(container("rk3588", 1, onnx), RKNN_FLAG_COLLECT_PERF_MASK);
    EXPECT_EQ(api.query(perf, RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_ERR_PARAM_INVALID);  // no run yet
    for (int i = 0; i < 2; ++i) runOnce(perf, randomTensor({1, 3, 16, 16}, 4));  // the second runs on the backend plan
    ASSERT_EQ(api.query(perf, RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_SUCC);
    ASSERT_NE(d.perf_data, nullptr);
    const std::string text(d.perf_data, d.data_len);
    const VendorPerfLog log = parseRknnPerfLog(text, "standin perf detail");
    EXPECT_EQ(log.format, "rknn2");
    ASSERT_EQ(log.layers.size(), executedNodes()) << text;
    ASSERT_GE(log.layers.size(), 4u) << text;
    EXPECT_EQ(log.layers[0].opType, "Conv");
    EXPECT_EQ(log.layers[0].fullName, "Conv:conv0");
    EXPECT_EQ(log.layers[0].target, "CPU");
    ASSERT_EQ(log.layers[0].inputShapes.size(), 3u);
    EXPECT_EQ(log.layers[0].outputShapes.at(0), (Shape{1, 8, 16, 16}));
    EXPECT_GT(log.layers[0].timeUs, 0.0) << text;
    EXPECT_GT(log.layerTimeSumUs(), 0.0);
    ASSERT_TRUE(log.totalUs.has_value());
    EXPECT_NEAR(*log.totalUs, log.layerTimeSumUs(), 1.0 + 0.01 * log.layerTimeSumUs());
    EXPECT_FALSE(log.ranking.empty());
    EXPECT_TRUE(log.warnings.empty()) << log.warnings.front();
    EXPECT_EQ(api.destroy(plain), RKNN_SUCC);
    EXPECT_EQ(api.destroy(perf), RKNN_SUCC);
}

TEST_F(Standin, DupContextSharesTheWeightsASecondInitLoadsThemAgain) {
    const uint64_t before = api.weightBytes();
    rknn_context first = init(container("rk3588", 1, onnx));
    EXPECT_EQ(api.weightBytes() - before, static_cast<uint64_t>(kWeightBytes));
    rknn_context copy = 0;
    ASSERT_EQ(api.dup(&first, &copy), RKNN_SUCC);
    EXPECT_NE(copy, first);
    EXPECT_EQ(api.weightBytes() - before, static_cast<uint64_t>(kWeightBytes)) << "dup_context must not load weights";
    rknn_mem_size a{}, b{};
    ASSERT_EQ(api.query(first, RKNN_QUERY_MEM_SIZE, &a, sizeof a), RKNN_SUCC);
    ASSERT_EQ(api.query(copy, RKNN_QUERY_MEM_SIZE, &b, sizeof b), RKNN_SUCC);
    EXPECT_EQ(a.total_weight_size, static_cast<uint32_t>(kWeightBytes));
    EXPECT_EQ(b.total_weight_size, a.total_weight_size);
    EXPECT_EQ(a.total_internal_size, (8 * 16 * 16 * 2 + 8 + 8) * 4u);  // conv and relu out, pool, flatten
    EXPECT_EQ(b.total_internal_size, a.total_internal_size);
    EXPECT_EQ(a.total_dma_allocated_size, a.total_weight_size + a.total_internal_size + (768 + 4) * 4u);
    const Tensor x = randomTensor({1, 3, 16, 16}, 9);
    expectNear(runOnce(copy, x), runOnce(first, x));
    rknn_context second = init(container("rk3588", 1, onnx));
    EXPECT_EQ(api.weightBytes() - before, 2u * kWeightBytes);
    for (rknn_context c : {first, copy, second}) EXPECT_EQ(api.destroy(c), RKNN_SUCC);
}

TEST_F(Standin, BatchedContainerScalesAttrsAndContextsRunConcurrently) {
    const int batch = 3;
    rknn_context ctx[3] = {init(container("rk3588", batch, onnx), RKNN_FLAG_COLLECT_PERF_MASK), 0, 0};
    ASSERT_EQ(api.dup(&ctx[0], &ctx[1]), RKNN_SUCC);
    ASSERT_EQ(api.dup(&ctx[0], &ctx[2]), RKNN_SUCC);
    rknn_tensor_attr a{};
    ASSERT_EQ(api.query(ctx[1], RKNN_QUERY_INPUT_ATTR, &a, sizeof a), RKNN_SUCC);
    EXPECT_EQ(std::vector<uint32_t>(a.dims, a.dims + 4), (std::vector<uint32_t>{3, 3, 16, 16}));
    EXPECT_EQ(a.size, 3u * 768 * 4);
    a = rknn_tensor_attr{};
    ASSERT_EQ(api.query(ctx[2], RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a), RKNN_SUCC);
    EXPECT_EQ(a.dims[0], 3u);
    EXPECT_EQ(a.size, 3u * 16);

    // Each context gets its own batch of 3 items; the expected outputs are the engine's, item by item.
    std::vector<Tensor> inputs;
    std::vector<std::vector<float>> expected;
    for (int c = 0; c < 3; ++c) {
        inputs.push_back(randomTensor({batch, 3, 16, 16}, 100 + c));
        std::vector<float> e;
        for (int item = 0; item < batch; ++item) {
            Tensor one(DType::F32, {1, 3, 16, 16});
            std::memcpy(one.raw(), inputs.back().data<float>() + item * 768, 768 * 4);
            auto y = engineRun(one);
            e.insert(e.end(), y.begin(), y.end());
        }
        expected.push_back(e);
    }
    std::vector<std::vector<float>> got(3);
    std::vector<int> failures(3, 0);
    std::vector<std::thread> threads;
    for (int c = 0; c < 3; ++c)
        threads.emplace_back([&, c] {
            for (int round = 0; round < 10; ++round) {
                int rc = 0;
                got[c] = runOnce(ctx[c], inputs[c], &rc);
                if (rc != RKNN_SUCC) ++failures[c];
            }
        });
    for (auto& t : threads) t.join();
    for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(failures[c], 0) << "context " << c;
        expectNear(got[c], expected[c]);
        rknn_perf_detail d{};
        ASSERT_EQ(api.query(ctx[c], RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_SUCC);
        EXPECT_EQ(parseRknnPerfLog(std::string(d.perf_data, d.data_len), "ctx").layers.size(), executedNodes());
    }
    for (rknn_context c : ctx) EXPECT_EQ(api.destroy(c), RKNN_SUCC);
}

TEST_F(Standin, ContextsTakeTheirSliceOfSharedBatchBuffersAtTheirOffsets) {
    // RKNN SDK user guide V2.5.0, 4.1.4.3, as a runner does it with rknn_dup_context: slice i of a batch buffer is read
    // at i * input_size and written at i * output_size by context i; here three contexts share one input and one
    // output buffer of three slices and run at once.
    const int slices = 3;
    rknn_context ctx[3] = {init(container("rk3588", 1, onnx)), 0, 0};
    ASSERT_EQ(api.dup(&ctx[0], &ctx[1]), RKNN_SUCC);
    ASSERT_EQ(api.dup(&ctx[0], &ctx[2]), RKNN_SUCC);
    rknn_tensor_attr in{}, out{};
    ASSERT_EQ(api.query(ctx[0], RKNN_QUERY_INPUT_ATTR, &in, sizeof in), RKNN_SUCC);
    ASSERT_EQ(api.query(ctx[0], RKNN_QUERY_OUTPUT_ATTR, &out, sizeof out), RKNN_SUCC);
    const Tensor x = randomTensor({slices, 3, 16, 16}, 21);
    std::vector<float> y(slices * out.size / 4, -1.0f);
    std::vector<float> expected;
    for (int item = 0; item < slices; ++item) {
        Tensor one(DType::F32, {1, 3, 16, 16});
        std::memcpy(one.raw(), x.data<float>() + item * 768, 768 * 4);
        auto e = engineRun(one);
        expected.insert(expected.end(), e.begin(), e.end());
    }
    std::vector<int> rc(3, RKNN_SUCC);
    std::vector<std::thread> threads;
    for (int i = 0; i < slices; ++i)
        threads.emplace_back([&, i] {
            for (int round = 0; round < 5 && rc[i] == RKNN_SUCC; ++round) {
                rknn_input input{};
                input.buf = const_cast<char*>(static_cast<const char*>(x.raw())) + i * in.size;
                input.size = in.size;
                input.type = RKNN_TENSOR_FLOAT32;
                input.fmt = RKNN_TENSOR_NCHW;
                rknn_output output{};
                output.want_float = 1;
                output.is_prealloc = 1;
                output.buf = reinterpret_cast<char*>(y.data()) + i * out.size;
                output.size = out.size;
                rc[i] = api.inputsSet(ctx[i], 1, &input);
                if (rc[i] == RKNN_SUCC) rc[i] = api.run(ctx[i], nullptr);
                if (rc[i] == RKNN_SUCC) rc[i] = api.outputsGet(ctx[i], 1, &output, nullptr);
            }
        });
    for (auto& t : threads) t.join();
    for (int i = 0; i < slices; ++i) EXPECT_EQ(rc[i], RKNN_SUCC) << "context " << i;
    expectNear(y, expected);
    for (rknn_context c : ctx) EXPECT_EQ(api.destroy(c), RKNN_SUCC);

    // A batch-3 model splits its run itself: its contexts take the whole batch, one item's buffer is refused.
    rknn_context batched = init(container("rk3588", 3, onnx));
    rknn_input one{};
    one.buf = const_cast<void*>(x.raw());
    one.size = in.size;
    one.type = RKNN_TENSOR_FLOAT32;
    testing::internal::CaptureStderr();
    EXPECT_EQ(api.inputsSet(batched, 1, &one), RKNN_ERR_INPUT_INVALID);
    testing::internal::GetCapturedStderr();
    one.size = 3 * in.size;
    EXPECT_EQ(api.inputsSet(batched, 1, &one), RKNN_SUCC);
    EXPECT_EQ(api.destroy(batched), RKNN_SUCC);
}

TEST_F(Standin, DestroyingAContextWhileAnotherThreadUsesItNeverCrashes) {
    rknn_context ctx = init(container("rk3588", 1, onnx));
    rknn_context copy = 0;
    ASSERT_EQ(api.dup(&ctx, &copy), RKNN_SUCC);
    const Tensor x = randomTensor({1, 3, 16, 16}, 31);
    std::atomic<int> succeeded{0}, refused{0}, other{0};
    std::thread user([&] {
        // Preallocated outputs: a buffer the runtime holds would go with the context (as on the board).
        std::vector<float> y(4);
        for (int i = 0; i < 200; ++i) {
            rknn_input in{};
            in.buf = const_cast<void*>(x.raw());
            in.size = static_cast<uint32_t>(x.byteSize());
            in.type = RKNN_TENSOR_FLOAT32;
            rknn_output out{};
            out.want_float = 1;
            out.is_prealloc = 1;
            out.buf = y.data();
            out.size = 16;
            int rc = api.inputsSet(ctx, 1, &in);
            if (rc == RKNN_SUCC) rc = api.run(ctx, nullptr);
            if (rc == RKNN_SUCC) rc = api.outputsGet(ctx, 1, &out, nullptr);
            (rc == RKNN_SUCC ? succeeded : rc == RKNN_ERR_CTX_INVALID ? refused : other)++;
            if (rc == RKNN_ERR_CTX_INVALID) break;
        }
    });
    while (succeeded == 0 && refused == 0 && other == 0) std::this_thread::yield();
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    user.join();
    EXPECT_GT(succeeded.load(), 0);
    EXPECT_EQ(other.load(), 0);
    // The copy shares the model and still runs after the original is gone.
    expectNear(runOnce(copy, x), engineRun(x));
    EXPECT_EQ(api.destroy(copy), RKNN_SUCC);
}

TEST_F(Standin, CoreMasksFollowTheChipsCoreCount) {
    const int all[] = {RKNN_NPU_CORE_AUTO, RKNN_NPU_CORE_0,     RKNN_NPU_CORE_1,  RKNN_NPU_CORE_2,
                       RKNN_NPU_CORE_0_1,  RKNN_NPU_CORE_0_1_2, RKNN_NPU_CORE_ALL, 5, 6, RKNN_NPU_CORE_UNDEFINED};
    struct Chip {
        int cores;
        std::set<int> masks;
    };
    const std::map<std::string, Chip> accepted{{"rk3588", {3, {0, 1, 2, 4, 3, 7, 0xffff}}},
                                               {"rk3576", {2, {0, 1, 2, 3, 0xffff}}},
                                               {"rk3566", {1, {0, 1}}}};
    for (const auto& [chip, expected] : accepted) {
        const std::set<int>& ok = expected.masks;
        rknn_context ctx = init(container(chip, 1, onnx));
        for (int mask : all)
            EXPECT_EQ(api.setCoreMask(ctx, static_cast<rknn_core_mask>(mask)), ok.count(mask) ? RKNN_SUCC : RKNN_ERR_PARAM_INVALID)
                << chip << " mask " << mask;
        EXPECT_EQ(api.setBatchCoreNum(ctx, 1), RKNN_SUCC);
        EXPECT_EQ(api.setBatchCoreNum(ctx, expected.cores), RKNN_SUCC);
        EXPECT_EQ(api.setBatchCoreNum(ctx, expected.cores + 1), RKNN_ERR_PARAM_INVALID);
        EXPECT_EQ(api.setBatchCoreNum(ctx, 0), RKNN_ERR_PARAM_INVALID);
        runOnce(ctx, randomTensor({1, 3, 16, 16}, 5));  // still runs after a refused mask
        EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    }
    // A container that carries its core count needs no chip profile (a board without them).
    std::string carried = container("rk9999", 1, onnx);
    carried.replace(carried.find("\"batch\""), 0, "\"npu_cores\":2,");
    rknn_context ctx = init(carried);
    EXPECT_EQ(api.setCoreMask(ctx, RKNN_NPU_CORE_0_1), RKNN_SUCC);
    EXPECT_EQ(api.setCoreMask(ctx, RKNN_NPU_CORE_2), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
}

TEST_F(Standin, RefusesARealRknnFileSayingItIsTheStandin) {
    std::string real = "RKNN";
    real += std::string(60, '\0');
    rknn_context ctx = 0;
    testing::internal::CaptureStderr();
    EXPECT_EQ(api.init(&ctx, real.data(), static_cast<uint32_t>(real.size()), 0, nullptr), RKNN_ERR_MODEL_INVALID);
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("stand-in"), std::string::npos) << said;
    EXPECT_NE(said.find("runs only"), std::string::npos) << said;
}

TEST_F(Standin, DamagedContainersAreRefusedNeverCrash) {
    const std::string good = container("rk3588", 1, onnx);
    std::mt19937 rng(2026);
    int refused = 0;
    testing::internal::CaptureStderr();
    for (int i = 0; i < 80; ++i) {
        std::string bad = good;
        if (i % 2 == 0) {  // a byte of the magic or header changed
            bad[rng() % 90] = static_cast<char>(rng() & 0xff);
        } else {  // cut anywhere
            bad.resize(rng() % good.size());
        }
        rknn_context ctx = 0;
        const int rc = api.init(&ctx, bad.data(), static_cast<uint32_t>(bad.size()), 0, nullptr);
        EXPECT_TRUE(rc == RKNN_SUCC || rc == RKNN_ERR_MODEL_INVALID || rc == RKNN_ERR_PARAM_INVALID) << "rc " << rc;
        if (rc == RKNN_SUCC) EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);  // a change the format tolerates (a space)
        else ++refused;
    }
    testing::internal::GetCapturedStderr();
    EXPECT_GT(refused, 60);
}

TEST_F(Standin, BadCallsReturnTheVendorsErrorCodes) {
    rknn_context ctx = 0;
    std::string good = container("rk3588", 1, onnx);
    EXPECT_EQ(api.init(nullptr, good.data(), static_cast<uint32_t>(good.size()), 0, nullptr), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.init(&ctx, nullptr, 10, 0, nullptr), RKNN_ERR_PARAM_INVALID);
    for (std::string bad : {std::string("garbage"), good.substr(0, good.size() - 10), container("rk9999", 1, onnx),
                            container("rk3588", 0, onnx), container("rk3588", 1, "not onnx"),
                            std::string(good).replace(good.find("\"batch\""), 0, "\"npu_cores\":0,")}) {
        testing::internal::CaptureStderr();
        EXPECT_EQ(api.init(&ctx, bad.data(), static_cast<uint32_t>(bad.size()), 0, nullptr), RKNN_ERR_MODEL_INVALID);
        EXPECT_FALSE(testing::internal::GetCapturedStderr().empty());
    }
    char missing[] = "/nonexistent/model.rknn";
    testing::internal::CaptureStderr();
    EXPECT_EQ(api.init(&ctx, missing, 0, 0, nullptr), RKNN_ERR_MODEL_INVALID);
    testing::internal::GetCapturedStderr();

    const rknn_context unknown = 987654321;
    rknn_input_output_num io{};
    EXPECT_EQ(api.query(unknown, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io), RKNN_ERR_CTX_INVALID);
    EXPECT_EQ(api.run(unknown, nullptr), RKNN_ERR_CTX_INVALID);
    EXPECT_EQ(api.destroy(unknown), RKNN_ERR_CTX_INVALID);
    EXPECT_EQ(api.dup(&ctx, nullptr), RKNN_ERR_PARAM_INVALID);
    rknn_context out = 0;
    rknn_context bogus = unknown;
    EXPECT_EQ(api.dup(&bogus, &out), RKNN_ERR_CTX_INVALID);

    ctx = init(good);
    EXPECT_EQ(api.query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io - 1), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.query(ctx, RKNN_QUERY_IN_OUT_NUM, nullptr, sizeof io), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.query(ctx, static_cast<rknn_query_cmd>(99), &io, sizeof io), RKNN_ERR_PARAM_INVALID);
    rknn_tensor_attr a{};
    a.index = 1;
    EXPECT_EQ(api.query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a), RKNN_ERR_PARAM_INVALID);
    rknn_perf_run perf{};
    EXPECT_EQ(api.query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf), RKNN_ERR_PARAM_INVALID);  // no run yet

    testing::internal::CaptureStderr();
    EXPECT_EQ(api.run(ctx, nullptr), RKNN_ERR_INPUT_INVALID);  // inputs never set
    rknn_output o{};
    EXPECT_EQ(api.outputsGet(ctx, 1, &o, nullptr), RKNN_ERR_OUTPUT_INVALID);  // nothing run
    std::vector<float> x(768);
    rknn_input in{};
    in.buf = x.data();
    in.size = 767 * 4;
    in.type = RKNN_TENSOR_FLOAT32;
    EXPECT_EQ(api.inputsSet(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);  // wrong size
    in.size = 768 * 4;
    in.type = static_cast<rknn_tensor_type>(42);
    EXPECT_EQ(api.inputsSet(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);  // unknown type
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NC1HWC2;
    EXPECT_EQ(api.inputsSet(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);  // layout the stand-in does not take
    in.fmt = RKNN_TENSOR_NCHW;
    in.index = 3;
    EXPECT_EQ(api.inputsSet(ctx, 1, &in), RKNN_ERR_PARAM_INVALID);  // no such input
    in.index = 0;
    in.buf = nullptr;
    EXPECT_EQ(api.inputsSet(ctx, 1, &in), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.inputsSet(ctx, 2, &in), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.inputsSet(ctx, 1, nullptr), RKNN_ERR_PARAM_INVALID);
    in.buf = x.data();
    ASSERT_EQ(api.inputsSet(ctx, 1, &in), RKNN_SUCC);
    ASSERT_EQ(api.run(ctx, nullptr), RKNN_SUCC);
    float small[2];
    o.is_prealloc = 1;
    o.buf = small;
    o.size = sizeof small;
    EXPECT_EQ(api.outputsGet(ctx, 1, &o, nullptr), RKNN_ERR_OUTPUT_INVALID);  // buffer too small
    o.index = 5;
    EXPECT_EQ(api.outputsGet(ctx, 1, &o, nullptr), RKNN_ERR_PARAM_INVALID);
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(api.outputsRelease(ctx, 1, nullptr), RKNN_ERR_PARAM_INVALID);
    EXPECT_EQ(api.destroy(ctx), RKNN_SUCC);
    EXPECT_EQ(api.destroy(ctx), RKNN_ERR_CTX_INVALID);
    EXPECT_EQ(api.setCoreMask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_CTX_INVALID);
}

}  // namespace
