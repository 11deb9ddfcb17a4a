#!/usr/bin/python3
"""Creates the chip profiles (one JSON per chip) and refreshes their "ops" sections.

The JSON files are the source of truth and meant to be edited by hand. This script exists so the operator
facts can be refreshed from an operator-support JSON (Rockchip's "RKNN Compiler Support Operator List" v2.3.2 and
rknn-toolkit2's op-support tables, extracted; not part of this repository) without touching anything else:
  * a profile that does not exist yet is created from HARDWARE below (facts from the RKNN SDK user guide V2.3.x and
    V2.5.0 and rknn_api.h);
  * an existing profile keeps every field except "ops", which is re-extracted.
Usage: /usr/bin/python3 make_profiles.py OP_SUPPORT_JSON [OUT_DIR]
"""
import json
import os
import sys

# Ops that split across cores on multi-core chips (RKNN SDK user guide V2.5.0, NPU multi-core section). The op-support
# data says "not_yet" for some of them on RK3588 (Relu, Clip, PRelu, LeakyRelu): the facts list wins and
# README.md records the disagreement.
MULTI_CORE_RULE = ["Convolution", "Depthwise Convolution", "Add", "Concat", "Relu", "Clip/ReLU6",
                   "ThresholdedRelu", "PRelu", "LeakyRelu"]

# How the toolkit maps ONNX ops the op list does not name directly (stated in README.md, not measured).
LOWERING = {"Gemm": "Convolution", "Flatten": "Reshape", "Squeeze": "Reshape", "Unsqueeze": "Reshape"}


def rates(ic, oc, c2, conv_align, other_align, nbytes):
    return {"atomicInputChannels": ic, "atomicOutputChannels": oc, "macsPerCycle": ic * oc, "c2": c2,
            "convOutputChannelAlign": conv_align, "otherOutputChannelAlign": other_align, "bytes": nbytes}


BIG = {"int8": rates(32, 32, 16, 32, 16, 1), "fp16": rates(32, 16, 8, 16, 8, 2)}      # RK3588/RK3576/RV1126B
SMALL = {"int8": rates(32, 16, 8, 16, 8, 1), "fp16": rates(16, 8, 4, 8, 4, 2)}        # RK3566/RK3568
MID = {"int8": rates(32, 16, 16, 32, 16, 1), "fp16": rates(32, 8, 8, 16, 8, 2)}       # RK3562
# Matmul API types per chip (RKNN SDK user guide V2.5.0, 4.1.1, table 4-4; README.md says which are assumptions).
MATMUL_TYPES_RK356X = ["fp16xfp16->fp32", "fp16xfp16->fp16", "int8xint8->int32", "int8xint8->int8"]
MATMUL_TYPES_RK3588 = MATMUL_TYPES_RK356X + ["int8xint8->fp32", "int4xint4->int16"]
MATMUL_TYPES_ALL = ["fp16xfp16->fp32", "int8xint8->int32", "int8xint8->int8", "fp16xfp16->fp16", "fp16xint8->fp32",
                    "fp16xint8->fp16", "fp16xint4->fp32", "fp16xint4->fp16", "int8xint8->fp32", "int4xint4->int16",
                    "int8xint4->int32", "fp16xint4->bf16", "int8xint4->fp16"]
MATMUL_BIG = {"types": MATMUL_TYPES_ALL, "bLayouts": ["norm", "native", "tp_norm"],
              "A": {"int4": "[K/32,M,32]", "int8": "[K/16,M,16]", "fp16": "[K/8,M,8]"},
              "B": {"int4": "[N/64,K/32,64,32]", "int8": "[N/32,K/32,32,32]", "fp16": "[N/16,K/32,16,32]"},
              "C": "[N/4,M,4]", "kAlign": {"int4": 32, "int8": 32, "fp16": 32},
              "nAlign": {"int4": 64, "int8": 32, "fp16": 16}, "maxK": 10240, "kSegment": 4096}
MATMUL_RK3588 = dict(MATMUL_BIG, types=MATMUL_TYPES_RK3588, C={"default": "[N/4,M,4]", "int4": "[N/8,M,8]"},
                     kSegment=8192)
CPU_A76 = {"description": "4x Cortex-A76 2.4 GHz + 4x Cortex-A55 1.8 GHz", "gmacsPerSecond": 4.0,
           "gbytesPerSecond": 6.0, "opOverheadUs": 40}
CPU_A72 = {"description": "4x Cortex-A72 2.2 GHz + 4x Cortex-A53 1.8 GHz", "gmacsPerSecond": 2.5,
           "gbytesPerSecond": 4.0, "opOverheadUs": 50}
CPU_A55 = {"description": "4x Cortex-A55 1.8-2.0 GHz", "gmacsPerSecond": 1.5, "gbytesPerSecond": 2.5,
           "opOverheadUs": 60}
