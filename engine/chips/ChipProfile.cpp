#include "npuwb/ChipProfile.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "chips/MatmulProfile.h"
#include "chips/ProfileFields.h"
#include "chips/ProfileFolders.h"
#include "util/InstallLayout.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "util/JsonText.h"

namespace npuwb {

namespace fs = std::filesystem;

namespace {

NpuDTypeRates parseRates(const ProfileFields& f) {
    NpuDTypeRates r;
    r.atomicInputChannels = f.positiveInteger("atomicInputChannels");
    r.atomicOutputChannels = f.positiveInteger("atomicOutputChannels");
    r.macsPerCycle = f.positiveInteger("macsPerCycle");
    if (r.macsPerCycle != r.atomicInputChannels * r.atomicOutputChannels)
        f.fail("macsPerCycle", "must equal atomicInputChannels x atomicOutputChannels (" +
                                   std::to_string(r.atomicInputChannels * r.atomicOutputChannels) + ")");
    r.c2 = f.positiveInteger("c2");
    r.convOutputChannelAlign = f.positiveInteger("convOutputChannelAlign");
    r.otherOutputChannelAlign = f.positiveInteger("otherOutputChannelAlign");
    r.bytes = f.positiveInteger("bytes");
    return r;
}

NpuOpConditions parseConditions(const ProfileFields& f) {
    NpuOpConditions c;
    if (f.has("perms")) {
        ProfileFields perms = f.object("perms");
        for (const auto& [perm, byDtype] : perms.json().items()) {
            ProfileFields rules = perms.object(perm);
            for (const auto& [dtype, exprs] : byDtype.items()) c.perms[perm][dtype] = rules.strings(dtype);
        }
    }
    if (f.has("constants")) {
        ProfileFields constants = f.object("constants");
        for (const auto& [name, value] : constants.json().items()) c.constants[name] = constants.integer(name);
    }
    auto numbers = [&](const std::string& key) {
        std::vector<double> out;
        const auto& j = f.raw(key);
        if (!j.is_array()) f.fail(key, "expected an array of numbers");
        for (const auto& v : j) {
            if (!v.is_number()) f.fail(key, "expected an array of numbers");
            out.push_back(v.get<double>());
        }
        return out;
    };
    if (f.has("axes"))
        for (double a : numbers("axes")) c.axes.push_back(static_cast<int64_t>(a));
    if (f.has("exponents")) c.exponents = numbers("exponents");
    if (f.has("integerScale")) {
        std::vector<double> range = numbers("integerScale");
        if (range.size() != 2 || range[0] > range[1]) f.fail("integerScale", "expected [min, max]");
        c.integerScale = std::array<int64_t, 2>{static_cast<int64_t>(range[0]), static_cast<int64_t>(range[1])};
    }
    return c;
}

NpuOp parseNpuOp(const std::string& name, const ProfileFields& f) {
    NpuOp op;
    op.name = name;
    op.dtypes = f.strings("dtypes");
    op.multiCore = f.boolean("multiCore");
    ProfileFields limits = f.object("limits");
    for (const auto& [key, value] : limits.json().items()) {
        if (!value.is_array() || value.size() != 2 || !value[0].is_number_integer() || !value[1].is_number_integer())
            limits.fail(key, "expected [min, max] integers");
        op.limits.push_back({key, value[0].get<int64_t>(), value[1].get<int64_t>()});
    }
    if (f.has("conditions")) op.conditions = parseConditions(f.object("conditions"));
    return op;
}

void parseOps(ChipProfile& p, const ProfileFields& ops) {
    ProfileFields npuOps = ops.object("npuOps");
    for (const auto& [name, value] : npuOps.json().items()) p.npuOps[name] = parseNpuOp(name, npuOps.object(name));
    ProfileFields onnx = ops.object("onnxToNpu");
    for (const auto& [onnxOp, value] : onnx.json().items()) {
        p.onnxToNpu[onnxOp] = onnx.strings(onnxOp);
        for (const auto& target : p.onnxToNpu[onnxOp])
            if (!p.npuOps.count(target)) onnx.fail(onnxOp, "names NPU op '" + target + "' that ops.npuOps lacks");
    }
    if (ops.has("lowering")) {
        ProfileFields lowering = ops.object("lowering");
        for (const auto& [onnxOp, value] : lowering.json().items()) p.lowering[onnxOp] = lowering.string(onnxOp);
    }
    ProfileFields fused = ops.object("fusedOps");
    for (const auto& [name, value] : fused.json().items()) {
        ProfileFields f = fused.object(name);
        p.fusedOps.push_back({name, f.string("base"), f.strings("then")});
    }
    if (ops.has("cpuOps")) p.cpuOps = ops.strings("cpuOps");
}

void parseCoefficients(CostCoefficients& c, const ProfileFields& f) {
    if (f.has("computeEfficiency")) c.computeEfficiency = f.positiveNumber("computeEfficiency");
    if (f.has("ddrEfficiency")) c.ddrEfficiency = f.positiveNumber("ddrEfficiency");
    if (f.has("layerOverheadCycles")) c.layerOverheadCycles = f.number("layerOverheadCycles");
    if (f.has("minStripePixels")) c.minStripePixels = f.positiveInteger("minStripePixels");
    if (f.has("lutElementsPerLane")) c.lutElementsPerLane = f.positiveNumber("lutElementsPerLane");
    if (f.has("outputBlockCycles")) c.outputBlockCycles = f.positiveNumber("outputBlockCycles");
    if (f.has("cpuConvertMacsPerElement")) c.cpuConvertMacsPerElement = f.number("cpuConvertMacsPerElement");
    if (f.has("cpuSwitchOverheads")) c.cpuSwitchOverheads = f.number("cpuSwitchOverheads");
    if (c.computeEfficiency > 1) f.fail("computeEfficiency", "must be at most 1");
    if (c.ddrEfficiency > 1) f.fail("ddrEfficiency", "must be at most 1");
    if (c.cpuConvertMacsPerElement < 0) f.fail("cpuConvertMacsPerElement", "must not be negative");
    if (c.cpuSwitchOverheads < 0) f.fail("cpuSwitchOverheads", "must not be negative");
}

}  // namespace

const NpuDTypeRates& ChipProfile::rates(const std::string& dtype) const {
    auto it = dtypes.find(dtype);
    if (it == dtypes.end())
        failUnsupported("chip " + name + " (" + sourcePath + ") has no NPU rates for dtype '" + dtype + "'");
    return it->second;
}

const NpuOp* ChipProfile::npuOp(const std::string& opName) const {
    auto it = npuOps.find(opName);
    return it == npuOps.end() ? nullptr : &it->second;
}

ChipProfile chipProfileFromJson(const nlohmann::json& j, const std::string& label) {
    ProfileFields root(j, label);
    if (!j.is_object()) root.fail("", "the document must be a JSON object");
    ChipProfile p;
    p.sourcePath = label;
    p.name = root.string("name");
    p.opSupportPlatform = root.has("opSupportPlatform") ? root.string("opSupportPlatform") : p.name;
    ProfileFields npu = root.object("npu");
    p.cores = npu.positiveInteger("cores");
    p.clockMHz = npu.positiveNumber("clockMHz");
    if (npu.has("peakTopsInt8")) p.peakTopsInt8 = npu.number("peakTopsInt8");
    p.bufferBytesPerCore = npu.positiveInteger("bufferKBPerCore") * 1024;
    if (npu.has("sramKB")) p.sramBytes = npu.integer("sramKB") * 1024;
    p.hwAlign = npu.positiveInteger("hwAlign");
    if (npu.has("zeroCopyInputWidthAlign")) p.zeroCopyInputWidthAlign = npu.integer("zeroCopyInputWidthAlign");
    ProfileFields dtypes = npu.object("dtypes");
    for (const auto& [dt, value] : dtypes.json().items()) p.dtypes[dt] = parseRates(dtypes.object(dt));
    if (!p.dtypes.count("int8")) dtypes.fail("int8", "missing (every chip runs int8)");
    p.ddrBandwidthGBps = root.object("memory").positiveNumber("ddrBandwidthGBps");
    ProfileFields cpu = root.object("cpu");
    p.cpu.description = cpu.string("description");
    p.cpu.gmacsPerSecond = cpu.positiveNumber("gmacsPerSecond");
    p.cpu.gbytesPerSecond = cpu.positiveNumber("gbytesPerSecond");
    p.cpu.opOverheadUs = cpu.number("opOverheadUs");
    parseOps(p, root.object("ops"));
    if (root.has("matmul")) p.matmul = parseMatmulProfile(root.object("matmul"));
    if (root.has("notes")) p.notes = root.strings("notes");
    if (root.has("runtime")) {
        ProfileFields runtime = root.object("runtime");
        if (runtime.has("library")) p.runtime.library = runtime.string("library");
        if (runtime.has("perfDetail")) p.runtime.perfDetail = runtime.boolean("perfDetail");
        if (runtime.has("dupContext")) p.runtime.dupContext = runtime.boolean("dupContext");
    }
    if (root.has("costModel")) {
        ProfileFields costModel = root.object("costModel");
        parseCoefficients(p.coefficients, costModel);
        if (costModel.has("validation")) {
            ProfileFields v = costModel.object("validation");
            p.validation.method = v.string("method");
            p.validation.points = static_cast<int>(v.positiveInteger("points"));
            p.validation.medianAbsError = v.number("medianAbsError");
            p.validation.maxAbsError = v.number("maxAbsError");
            p.validation.fastRatioP10 = v.positiveNumber("fastRatioP10");
            p.validation.slowRatioP90 = v.positiveNumber("slowRatioP90");
            if (p.validation.fastRatioP10 > p.validation.slowRatioP90)
                v.fail("fastRatioP10", "must not exceed slowRatioP90");
        }
    }
    return p;
}

ChipProfile loadChipProfile(const std::string& path) {
    std::string text;
    try {
        text = readFile(path, 16 << 20);  // a chip profile is a few KB
    } catch (const Error& e) {
        fail(ErrorKind::Io, "chip profile '" + path + "': cannot be read: " + e.what());
    }
    nlohmann::json j;
    try {
        j = parseJsonText(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers too large
        failInput("chip profile '" + path + "': not valid JSON: " + e.what());
    }
    return chipProfileFromJson(j, path);
}

std::vector<std::string> chipProfileDirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("NPUWB_CHIPS_DIR"); env && *env) dirs.emplace_back(env);
    for (const fs::path& dir : install::dataFolders("chips")) dirs.push_back(dir.string());
    return dirs;
}

std::vector<std::string> availableChipProfiles() { return profileNamesIn(chipProfileDirs()); }

ChipProfile findChipProfile(const std::string& name) {
    if (name.find('/') != std::string::npos || name.ends_with(".json")) return loadChipProfile(name);
    return loadChipProfile(findProfileFile(chipProfileDirs(), name, "chip", "NPUWB_CHIPS_DIR"));
}

}  // namespace npuwb
