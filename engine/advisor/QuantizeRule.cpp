// quantize (RKNN SDK user guide V2.5.0, 5.2.3): int8 runs at several times the NPU's fp16 MAC rate and moves half the
// bytes. A model advised at fp16, or a float model without quantization nodes (which the int8 estimate silently assumes
// gets quantized by the converter), gets one finding whose gain is the fp16 estimate minus the int8 estimate.
#include <set>

#include "advisor/RuleSupport.h"
#include "npuwb/CostModel.h"

namespace npuwb::advisor {
namespace {

bool hasQuantizationNodes(const Graph& g) {
    static const std::set<std::string> ops = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
                                              "QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger"};
    for (const Node& n : g.nodes)
        if ((n.domain.empty() || n.domain == "ai.onnx") && ops.count(n.opType)) return true;
    return false;
}

double estimateUs(const AdviceContext& c, const std::string& dtype) {
    EstimateOptions o;
    o.dtype = dtype;
    o.cores = c.options.cores;
    o.symbolicDimValue = c.options.symbolicDimValue;
    return estimateModel(c.model, c.chip, o).run.medianUs;
}

class QuantizeRule final : public Rule {
public:
    std::string name() const override { return "quantize"; }
    std::string description() const override {
        return "Float model on the NPU (fp16, or no Q/DQ nodes): int8 quantization is the largest single speed-up";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        const bool fp16 = c.options.dtype == "fp16";
        const bool quantized = hasQuantizationNodes(c.model.graph);
        if (!fp16 && quantized) return {};
        const bool chipHasFp16 = c.chip.dtypes.count("fp16") > 0;
        double int8Us = fp16 ? estimateUs(c, "int8") : totalUs(c);
        double fp16Us = fp16 ? totalUs(c) : chipHasFp16 ? estimateUs(c, "fp16") : 0.0;
        Finding f;
        for (const Node& n : c.model.graph.nodes)
            if (n.opType == "Conv" || n.opType == "Gemm" || n.opType == "MatMul") f.nodes.push_back(nodeId(n));
        f.evidence = {evidence("int8 estimate", int8Us, "us")};
        if (fp16Us > 0) f.evidence.push_back(evidence("fp16 estimate", fp16Us, "us"));
        const double fp16Penalty = fp16Us > int8Us ? fp16Us - int8Us : 0.0;
        // The gain is what quantizing changes in this estimate: at int8 it already assumes the converter quantizes,
        // so nothing; the fp16 penalty stays in the evidence and the severity.
        f.estimatedGainUs = fp16 ? fp16Penalty : 0.0;
        f.guideSection = "5.2.3";
        if (fp16) {
            f.hazard = "The model is advised at fp16 on " + c.chip.name + ": the NPU's int8 rate is " +
                       std::to_string(c.chip.rates("int8").macsPerCycle) + " MACs/cycle vs " +
                       std::to_string(c.chip.rates("fp16").macsPerCycle) + " at fp16";
            f.severity = "high";
        } else if (!chipHasFp16) {
            f.hazard = "The model is float (no Q/DQ nodes) and " + c.chip.name + "'s NPU runs int8 only: it must be "
                       "quantized to run there at all";
            f.severity = "high";
        } else {
            f.hazard = "The model is float (no Q/DQ nodes): the int8 estimate assumes the converter quantizes it; "
                       "unquantized it runs at fp16, " + num(fp16Penalty) + " us slower";
            f.severity = maxSeverity("medium", severityForGain(fp16Penalty, fp16Us));
        }
        f.mitigation = "Quantize to int8 with a representative calibration set (RKNN-Toolkit2 do_quantization; "
                       "hybrid quantization for the layers that lose accuracy), then check the accuracy.";
        return {f};
    }
};

NPUWB_RULE(QuantizeRule);

}  // namespace
}  // namespace npuwb::advisor
