#pragma once
// The one report schema shared by engine, CLI, agent and GUI (resources/schema/report.schema.json documents it).
// Per-layer field names follow RKNN's eval_perf table where they mean the same thing:
//   ID OpType DataType Target InputShape OutputShape Cycles(DDR/NPU/Total) Time(us) MacUsage(%) RW(KB) FullName.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace npuwb {

inline constexpr int kReportSchemaVersion = 1;

struct TensorDesc {
    std::string name;
    std::string dataType;        // "float32", ...
    std::vector<std::string> shape;  // dims as text so symbolic dims survive ("batch", "3")
};

struct ModelSummary {
    std::string path;
    std::string name;
    std::string producer;
    int64_t irVersion = 0;
    int64_t opset = 0;
    std::vector<TensorDesc> inputs;
    std::vector<TensorDesc> outputs;
    int64_t nodeCount = 0;
    int64_t parameterCount = 0;  // elements of all initializers
    int64_t weightBytes = 0;
    int64_t macs = 0;
    std::map<std::string, int64_t> opHistogram;
    /// Nodes that do multiply-accumulates whose shapes are not known, so `macs` leaves them out (by name, else
    /// their first output).
    std::vector<std::string> uncountedNodes;
    /// Where the shapes behind `macs` came from: "model" (ONNX inference on import), "inference" (again, for the
    /// concrete input shapes) or "reference run" (npuwb/ShapeLearning.h).
    std::string shapesSource = "model";
};

/// Whether `macs` is 0 only because an input has a dim that is not a number ([?,3,?,?]): MACs are counted from
/// shapes, known once the shapes are fixed (a run, or `profile --input-shape`).
bool macsUnknown(const ModelSummary& summary);

struct LayerRow {
    /// The layer's ID: its node's position in the model as opened (npuwb/LayerIds.h), the same before and after
    /// a run; nodes the model did not have (made by a rewrite) are numbered after the model's. Vendor logs: theirs.
    int64_t id = 0;
    std::string fullName;        // node name (RKNN: FullName)
    std::string opType;
    std::string dataType;        // of the first output
    std::string target = "CPU";  // CPU / NPU / GPU
    std::vector<std::vector<int64_t>> inputShapes;  // node inputs; estimates list the feature maps first
    std::vector<std::vector<int64_t>> outputShapes;
    int64_t macs = 0;
    int64_t bytesRead = 0;
    int64_t bytesWritten = 0;
    double timeUs = 0.0;     // median over runs
    double timeUsMin = 0.0;
    double timePercent = 0.0;
    std::optional<int64_t> cyclesDdr, cyclesNpu, cyclesTotal;  // estimates / board logs only
    std::optional<double> macUsagePercent;
    /// Nodes fused into this layer after the anchor (fullName), in graph order; empty for a single node.
    std::vector<std::string> fusedNodes;
    /// A node whose time is its fused layer's (profiles): that layer's fullName. The row keeps its ID and shapes,
    /// its time is 0 and counted once, on the layer's row. Empty for a node with a time of its own.
    std::string fusedInto;
    double rwKB() const { return double(bytesRead + bytesWritten) / 1024.0; }
};

struct RemovedLayer {
    int64_t id = 0;         // the model's layer ID
    std::string fullName;
    std::string opType;
    std::string removedBy;  // the rewrite: "constant_folding", "remove_identity", "fold_pad", "merge_chains"
};

struct TensorLifetime {
    std::string name;
    int64_t bytes = 0;
    int64_t offset = 0;     // planned arena offset
    int64_t firstStep = 0;  // producing step
    int64_t lastStep = 0;   // last consuming step
};

struct MemorySummary {
    int64_t weightBytes = 0;
    int64_t ioBytes = 0;            // graph inputs + outputs
    int64_t arenaBytes = 0;         // planned arena for intermediate activations
    int64_t lowerBoundBytes = 0;    // largest sum of live intermediates at any step
    int64_t peakRssBytes = 0;       // process peak resident set size, 0 if unknown
    std::vector<TensorLifetime> tensors;
};

