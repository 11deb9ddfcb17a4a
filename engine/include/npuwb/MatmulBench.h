#pragma once
// A matmul benchmark sweep on the CPU (npuwb-cli matmul-bench and the GUI's Matmul view): for each K, N of
// the sweep one prepared context serves every M (the API's dynamic shapes), timed over several runs, next to
// the cost of the chip's layout conversions, the chip's theoretical peak for the type and the cost model's NPU
// estimate. Specs are validated against the chip first, so a sweep the NPU could not run fails up front.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "npuwb/Matmul.h"

namespace npuwb {

struct MatmulBenchOptions {
    MatmulType type = MatmulType::Int8xInt8ToInt32;
    MatmulLayout bLayout = MatmulLayout::Native;
    MatmulLayout acLayout = MatmulLayout::Norm;
    std::vector<int64_t> mValues{1, 64, 256};
    std::vector<int64_t> kValues{1024};
    std::vector<int64_t> nValues{1024};
    int runs = 10;  // timed runs per point (median and minimum reported)
    int warmup = 2;
    std::string backend = "auto";  // or "rknpu": the NPU through the runtime plugin (a board's agent)
    int threads = 0;       // 0: all physical cores
    int64_t npuCores = 1;  // cores of the estimate and the peak (the API uses one without a core mask)
    uint64_t seed = 1;     // random operands
    NpuCoreMask coreMask = NpuCoreMask::Auto;  // the NPU's cores (backend rknpu)
};

struct MatmulBenchPoint {
    int64_t M = 0, K = 0, N = 0;
    double medianUs = 0, minUs = 0;
    double gops = 0;          // 2*M*K*N per median run, in G(FL)OP/s
    double bToNativeUs = 0;   // B from normal to the chip's native layout (once per weights; the API's set_io_mem)
    double acToNativeUs = 0;  // A to and C from the native layouts, per run
    std::string backend;      // what ran: "cpu-onednn", "reference"
    std::string fallbackReason;
    std::string aLayout, bLayout, cLayout;  // matmulLayoutText of the native layouts
    MatmulEstimate estimate;
};

struct MatmulBenchResult {
    std::string chip;
    MatmulType type = MatmulType::Int8xInt8ToInt32;
    MatmulLayout bLayout = MatmulLayout::Native;
    MatmulLayout acLayout = MatmulLayout::Norm;
    int threads = 0;
    int64_t npuCores = 1;
    double peakGops = 0;  // the chip's theoretical peak for the type on npuCores cores
    NpuCoreMask coreMask = NpuCoreMask::Auto;
    std::string measuredOn = "cpu";  // or the board's host (measured on its NPU)
    std::vector<MatmulBenchPoint> points;
};

/// Every problem of every K, N of the sweep on the chip (empty when all are fine).
std::vector<std::string> matmulBenchProblems(const ChipProfile& chip, const MatmulBenchOptions& options);

/// Runs the sweep. `progress(done, total)` is called after each point; returning false cancels (Error Cancelled).
/// Throws InvalidInput with matmulBenchProblems when the chip cannot run the sweep.
MatmulBenchResult runMatmulBench(const ChipProfile& chip, const MatmulBenchOptions& options,
                                 const std::function<bool(size_t done, size_t total)>& progress = {});

/// The result as JSON ("schema": "npuwb-matmul-bench", fields in engine/matmul/README.md).
nlohmann::json matmulBenchJson(const MatmulBenchResult& result);
/// Reads what matmulBenchJson writes (a board's result). Throws InvalidInput naming `source` and the field.
MatmulBenchResult matmulBenchResultFromJson(const nlohmann::json& j, const std::string& source);

/// The sweep as a board job sends it: "type", "bLayout", "acLayout", "M", "K", "N", "runs", "warmup", "npuCores",
/// "coreMask", "seed" (backend and threads are the board's: its NPU runtime).
nlohmann::json matmulBenchOptionsJson(const MatmulBenchOptions& options);
/// Missing fields keep their defaults; unknown fields, wrong types and ranges are refused with InvalidInput naming
/// `source` and the field.
MatmulBenchOptions matmulBenchOptionsFromJson(const nlohmann::json& j, const std::string& source);

}  // namespace npuwb
