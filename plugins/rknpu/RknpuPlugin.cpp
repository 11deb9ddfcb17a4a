// The rknpu model-runtime plugin (npuwb/sdk/ModelRuntime.h): `.rknn` models through Rockchip's librknnrt.so, with
// per-layer perf detail mapped into the shared report; and its matmul API as device matmul kernels
// (npuwb/sdk/MatmulKernel.h, RknnMatmul.h).
#include "RknnMatmul.h"
#include "RknnRunner.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::rknpu {

namespace {

class RknpuRuntime : public ModelRuntime {
public:
    std::string name() const override { return "rknpu"; }
    std::vector<std::string> modelExtensions() const override { return {".rknn"}; }
    std::string unavailableReason(const ModelRunOptions& options) const override {
        return rknnRuntimeUnavailableReason(options.library);
    }
    Report profile(const std::string& modelPath, const ModelRunOptions& options) override {
        return reportFromRknnRun(runRknnModel(modelPath, options));
    }
};

}  // namespace

}  // namespace npuwb::rknpu

extern "C" int npuwb_runtime_api_version() { return npuwb::kModelRuntimeApiVersion; }
extern "C" npuwb::ModelRuntime* npuwb_create_runtime() { return new npuwb::rknpu::RknpuRuntime(); }
extern "C" int npuwb_matmul_kernel_api_version() { return npuwb::kMatmulKernelApiVersion; }
extern "C" npuwb::MatmulKernelProvider* npuwb_create_matmul_kernels() {
    return npuwb::rknpu::makeRknnMatmulProvider().release();
}