/// Board clocks when a report was made (agent runs): fixed frequencies make runs comparable (RKNN SDK user guide
/// V2.5.0, 5.2.1.1).
struct BoardClocks {
    std::vector<int64_t> cpuFreqKHz;  // per online core, 0 when unknown
    std::optional<int64_t> npuFreqHz, ddrFreqHz;
    std::map<std::string, std::string> governors;  // cpufreq policy / devfreq device -> governor
};

struct Environment {
    std::string host;
    std::string os;
    std::string cpu;
    int64_t cores = 0;
    int64_t threads = 1;
    std::string backend = "reference";
    std::string device = "local";
    // Optional, filled by the board agent (absent from the JSON when empty):
    std::string arch;    // uname -m
    std::string kernel;  // uname -r
    std::optional<std::string> npuDriver;  // RKNPU driver version
    std::optional<BoardClocks> clocks;
    /// The machine's 1-minute load average when the run started (measured runs; absent when unknown).
    std::optional<double> loadAverage;
};

/// Where the time of one inference goes when deployed (RKNN SDK user guide V2.5.0, 5.2.1.2); filled by the board
/// agent.
struct TimeBreakdown {
    double preProcessUs = 0.0;   // making the inputs
    double inputCopyUs = 0.0;    // copying them into the runtime's tensors
    double inferenceUs = 0.0;    // the model run (median)
    double outputCopyUs = 0.0;   // copying the outputs out
    std::optional<double> postProcessUs;  // null when the job has no post-processing
};

struct RunStats {
    int64_t runs = 0;
    int64_t warmup = 0;
    double medianUs = 0.0;
    double minUs = 0.0;
    double meanUs = 0.0;
    double maxUs = 0.0;
    std::vector<double> samplesUs;
    /// Time to get ready to run (0 when not measured): model load when the caller timed it, Session creation and,
    /// with a backend, the first run (reference learning run + backend compile).
    double sessionCreateUs = 0.0;
    std::optional<TimeBreakdown> breakdown;
    /// Estimates only: what minUs..maxUs mean (the cost model's held-out error); empty when there is no range.
    std::string estimateBasis;
};

struct Suggestion {
    std::string rule;
    std::string hazard;
    std::string mitigation;
    std::vector<std::string> nodes;
    double estimatedGainUs = 0.0;
    std::string pass;
};

/// A node a backend left to the reference kernels, and why.
struct FallbackRow {
    std::string node;
    std::string opType;
    std::string reason;
};

/// Quantization accuracy of one layer output (RKNN error_analysis.txt, richer): float vs quantized.
struct AccuracyLayer {
    int64_t id = 0;            // the float model's layer ID (npuwb/LayerIds.h)
    std::string fullName;      // node name
    std::string opType;
    std::string value;         // the output value compared
    std::string precision;     // "int8" | "int16" | "int4" | "fp16" | "float" (how the layer runs quantized)
    double entireCosine = 1.0;  // quantized model all the way to this layer
    double entireEuclidean = 0.0;
    std::optional<double> singleCosine, singleEuclidean;  // only this layer quantized, float inputs
    double floatMin = 0.0, floatMax = 0.0;  // observed float range of the value
    std::optional<double> scale;            // of the QuantizeLinear applied to the value, when quantized
    std::optional<int64_t> zeroPoint;
    double saturationRate = 0.0;            // fraction of float elements outside the quantized range
    std::optional<double> entireSnrDb, singleSnrDb;  // dB over all samples
    bool lowSnr = false;  // single SNR (entire when there is no single run) below the section's threshold
};

/// One graph output over the samples: verdicts hold for the worst sample; the means stand beside.
struct AccuracyOutput {
    std::string name;
    double cosine = 1.0;     // mean over samples
    double euclidean = 0.0;  // mean over samples
    double worstCosine = 1.0;
    int64_t worstCosineSample = 0;  // index in the data set
    double snrDb = 0.0;  // 10 log10(sum x^2 / sum (x - q)^2) over all samples (capped at kSnrCapDb when q == x)
    double worstSnrDb = 0.0;
    int64_t worstSnrSample = 0;
    int64_t samples = 0;
};

struct AccuracySection {
    std::string floatModel;  // paths
    std::string quantModel;
    std::string scheme;      // from the quantized model's metadata, when present
    int64_t samples = 0;
    double snrThresholdDb = 10.0;  // layers below it are flagged (AccuracyLayer::lowSnr)
    std::vector<AccuracyLayer> layers;
    std::vector<AccuracyOutput> outputs;
};

