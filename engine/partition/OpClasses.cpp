// The op classes of the affinity table in "NPU/GPU operator partitioning with pipeline parallelism on Snapdragon X2
// Elite" (2.1: GEMM, convolution, elementwise, activation, Softmax, Reduce, conditional branches, data
// reorganisation) and the ONNX ops in each. A device profile may reclassify an op ("opClasses").
#include <map>
#include <string>
#include <vector>

#include "npuwb/DeviceProfile.h"

namespace npuwb {

namespace {

const std::map<std::string, std::string>& builtInClasses() {
    static const std::map<std::string, std::string> table = [] {
        std::map<std::string, std::string> t;
        auto add = [&t](const char* cls, std::initializer_list<const char*> ops) {
            for (const char* op : ops) t[op] = cls;
        };
        add("gemm", {"MatMul", "Gemm", "MatMulInteger", "QLinearMatMul", "Einsum"});
        add("conv", {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv"});
        add("activation", {"Relu", "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Gelu", "Elu",
                           "Selu", "Celu", "Softplus", "Softsign", "Mish", "Clip", "ThresholdedRelu", "Erf", "Shrink"});
        add("softmax", {"Softmax", "LogSoftmax", "Hardmax"});
        add("reduce", {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                       "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin", "GlobalAveragePool",
                       "GlobalMaxPool", "GlobalLpPool", "AveragePool", "MaxPool", "LpPool", "LayerNormalization",
                       "InstanceNormalization", "GroupNormalization", "LRN", "TopK", "CumSum"});
        add("control", {"If", "Loop", "Scan", "NonMaxSuppression", "NonZero", "Compress", "Unique"});
        add("reorganize", {"Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND",
                           "Scatter", "ScatterElements", "ScatterND", "Flatten", "Squeeze", "Unsqueeze", "Expand",
                           "Tile", "Pad", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Shape", "Size",
                           "Identity", "ConstantOfShape", "Range", "ReverseSequence"});
        return t;
    }();
    return table;
}

}  // namespace

const std::vector<std::string>& opClassNames() {
    static const std::vector<std::string> names = {"gemm",   "conv",   "elementwise", "activation",
                                                   "softmax", "reduce", "control",     "reorganize"};
    return names;
}

std::string opClassOf(const std::string& opType, const DeviceProfile& device) {
    if (auto it = device.opClasses.find(opType); it != device.opClasses.end()) return it->second;
    const auto& table = builtInClasses();
    if (auto it = table.find(opType); it != table.end()) return it->second;
    return "elementwise";  // Add, Mul, BatchNormalization, Where, Cast, QuantizeLinear, ...
}

}  // namespace npuwb
