// Renders a ConversionPlan into the Python script that drives RKNN-Toolkit2, and its dataset.txt.
#include <nlohmann/json.hpp>
#include <sstream>

#include "npuwb/RknnConversion.h"

namespace npuwb::rknn {

namespace {

// JSON string and number literals are valid Python literals; None/True/False are spelled here.
std::string py(const std::string& s) { return nlohmann::json(s).dump(); }
std::string pyBool(bool b) { return b ? "True" : "False"; }
std::string pyStrings(const std::vector<std::string>& v) { return nlohmann::json(v).dump(); }

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The script's fixed part: the toolkit flow. Parameters come before it as module-level constants.
constexpr const char* kScriptBody = R"PY(

def step(number, what):
    print(f"[npuwb] step {number}/{STEPS}: {what}", flush=True)


def check(ret, what):
    # config() returns None in some toolkit versions; every other call returns 0 on success.
    if ret not in (0, None):
        print(f"[npuwb] error: {what} failed with {ret}", file=sys.stderr, flush=True)
        sys.exit(3)


def toolkit_major():
    try:
        from importlib.metadata import version
        return int(version("rknn-toolkit2").split(".")[0])
    except Exception:
        return 2


def quoted_yaml_key(name):
    return "'" + name.replace("'", "''") + "'"


def edit_quantization_cfg(path, layers):
    """Sets custom_quantize_layers (the layers kept in float16) in the .quantization.cfg written by step 1."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    block = ["custom_quantize_layers:"] + [f"    {quoted_yaml_key(name)}: float16" for name in layers]
    out, i, found = [], 0, False
    while i < len(lines):
        if lines[i].startswith("custom_quantize_layers:"):
            found = True
            out.extend(block)
            i += 1
            while i < len(lines) and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
                i += 1  # the old entries of the block
            continue
        out.append(lines[i])
        i += 1
    if not found:
        out = block + out
    temporary = path + ".npuwb-tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(temporary, path)


def main():
    from rknn.api import RKNN

    dtype = QUANTIZED_DTYPE
    if dtype == "w8a8" and toolkit_major() < 2:
        dtype = "asymmetric_quantized-8"  # RKNN-Toolkit2 1.x spells w8a8 this way
    temporary = OUTPUT + ".npuwb-tmp"
    rknn = RKNN(verbose=VERBOSE)
    try:
        step(1, f"config (target_platform {TARGET})")
        config = {"target_platform": TARGET}
        if MEAN_VALUES is not None:
            config.update(mean_values=MEAN_VALUES, std_values=STD_VALUES)
        if QUANTIZE:
            config.update(quantized_dtype=dtype, quantized_algorithm=QUANTIZED_ALGORITHM,
                          quantized_method=QUANTIZED_METHOD, quant_img_RGB2BGR=RGB2BGR)
        check(rknn.config(**config), "config")
        step(2, "load_onnx " + MODEL)
        if INPUT_SIZE_LIST is not None:
            check(rknn.load_onnx(model=MODEL, inputs=INPUTS, input_size_list=INPUT_SIZE_LIST), "load_onnx")
        else:
            check(rknn.load_onnx(model=MODEL), "load_onnx")
        if not QUANTIZE:
            step(3, "build (float16, no quantization)")
            check(rknn.build(do_quantization=False), "build")
        elif not HYBRID_LAYERS:
            step(3, f"build ({dtype}, {QUANTIZED_ALGORITHM}, data set {DATASET})")
            check(rknn.build(do_quantization=True, dataset=DATASET), "build")
        else:
            # Step 1 writes <model>.model, .data and .quantization.cfg into the working folder.
            os.makedirs(HYBRID_DIR, exist_ok=True)
            os.chdir(HYBRID_DIR)
            step(3, f"hybrid_quantization_step1 ({dtype}, {QUANTIZED_ALGORITHM}, data set {DATASET})")
            check(rknn.hybrid_quantization_step1(dataset=DATASET, proposal=False), "hybrid_quantization_step1")
            rknn.release()
            name = os.path.splitext(os.path.basename(MODEL))[0]
            cfg = os.path.join(HYBRID_DIR, name + ".quantization.cfg")
            if not os.path.isfile(cfg):
                print(f"[npuwb] error: hybrid_quantization_step1 wrote no {cfg}", file=sys.stderr, flush=True)
                sys.exit(3)
            step(4, f"custom_quantize_layers: {len(HYBRID_LAYERS)} layer(s) in float16 -> {cfg}")
            edit_quantization_cfg(cfg, list(HYBRID_LAYERS))
            rknn = RKNN(verbose=VERBOSE)
            step(5, "hybrid_quantization_step2")
            check(rknn.hybrid_quantization_step2(model_input=os.path.join(HYBRID_DIR, name + ".model"),
                                                 data_input=os.path.join(HYBRID_DIR, name + ".data"),
                                                 model_quantization_cfg=cfg), "hybrid_quantization_step2")
        step(STEPS, "export_rknn " + OUTPUT)
        check(rknn.export_rknn(temporary), "export_rknn")
        os.replace(temporary, OUTPUT)
        print("[npuwb] wrote " + OUTPUT, flush=True)
    except KeyboardInterrupt:
        print("[npuwb] cancelled", file=sys.stderr, flush=True)
        sys.exit(130)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
        rknn.release()


if __name__ == "__main__":
    main()
)PY";

}  // namespace

std::string renderDatasetList(const ConversionPlan& plan) {
    std::string out;
    for (const auto& sample : plan.datasetSamples) {
        for (size_t i = 0; i < sample.size(); ++i) out += (i ? " " : "") + sample[i];
        out += "\n";
    }
    return out;
}

std::string runCommand(const ConversionPlan& plan, const std::string& python) {
    return shellQuote(python) + " " + shellQuote(plan.scriptPath);
}

std::string toolkitProbeSource() {
    return "import rknn.api\n"
           "try:\n"
           "    from importlib.metadata import version\n"
           "    print(version('rknn-toolkit2'))\n"
           "except Exception:\n"
           "    print('version unknown')\n";
}

std::string renderScript(const ConversionPlan& plan) {
    const bool hybrid = plan.quantize && !plan.hybridLayers.empty();
    std::ostringstream s;
    s << "#!/usr/bin/env python3\n"
      << "# Written by NPU Workbench: converts an ONNX model to .rknn with Rockchip's RKNN-Toolkit2.\n"
      << "# Run it with a Python that imports rknn.api:  python3 " << plan.scriptPath << "\n"
      << "# Progress lines start with \"[npuwb] step N/M\"; Ctrl+C cancels; exit 0 = written, 3 = toolkit failure.\n";
    for (const auto& n : plan.notes) s << "# note: " << n << "\n";
    s << "import os\nimport sys\n\n"
      << "MODEL = " << py(plan.modelPath) << "\n"
      << "OUTPUT = " << py(plan.outputPath) << "\n"
      << "TARGET = " << py(plan.target) << "\n"
      << "QUANTIZE = " << pyBool(plan.quantize) << "  # workbench scheme " << plan.scheme << "\n"
      << "DATASET = " << (plan.quantize ? py(plan.datasetPath) : "None") << "\n"
      << "QUANTIZED_DTYPE = " << py(plan.quantizedDtype) << "\n"
      << "QUANTIZED_ALGORITHM = " << py(plan.quantizedAlgorithm) << "\n"
      << "QUANTIZED_METHOD = " << py(plan.quantizedMethod) << "\n"
      << "RGB2BGR = " << pyBool(plan.rgbToBgr) << "\n";
    std::vector<std::string> names;
    nlohmann::json sizes = nlohmann::json::array(), means = nlohmann::json::array(), stds = nlohmann::json::array();
    bool normalized = false;
    for (const auto& in : plan.inputs) {
        names.push_back(in.name);
        sizes.push_back(in.shape);
        means.push_back(in.mean);
        stds.push_back(in.std);
        normalized = normalized || !in.mean.empty();
    }
    s << "INPUTS = " << pyStrings(names) << "\n"
      << "INPUT_SIZE_LIST = " << (plan.fixInputSizes ? sizes.dump() : "None") << "\n"
      << "# mean/std on 0..255 pixels: the workbench's (pixel * scale - mean) / std with mean and std divided by scale\n"
      << "MEAN_VALUES = " << (normalized ? means.dump() : "None") << "\n"
      << "STD_VALUES = " << (normalized ? stds.dump() : "None") << "\n"
      << "# Layers kept in float16 (hybrid quantization), by output tensor as the .quantization.cfg names them\n"
      << "HYBRID_LAYERS = {\n";
    for (const auto& l : plan.hybridLayers)
        s << "    " << py(l.tensor) << ": " << py("node " + l.node + ": " + l.reason) << ",\n";
    s << "}\n"
      << "HYBRID_DIR = " << py(plan.outputPath + ".hybrid") << "\n"
      << "STEPS = " << (hybrid ? 6 : 4) << "\n"
      << "VERBOSE = os.environ.get(\"NPUWB_RKNN_VERBOSE\", \"\") not in (\"\", \"0\")\n"
      << kScriptBody;
    return s.str();
}

}  // namespace npuwb::rknn