CPU_A53 = {"description": "4x Cortex-A53 2.0 GHz", "gmacsPerSecond": 1.2, "gbytesPerSecond": 2.0, "opOverheadUs": 60}
CPU_A7 = {"description": "1x Cortex-A7 1.2 GHz", "gmacsPerSecond": 0.3, "gbytesPerSecond": 0.8, "opOverheadUs": 100}


def chip(name, platform, cores, peak, buffer_kb, sram_kb, dtypes, ddr, cpu, matmul, width_align, notes):
    return {"schema": "npuwb-chip-profile", "schemaVersion": 1, "name": name, "opSupportPlatform": platform,
            "npu": {"cores": cores, "clockMHz": 1000, "peakTopsInt8": peak, "bufferKBPerCore": buffer_kb,
                    "sramKB": sram_kb, "hwAlign": 4, "zeroCopyInputWidthAlign": width_align, "dtypes": dtypes},
            "memory": ddr, "cpu": cpu,
            "matmul": {k: v for k, v in matmul.items() if v is not None} if matmul else None, "notes": notes}


LAYOUT_NOTE = ("macsPerCycle = atomicInputChannels x atomicOutputChannels, read off the native matmul B layout "
               "([N/n,K/k,n,k] blocks: k input x n output channels per cycle)")
HARDWARE = {
    "rk3588": chip("RK3588", "RK3588", 3, 6.0, 384, 956, BIG,
                   {"ddrBandwidthGBps": 34.1, "busWidthBits": 64, "ddrType": "LPDDR4x-4266 (LPDDR5 up to ~44 GB/s)"},
                   CPU_A76, MATMUL_RK3588, 16, [LAYOUT_NOTE, "1024 int8 MAC/cycle/core at ~1 GHz x 3 cores = 6 TOPS"]),
    "rk3576": chip("RK3576", "RK3576/RV1126B", 2, 6.0, 384, 0, BIG,
                   {"ddrBandwidthGBps": 17.0, "busWidthBits": 32, "ddrType": "LPDDR4x/5 (facts: ~12-17 GB/s)"},
                   CPU_A72, MATMUL_BIG, 16,
                   [LAYOUT_NOTE, "ASSUMPTION: clock 1 GHz and the RK3588 per-core buffer; the layout gives 2x1024 "
                    "int8 MAC/cycle = 4.1 TOPS at 1 GHz, the vendor says 6 TOPS (unresolved)"]),
    "rk3566": chip("RK3566", "RK3566/RK3568", 1, 0.8, 256, 0, SMALL,
                   {"ddrBandwidthGBps": 12.8, "busWidthBits": 32, "ddrType": "DDR4/LPDDR4x-3200"},
                   CPU_A55, dict(MATMUL_BIG, types=MATMUL_TYPES_RK356X, bLayouts=["norm", "native"], kSegment=None,
                                 A={"int8": "[K/8,M,8]", "fp16": "[K/4,M,4]"},
                                 B={"int8": "[N/16,K/32,16,32]", "fp16": "[N/8,K/16,8,16]"},
                                 kAlign={"int8": 32, "fp16": 16}, nAlign={"int8": 16, "fp16": 8}), 8,
                   [LAYOUT_NOTE, "same NPU as RK3568; the vendor's 0.8 TOPS vs 1 TOPS is not modelled (1 GHz both)",
                    "ASSUMPTION: 256 KB NPU buffer (not in the facts)"]),
    "rk3562": chip("RK3562", "RK3562", 1, 1.0, 256, 0, MID,
                   {"ddrBandwidthGBps": 12.8, "busWidthBits": 32, "ddrType": "LPDDR4/4x-3200"},
                   CPU_A53, dict(MATMUL_BIG, types=MATMUL_TYPES_RK356X, kSegment=None,
                                 A={"int8": "[K/16,M,16]", "fp16": "[K/8,M,8]"},
                                 B={"int8": "[N/16,K/32,16,32]", "fp16": "[N/8,K/32,8,32]"},
                                 kAlign={"int8": 32, "fp16": 32}, nAlign={"int8": 16, "fp16": 8}), 16,
                   [LAYOUT_NOTE, "supports w8a16", "ASSUMPTION: 256 KB NPU buffer (not in the facts)"]),
    "rv1106": chip("RV1106", "RV1103/RV1106", 1, 0.5, 128, 0, {"int8": rates(16, 16, 16, 32, 16, 1)},
                   {"ddrBandwidthGBps": 3.7, "busWidthBits": 16, "ddrType": "in-package DDR3L"},
                   CPU_A7, None, 16,
                   ["int8 only; no matmul API, so no layout to read the MAC array from",
                    "ASSUMPTION: 16x16 int8 MAC/cycle at 1 GHz (= the vendor's 0.5 TOPS), 128 KB buffer"]),
    "rv1126b": chip("RV1126B", "RK3576/RV1126B", 1, 3.0, 384, 0, BIG,
                    {"ddrBandwidthGBps": 12.8, "busWidthBits": 32, "ddrType": "LPDDR4/4x (assumed 3200)"},
                    CPU_A53, MATMUL_BIG, 16,
                    [LAYOUT_NOTE, "like RK3576 for matmul; no multi-core",
                     "ASSUMPTION: clock 1 GHz; the layout gives 2 TOPS, the vendor says 3 TOPS (unresolved)"]),
}
# The mini runtime of RV1106/RV1103: no per-layer perf detail, no rknn_dup_context (RKNN SDK user guide V2.5.0).
HARDWARE["rv1106"]["runtime"] = {"library": "librknnmrt.so", "perfDetail": False, "dupContext": False}
HARDWARE["rk3568"] = dict(HARDWARE["rk3566"], name="RK3568",
                          npu=dict(HARDWARE["rk3566"]["npu"], peakTopsInt8=1.0),
                          notes=[LAYOUT_NOTE, "ASSUMPTION: 256 KB NPU buffer (not in the facts)"])
