// `npuwb-cli matmul-bench --chip CHIP --type TYPE [--layout-b native|norm|tp_norm] --sweep M=1,64,256 K=.. N=..
// [--board HOST [--core-mask MASK]] [--json OUT]`: a matmul of the NPU's matmul API (RKNN SDK user guide V2.5.0,
// 4.1.1) measured on this machine's CPU, or on a board's NPU through the agent and the rknpu runtime plugin, across a
// sweep of sizes, next to the chip's native layouts, its theoretical peak for the type and the cost model's NPU
// estimate (on a board: predicted over measured). Self-contained: its options live here.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <iostream>
#include <sstream>

#include "BoardProfile.h"
#include "Commands.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"
#include "npuwb/MatmulBench.h"

#include <nlohmann/json.hpp>

namespace npuwb::cli {

namespace {

struct MatmulBenchCliOptions {
    std::string chip;
    std::string type = "int8";
    std::string layoutB = "native";
    std::string layoutAC = "norm";
    std::vector<std::string> sweep;
    int runs = 10;
    int warmup = 2;
    int threads = 0;
    int cores = 1;
    std::string backend = "auto";
    BoardCliOptions board;  // board.board.host set (--board HOST): measured on the board's NPU
    std::string coreMask = "auto";
    std::string jsonPath;
    bool listTypes = false;
};

/// "M=1,64,256" -> {'M', {1, 64, 256}}
std::pair<char, std::vector<int64_t>> parseSweepItem(const std::string& item) {
    if (item.size() < 3 || item[1] != '=' || (item[0] != 'M' && item[0] != 'K' && item[0] != 'N'))
        failInput("--sweep '" + item + "': expected M=..., K=... or N=... with comma-separated sizes");
    std::vector<int64_t> values;
    std::stringstream ss(item.substr(2));
    for (std::string part; std::getline(ss, part, ',');) {
        size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(part, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (part.empty() || used != part.size() || v < 1 || v > (1ll << 20))
            failInput("--sweep '" + item + "': '" + part + "' is not a size from 1 to 1048576");
        values.push_back(v);
    }
    return {item[0], values};
}

std::string joined(const std::vector<int64_t>& v) {
    std::string s;
    for (int64_t x : v) s.append(s.empty() ? "" : ",").append(std::to_string(x));
    return s;
}

void printTable(const MatmulBenchResult& r) {
    const MatmulTypeInfo& info = matmulTypeInfo(r.type);
    const MatmulBenchPoint& first = r.points.front();
    const bool board = r.measuredOn != "cpu";
    const std::string where =
        board ? "on the NPU of board " + r.measuredOn + ": " + first.backend + ", core mask " + coreMaskName(r.coreMask)
              : "on this CPU: " + first.backend + ", " +
                    std::to_string(first.backend == "reference" ? 1 : r.threads) + " thread(s)";  // reference: serial
    std::printf("%s  %s (%s)  B %s, A/C %s  %s\n", r.chip.c_str(), std::string(info.name).c_str(),
                std::string(info.vendorName).c_str(), std::string(matmulLayoutName(r.bLayout)).c_str(),
                std::string(matmulLayoutName(r.acLayout)).c_str(), where.c_str());
    if (!first.fallbackReason.empty()) std::printf("  (%s)\n", first.fallbackReason.c_str());
    std::printf("one prepared context per K, N serves every M (the API's dynamic shapes)\n");
    std::printf("NPU peak for this type: %.0f GOP/s on %lld core(s); NPU_est columns are the cost model's estimate%s\n",
                r.peakGops, static_cast<long long>(r.npuCores),
                board ? ", est/meas = predicted over measured time" : "");
    std::printf("%6s %6s %6s %10s %10s %12s %13s %11s %11s %6s%s  %s\n", "M", "K", "N", board ? "NPU_ms" : "CPU_ms",
                board ? "NPU_GOP/s" : "CPU_GOP/s", "B->native_ms", "A,C<->nat_us", "NPU_est_ms", "est_GOP/s",
                "%peak", board ? "  est/meas" : "", "native A | B | C");
    for (const auto& p : r.points) {
        const double flops = 2.0 * double(p.M) * double(p.K) * double(p.N);
        const double npuGops = p.estimate.timeUs > 0 ? flops / p.estimate.timeUs / 1e3 : 0;
        char ratio[32] = "";
        if (board) std::snprintf(ratio, sizeof ratio, " %9.3f", p.medianUs > 0 ? p.estimate.timeUs / p.medianUs : 0);
        std::printf("%6lld %6lld %6lld %10.3f %10.1f %12.3f %13.1f %11.4f %11.1f %6.1f%s  %s | %s | %s\n",
                    static_cast<long long>(p.M), static_cast<long long>(p.K), static_cast<long long>(p.N),
                    p.medianUs / 1e3, p.gops, p.bToNativeUs / 1e3, p.acToNativeUs, p.estimate.timeUs / 1e3, npuGops,
                    r.peakGops > 0 ? 100.0 * npuGops / r.peakGops : 0.0, ratio, p.aLayout.c_str(), p.bLayout.c_str(),
                    p.cLayout.c_str());
    }
}

void runMatmulBenchCommand(const MatmulBenchCliOptions& o) {
    if (o.listTypes) {  // with --chip: which of them the chip runs
        std::optional<ChipProfile> chip;
        if (!o.chip.empty()) chip = findChipProfile(o.chip);
        for (const auto& t : kMatmulTypes) {
            const bool runs =
                chip && chip->matmul &&
                std::find(chip->matmul->types.begin(), chip->matmul->types.end(), t.name) != chip->matmul->types.end();
            const std::string shortName = matmulTypeShortName(t.type);
            std::printf("%-18s %2d  %-36s %-7s %s\n", std::string(t.name).c_str(), int(t.type),
                        std::string(t.vendorName).c_str(), shortName.empty() ? "" : ("(" + shortName + ")").c_str(),
                        runs ? ("on " + chip->name).c_str() : "");
        }
        return;
    }
    if (o.chip.empty())
        failInput("matmul-bench needs --chip CHIP (rk3588, rk3566, ...; npuwb-cli estimate --list-chips)");
    const bool onBoard = !o.board.board.host.empty();
    if (!onBoard && o.coreMask != "auto") failInput("--core-mask selects NPU cores: it needs --board");
    MatmulBenchOptions bench;
    bench.type = parseMatmulType(o.type);
    bench.bLayout = parseMatmulLayout(o.layoutB);
    bench.acLayout = parseMatmulLayout(o.layoutAC);
    bench.runs = o.runs;
    bench.warmup = o.warmup;
    bench.threads = o.threads;
    bench.npuCores = o.cores;
    bench.backend = o.backend;
    if (!parseCoreMask(o.coreMask, bench.coreMask))
        failInput("--core-mask '" + o.coreMask + "': expected auto, 0, 1, 2, 0_1, 0_1_2 or all");
    if (onBoard && o.backend != "auto")
        failInput("--backend picks CPU kernels; with --board the sweep runs on the board's NPU (rknpu)");
    for (const auto& item : o.sweep) {
        auto [dim, values] = parseSweepItem(item);
        (dim == 'M' ? bench.mValues : dim == 'K' ? bench.kValues : bench.nValues) = values;
    }
    const ChipProfile chip = findChipProfile(o.chip);
    std::cerr << "matmul-bench: " << chip.name << " " << matmulTypeInfo(bench.type).name
              << " M=" << joined(bench.mValues) << " K=" << joined(bench.kValues) << " N=" << joined(bench.nValues)
              << (onBoard ? " on board " + o.board.board.host : std::string()) << "\n";
    const MatmulBenchResult result =
        onBoard ? matmulBenchOnBoard(chip, bench, "rknpu", o.board) : runMatmulBench(chip, bench);
    if (!o.jsonPath.empty()) {
        writeFileAtomically(o.jsonPath, matmulBenchJson(result).dump(1) + "\n");
        std::cerr << "results written to " << o.jsonPath << "\n";
    }
    printTable(result);
}

}  // namespace

static void addMatmulBenchCommand(CLI::App& app) {
    auto opts = std::make_shared<MatmulBenchCliOptions>();
    CLI::App* cmd = app.add_subcommand(
        "matmul-bench",
        "Measure a matmul of the NPU's matmul API on this CPU (or a board's NPU) across sizes, with the chip's "
        "layouts, peak and estimated NPU time");
    cmd->add_option("--chip", opts->chip, "chip profile name (rk3588, rk3566, ...) or a profile .json path");
    cmd->add_option("--type", opts->type,
                    "matmul type: int8xint8->int32 (or int8xint8-int32), a vendor name or number, or a short name "
                    "(--list-types)")
        ->capture_default_str();
    cmd->add_option("--layout-b", opts->layoutB, "layout of B: native, norm or tp_norm")->capture_default_str();
    cmd->add_option("--layout-ac", opts->layoutAC, "layout of A and C: norm or native")->capture_default_str();
    cmd->add_option("--sweep", opts->sweep, "sizes: M=1,64,256 K=4096 N=4096 (default M=1,64,256 K=1024 N=1024)")
        ->expected(1, 3);
    cmd->add_option("--runs", opts->runs, "timed runs per size (median and minimum)")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    cmd->add_option("--warmup", opts->warmup, "untimed runs first")->capture_default_str()->check(CLI::Range(0, 1000));
    cmd->add_option("--threads", opts->threads, "CPU threads (0: all physical cores)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1024));
    cmd->add_option("--cores", opts->cores, "NPU cores for the estimate and the peak (the API uses one by default)")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    cmd->add_option("--backend", opts->backend,
                    "CPU kernels: auto, reference or a plugin with matmul kernels (cpu-onednn)")
        ->capture_default_str();
    cmd->add_option("--board", opts->board.board.host,
                    "measure on this board's NPU over SSH instead ([user@]host[:port] or ssh config alias; the agent "
                    "runs the sweep through the rknpu runtime plugin and the board's librknnrt.so)");
    addBoardConnectionOptions(cmd, opts->board);
    cmd->add_option("--core-mask", opts->coreMask, "NPU cores on the board: auto, 0, 1, 2, 0_1, 0_1_2 or all")
        ->capture_default_str();
    cmd->add_flag("-q,--quiet", opts->board.quiet, "no progress output");
    cmd->add_option("--json", opts->jsonPath, "write the results as JSON (fields: engine/matmul/README.md)");
    cmd->add_flag("--list-types", opts->listTypes, "list the matmul types and exit");
    cmd->callback([opts] { runMatmulBenchCommand(*opts); });
}
NPUWB_CLI_COMMAND(addMatmulBenchCommand);

}  // namespace npuwb::cli