/// SNR values are capped here (an exact copy has no noise).
inline constexpr double kSnrCapDb = 200.0;

/// One bar of a timeline: a stage, kernel or transfer that occupied a lane for one frame. One format for
/// pipelined schedules (lane = unit), per-kernel timing (lane = thread) and concurrent contexts (lane = context).
struct TraceEvent {
    std::string lane;            // unit, worker thread, link or context
    std::string name;            // stage, kernel or transfer name
    std::string kind = "stage";  // stage | kernel | transfer
    int64_t frame = 0;           // frame (or run) index
    double startUs = 0.0;        // from the trace's origin
    double endUs = 0.0;
    /// When its inputs were ready: the event waited startUs - readyUs for its lane (absent when not tracked).
    std::optional<double> readyUs;
};

struct Trace {
    std::string name;                // "pipelined", "serial", "single", "kernels"
    std::string source;              // "predicted" | "measured"
    std::vector<std::string> lanes;  // display order of the lanes (rows of a Gantt chart)
    std::vector<TraceEvent> events;
};

/// A compute unit of a partition's device (NPU, GPU, CPU cluster, or a local worker pool standing in for one).
struct PartitionUnit {
    std::string name;
    std::string kind;         // npu | gpu | cpu
    std::string description;
    std::string costSource;   // roofline | chip | calibrated: where its per-op costs come from
    double loadUs = 0.0;      // busy time per frame under the plan (predicted)
    double stageOverheadUs = 0.0;  // extra time of each stage after the first on this unit
};

/// Where one node runs and why.
struct PartitionAssignment {
    std::string node;
    std::string opType;
    std::string opClass;  // the device model's op class (gemm, conv, elementwise, ...)
    std::string unit;
    std::string step;     // the planning step that decided it: affinity | locality | balance | only
    std::string reason;
    std::map<std::string, double> costUs;  // predicted time on each unit that can run it
};

/// A maximal run of consecutive nodes (in execution order) on one unit: what a worker executes as one piece.
struct PartitionStage {
    int64_t id = 0;
    std::string name;
    std::string unit;
    std::vector<std::string> nodes;
    std::vector<std::string> inputs;   // values it reads that earlier stages (or the caller) made
    std::vector<std::string> outputs;  // values later stages (or the caller) read
    double predictedUs = 0.0;          // time per frame the schedules assume (sum of node costs, or calibrated)
};

/// A value crossing from one unit to another.
struct PartitionCut {
    std::string tensor;
    int64_t bytes = 0;
    std::string fromUnit, toUnit;
    int64_t fromStage = 0, toStage = 0;
    double transferUs = 0.0;  // bytes at the device's transfer rate (the per-hand-off sync is per stage entry)
};

struct ScheduleFigures {
    double makespanUs = 0.0;       // first frame in to last frame out
    double framesPerSecond = 0.0;  // frames / makespan
    double latencyUs = 0.0;        // median frame latency (admitted to finished)
};

/// One schedule of the partition: single unit, serial heterogeneous or pipelined.
struct ScheduleResult {
    std::string schedule;  // single | serial | pipelined
    std::vector<std::string> units;
    int64_t frames = 0;
    ScheduleFigures predicted;
    std::optional<ScheduleFigures> measured;  // when it was executed
};

struct PartitionSection {
    std::string device;         // device profile name
    std::string deviceProfile;  // the file it came from
    std::string strategy;       // affinity | locality | balanced
    std::vector<PartitionUnit> units;
    std::vector<PartitionAssignment> assignments;
    std::vector<PartitionStage> stages;
    std::vector<PartitionCut> cuts;
    double syncUs = 0.0;  // per hand-off between units
    std::vector<ScheduleResult> schedules;
    std::vector<std::string> notes;
};

/// One context of a whole-model runtime run. Copies made with rknn_dup_context share the first context's weights
/// and own only their internal memory (RKNN SDK user guide V2.5.0, 4.1.4).
struct RuntimeContext {
    int64_t index = 0;
    std::string coreMask = "auto";  // the CLI's --core-mask word (npuwb/sdk/ModelRuntime.h coreMaskName)
    int64_t internalBytes = 0;      // the runtime's memory query for this context (inputs/outputs excluded)
    int64_t slicesPerPass = 0;      // batch slices it ran in each pass
};