HARDWARE["rv1103"] = dict(HARDWARE["rv1106"], name="RV1103",
                          memory={"ddrBandwidthGBps": 2.1, "busWidthBits": 16, "ddrType": "in-package DDR2"})


def multi_core(entry, chip_name):
    mc = entry.get("multi_core", "no")
    if isinstance(mc, dict):
        mc = mc.get(chip_name, "no")
    return mc == "yes"


def conditions(entry, base):
    """Conditions beyond integer ranges: Transpose permutations, Softmax axes, Pow exponents, Resize factors."""
    out = {}
    attrs = {**base.get("attrs", {}), **entry.get("attrs", {})}
    dtypes = {**base.get("dtypes", {}), **entry.get("dtypes", {})}
    perm = attrs.get("perm")
    if isinstance(perm, dict) and "rules" in perm:
        perms = {}
        for p, rule in perm["rules"].items():
            if rule == "unsupported":
                continue  # absent = CPU
            if rule == "any":
                perms[p] = {t.split(":")[0]: [] for ts in dtypes.values() for t in ts}
                continue
            per_dtype = {}
            for tvars, exprs in rule.items():
                for tvar in tvars.split(","):
                    for t in dtypes.get(tvar.strip(), []):
                        per_dtype[t.split(":")[0]] = exprs
            perms[p] = per_dtype
        out["perms"] = perms
        out["constants"] = perm.get("constants", {})
    axis = attrs.get("axis")
    if isinstance(axis, dict) and "allowed" in axis and entry.get("inputs", {}).get("input"):
        out["axes"] = axis["allowed"]
    limits = {**base.get("limits", {}), **entry.get("limits", {})}
    if isinstance(limits.get("Y.value"), dict) and "one_of" in limits["Y.value"]:
        out["exponents"] = limits["Y.value"]["one_of"]
    if isinstance(limits.get("scale_h_w"), dict) and "integer_factor_range" in limits["scale_h_w"]:
        out["integerScale"] = limits["scale_h_w"]["integer_factor_range"]
    return out


def extract_ops(data, platform, chip_name, cores):
    pf = data["platforms"][platform]
    npu_ops = {}
    for name in pf["op_list"]:
        entry = pf["npu_ops"].get(name, {})
        base = pf["npu_ops"].get(entry.get("same_limits_as", ""), {})
        limits = {k: v for k, v in {**base.get("limits", {}), **entry.get("limits", {})}.items()
                  if isinstance(v, list) and len(v) == 2}
        dtypes = sorted({t.split(":")[0] for ts in {**base.get("dtypes", {}), **entry.get("dtypes", {})}.values()
                         for t in ts if ":" not in t})
        split = cores > 1 and (multi_core(entry, chip_name) or name in MULTI_CORE_RULE)
        npu_ops[name] = {"dtypes": dtypes, "multiCore": split, "limits": limits}
        cond = conditions(entry, base)
        if cond:
            npu_ops[name]["conditions"] = cond
    onnx_to_npu = {}
    for onnx_op, e in data["onnx"]["ops"].items():
        targets = [n for n, pfs in e.get("rknn_npu", {}).items() if platform in pfs and n in npu_ops]
        if targets:
            onnx_to_npu[onnx_op] = targets
    fused = {n: {"base": f["base"], "then": f["then"]} for n, f in data["fused_ops"].items()
             if platform in f["platforms"] and n in npu_ops}
    avail = data["cpu_ops"]["availability"].get(platform, "all")
    cpu_ops = data["cpu_ops"]["names"] if avail == "all" else ([] if avail == "none" else avail)
    return {"npuOps": npu_ops, "onnxToNpu": onnx_to_npu, "lowering": LOWERING, "fusedOps": fused,
            "cpuOps": sorted(set(cpu_ops))}


def main():
    data = json.load(open(sys.argv[1]))
    out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
    for key, hw in HARDWARE.items():
        path = os.path.join(out_dir, key + ".json")
        profile = json.load(open(path)) if os.path.exists(path) else {k: v for k, v in hw.items() if v is not None}
        profile["ops"] = extract_ops(data, profile["opSupportPlatform"], profile["name"], profile["npu"]["cores"])
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(profile, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
        print("wrote", path)


if __name__ == "__main__":
    main()
