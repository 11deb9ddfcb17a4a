#pragma once
// Runs passes to a fixed point and proves every rewrite: the model before and after runs on seeded random inputs
// (and the given calibration sets); a rewrite whose outputs differ by more than the tolerance is rolled back and
// reported with the pass and the node that caused it.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/RunOptions.h"
#include "npuwb/Session.h"

namespace npuwb::passes {

/// One place where a pass applies (or almost applies).
struct Match {
    std::vector<std::string> nodes;  // node names involved; nodes[0] is the anchor the rewrite starts from
    std::string explanation;         // what would be rewritten, in one line
    std::string nearMissReason;      // empty for a real match; for a near miss: what breaks it
    bool applicable() const { return nearMissReason.empty(); }
};

/// Settings some passes need (e.g. the chip's channel alignment); passes ignore what they do not use.
struct PassConfig {
    int64_t channelAlign = 0;  // pad_channels: pad conv channels up to a multiple of this (0 = off)
    int64_t opset = 13;        // the model's ai.onnx opset: decides attribute-vs-input forms and new ops
    int64_t targetOpset = 0;   // upgrade_opset: the opset to move the model to (0 = stay)
    /// The proof's concrete shapes for inputs with symbolic dims, for passes that run the model (upgrade_opset).
    std::map<std::string, Shape> inputShapes;
    int64_t symbolicDimValue = 1;
    ExecutorOptions executor{};  // what such passes run the model on (the proof's, ProofOptions::executor)
};


struct ProofOptions {
    /// Accepted when max|after - before| <= tolerance * max(1, max|before|) over every output element.
    double tolerance = 1e-4;
    uint64_t seed = 1;
    int randomInputSets = 1;
    int64_t symbolicDimValue = 1;                  // for symbolic dims of generated inputs
    std::map<std::string, Shape> inputShapes;      // concrete shapes for inputs with symbolic dims
    std::vector<std::map<std::string, Tensor>> calibrationSets;  // extra input sets (e.g. from .npy files)
    /// What both sides of every proof run on: by default the fastest backend (differentially tested against the
    /// reference kernels), since a proof runs the model once per pass and input set (PP-OCRv4 det at 480x480:
    /// 12 runs, about 11 s on the reference kernels).
    ExecutorOptions executor;
};

struct Proof {
    bool passed = false;
    double maxAbsDiff = 0;   // over all outputs and input sets
    double maxRelDiff = 0;   // maxAbsDiff / max|reference|
    double refMaxAbs = 0;    // largest reference magnitude, the tolerance's scale
    int inputSets = 0;
    std::string failure;     // why it did not pass (difference, shape change, model that no longer runs)
};

struct Application {
    std::string pass;
    std::string guideSection;
    Match match;
    Proof proof;
    int batchSize = 1;  // rewrites of the same pass proven together in one run
    std::string error;  // for rolled-back rewrites: "pass 'x' at node 'y': ..."
};

struct NearMiss {
    std::string pass;
    Match match;
};

struct OptimizerOptions {
    std::vector<std::string> passes;  // empty: every pass that runs by default
    PassConfig config;
    ProofOptions proof;
    int maxRounds = 20;
    /// Rewrite only the matches anchored at these nodes (Match::nodes[0], the node a finding names first); empty:
    /// everywhere. Other sites stay as they are, also in later rounds; each rewrite is proven as usual, and
    /// upgrade_opset still runs first when a chosen site needs a newer opset.
    std::vector<std::string> onlyAt;
    std::function<void(const std::string&)> log;  // progress lines
};

struct OptimizeResult {
    Model model;
    size_t nodesBefore = 0;
    size_t nodesAfter = 0;
    std::map<std::string, int> opsBefore;
    std::map<std::string, int> opsAfter;
    std::vector<Application> applied;
    std::vector<Application> rolledBack;
    std::vector<NearMiss> nearMisses;  // in the final graph: what almost matched and why not
    Proof endToEnd;                    // original model vs optimized model
    int rounds = 0;
};

/// A registered pass as --list-passes and the GUI show it.
struct PassInfo {
    std::string name;
    std::string description;
    std::string guideSection;
    bool runsByDefault = true;
};
/// Every registered pass, sorted by name.
std::vector<PassInfo> listPasses();

/// Throws InvalidInput when the original model cannot run on the proof inputs (nothing could be proven).
OptimizeResult optimize(const Model& model, const OptimizerOptions& options);


}  // namespace npuwb::passes