/// How a whole-model runtime (npuwb/sdk/ModelRuntime.h, e.g. rknpu on a .rknn) ran the model: what each figure of
/// the report measures, the contexts and their memory, and what the runtime or the chip lacks. Absent otherwise.
struct RuntimeSection {
    std::string runtime;  // plugin name ("rknpu")
    std::string library;  // the vendor library loaded
    std::string apiVersion, driverVersion;
    std::string timing;       // what run.* measures (and under which settings)
    std::string layerTiming;  // where layers[] come from; empty when there are no rows
    int64_t batch = 1;        // samples per pass
    std::vector<RuntimeContext> contexts;
    int64_t weightBytes = 0;  // counted once: every context shares them
    int64_t totalBytes = 0;   // weightBytes + every context's internalBytes
    double samplesPerSecond = 0.0;          // batch x timed passes / their summed wall time
    std::optional<double> perfRunMedianUs;  // the runtime's own time per slice run (RKNN_QUERY_PERF_RUN), median
    std::vector<std::string> notes;         // what the runtime or chip lacks, said plainly
};

struct Report {
    std::string kind = "profile";  // profile | estimate | info | accuracy | partition
    std::string tool = "npuwb";
    std::string toolVersion;
    std::string createdAt;  // ISO 8601 UTC
    ModelSummary model;
    Environment environment;
    RunStats run;
    std::vector<LayerRow> layers;
    MemorySummary memory;
    std::vector<Suggestion> suggestions;
    std::vector<FallbackRow> fallbacks;  // empty for the reference executor
    /// Nodes of the model that did not run as a step of their own: an exact rewrite before execution removed
    /// them (a constant computed once, an identity bypassed, a Pad folded into the Conv after it). They keep the
    /// model's layer IDs (npuwb/LayerIds.h), so a view can list them as removed instead of losing them.
    std::vector<RemovedLayer> removedLayers;
    std::optional<AccuracySection> accuracy;  // quantization analysis (kind "accuracy")
    std::optional<PartitionSection> partition;  // heterogeneous partition and its schedules (kind "partition")
    std::vector<Trace> traces;                  // timelines (absent from the JSON when empty)
    std::optional<RuntimeSection> runtime;      // whole-model runtime runs (absent otherwise)
};

nlohmann::json toJson(const Report& report);
Report reportFromJson(const nlohmann::json& j);  // throws InvalidInput naming the missing/invalid field
std::string reportToString(const Report& report);  // pretty-printed JSON
Report loadReport(const std::string& path);
void saveReport(const Report& report, const std::string& path);  // atomic
/// "2026-11-29T12:00:00Z"
std::string utcTimestamp();
/// An empty report of `kind` stamped with this tool's version and the time now.
Report newReport(const std::string& kind);
/// `run`'s samples and their median, minimum, mean and maximum (the count of timed runs too).
void setRunSamples(RunStats& run, std::vector<double> samplesUs);

/// One batch slice a context ran (a whole-model runtime's rknn_dup_context copies, or CPU contexts).
struct ContextSliceRun {
    int64_t context = 0, slice = 0, pass = 0;
    double startUs = 0.0, endUs = 0.0;
};
/// The "contexts" timeline of those runs: one lane per context, one bar per slice run. Inline: runtime plugins
/// use it through the SDK.
inline Trace contextsTrace(size_t contexts, const std::vector<ContextSliceRun>& runs) {
    Trace trace;
    trace.name = "contexts";
    trace.source = "measured";
    for (size_t c = 0; c < contexts; ++c) trace.lanes.push_back("context " + std::to_string(c));
    for (const ContextSliceRun& r : runs) {
        TraceEvent e;
        e.lane = "context " + std::to_string(r.context);
        e.name = "slice " + std::to_string(r.slice);
        e.frame = r.pass;
        e.startUs = r.startUs;
        e.endUs = r.endUs;
        trace.events.push_back(std::move(e));
    }
    return trace;
}

}  // namespace npuwb
