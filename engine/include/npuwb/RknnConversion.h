#pragma once
// Hand-off to RKNN-Toolkit2, Rockchip's Python converter (the project cannot ship it): a plan built from the
// workbench's state (model, chip, preprocessing, data set, quantization scheme and observer, the layers a
// quantization or accuracy run kept in float) and rendered into a ready Python script that calls the toolkit's
// documented API: RKNN.config(target_platform, mean_values, std_values, quantized_dtype, quantized_algorithm,
// quantized_method, quant_img_RGB2BGR), load_onnx(model, inputs, input_size_list), build(do_quantization, dataset)
// or hybrid_quantization_step1(dataset) + an edit of custom_quantize_layers in the .quantization.cfg it writes +
// hybrid_quantization_step2(model_input, data_input, model_quantization_cfg), export_rknn(path), release().
// The CLI (`convert-rknn`) and the GUI's Convert to RKNN dialog share it; both run the script with a Python that
// imports `rknn.api`, or show the exact command.
#include <optional>
#include <string>
#include <vector>

#include "npuwb/DatasetList.h"
#include "npuwb/Preprocessing.h"
#include "npuwb/Quantizer.h"
#include "npuwb/Report.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::rknn {

/// A layer the toolkit should keep in float16 (hybrid quantization): the toolkit names layers by their output
/// tensor in the .quantization.cfg, so `tensor` is what the script writes.
struct HybridLayer {
    std::string node;    // the workbench's node name
    std::string tensor;  // its first output tensor: the key in custom_quantize_layers
    std::string reason;  // "fp16 in the quantization" | "SNR 7.1 dB below 10 dB in the accuracy run"
};

/// What a quantization report (`quantize --json`) or an accuracy report (`accuracy --json`) says about how to
/// quantize: scheme, observer, the layers kept above the scheme's precision (a quantize report's precision map; an
/// accuracy report's fp16/int16 layers and those below its SNR threshold), and the data set and preprocessing.
struct QuantizationFacts {
    std::string source;  // the report file
    std::optional<quant::Scheme> scheme;
    std::optional<quant::ObserverKind> observer;
    std::vector<HybridLayer> keptLayers;  // tensor filled when the report names the value (accuracy reports)
    std::string datasetPath;              // as recorded (quantize reports), else empty
    std::string preprocessPath;
    imageio::PreprocessingSet preprocessing;  // in memory (a run in this session); used when the options have none
};
/// Reads either report kind; throws InvalidInput naming the file for anything else.
QuantizationFacts loadQuantizationFacts(const std::string& path);
/// The facts of a quantization run in this session (the GUI keeps the last one): scheme and observer from its
/// options, the layers its precisions keep above the scheme's default, and the accuracy section's low-SNR layers.
QuantizationFacts quantizationFactsFromRun(const quant::QuantizeOptions& options,
                                           const std::map<std::string, quant::Precision>& precisions,
                                           const AccuracySection* accuracy, const std::string& datasetPath,
                                           const imageio::PreprocessingSet& preprocessing);

struct ConversionOptions {
    std::string modelPath;   // the float ONNX model
    std::string outputPath;  // OUT.rknn
    std::string target;      // chip profile name ("rk3588"), checked against availableChipProfiles()
    std::optional<imageio::DatasetList> dataset;  // none: no quantization (float16 model)
    imageio::PreprocessingSet preprocessing;      // mean/std/colour order per input ("*" for all)
    std::map<std::string, Shape> inputShapes;     // fixed sizes for symbolic input dims (like --input-shape)
    std::optional<quant::Scheme> scheme;          // default: the report's, else w8a8
    std::optional<quant::ObserverKind> observer;  // default: the report's, else minmax
    bool perChannel = true;
    std::optional<QuantizationFacts> quantization;
};

/// One model input as load_onnx and config see it.
struct ConversionInput {
    std::string name;
    Shape shape;              // concrete: input_size_list
    std::vector<double> mean;  // per channel, on 0..255 pixels (the toolkit's convention); empty: none
    std::vector<double> std;
};

struct ConversionPlan {
    std::string modelPath, outputPath;  // absolute
    std::string scriptPath;             // OUT.convert.py
    std::string datasetPath;            // OUT.dataset.txt (the toolkit's format), empty without quantization
    std::string target;                 // lower case, as target_platform takes it
    bool quantize = false;
    std::string scheme;                 // the workbench's name ("w8a8")
    std::string quantizedDtype;         // toolkit >= 2.0 name ("w8a8"); the script falls back for 1.x
    std::string quantizedAlgorithm;     // normal | kl_divergence | mmse
    std::string quantizedMethod;        // channel | layer
    bool rgbToBgr = false;              // quant_img_RGB2BGR
    bool fixInputSizes = false;         // pass inputs/input_size_list (a symbolic dim was fixed)
    std::vector<ConversionInput> inputs;
    std::vector<std::vector<std::string>> datasetSamples;  // absolute paths, one per input
    std::vector<HybridLayer> hybridLayers;
    std::vector<std::string> notes;     // what the toolkit will do differently, said plainly
};

/// The toolkit's target_platform values this workbench knows: the chip profiles' names.
std::vector<std::string> targetPlatforms();
/// The toolkit's names for a scheme and an observer; throw InvalidInput for what the toolkit cannot do
/// (percentile observer).
std::string quantizedDtypeFor(quant::Scheme scheme);
std::string quantizedAlgorithmFor(quant::ObserverKind observer);

/// Builds the plan; throws InvalidInput naming the chip (with the list), the input or the report at fault.
ConversionPlan planConversion(const Model& model, const ConversionOptions& options);
/// The Python script (standalone: only `rknn.api` and the standard library). It prints "[npuwb] step N/M: ..."
/// progress lines, writes OUT through a temporary name and a rename, and exits non-zero on a toolkit failure.
std::string renderScript(const ConversionPlan& plan);
/// The data set list in the toolkit's dataset.txt format (one sample per line, inputs separated by spaces).
std::string renderDatasetList(const ConversionPlan& plan);
/// Writes the script and the data set list atomically.
void writeConversionFiles(const ConversionPlan& plan);
/// The command that runs the script: "PYTHON 'OUT.convert.py'" (shell-quoted).
std::string runCommand(const ConversionPlan& plan, const std::string& python);
/// Python source that exits 0 when `rknn.api` imports (and prints the toolkit version).
std::string toolkitProbeSource();

}  // namespace npuwb::rknn
