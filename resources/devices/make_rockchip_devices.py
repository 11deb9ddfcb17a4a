#!/usr/bin/env python3
"""Writes one device profile per Rockchip chip profile (../chips/<chip>.json -> <chip>.json here).

Units: the NPU with the chip profile's cost model ("costs": "chip"); the Mali GPU where the chip has one; the CPU
clusters (big and little where the chip has both). Rates of the GPU and CPU units come from the table below and the
chip profile's CPU fallback figures. They are the units' GEMM/convolution (MAC) and data-bound (bytes) rates
already, so every op class runs at "excellent" on them except where the qualitative table of "NPU/GPU operator
partitioning with pipeline parallelism on Snapdragon X2 Elite" (snapdragon-x2-elite.json) ranks the GPU lower
(conditional branches, data reorganisation): that row and the factors come from there. The hand-off cost is the chip profile's NPU<->CPU hand-over (cpu.opOverheadUs) plus the
bytes at the CPU's layout-conversion rate (cpu.gbytesPerSecond).

Usage: /usr/bin/python3 make_rockchip_devices.py   (re-run after editing the chip profiles or the table)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CHIPS = os.path.join(HERE, "..", "chips")

# GPU: name, peak fp16 GMAC/s (cores x FMA lanes x clock), share of DDR bandwidth it reaches. Sources: Arm's
# Mali-G610 and Mali-G52 shader-core widths at the clocks Rockchip ships; clpeak on an RK3588 board measures
# ~880 GFLOPS half2 and ~27 GB/s. GEMM and convolution kernels reach about a third of peak (assumption).
GPUS = {
    "RK3588": ("Mali-G610 MP4 (1.0 GHz)", 440.0, 0.6),
    "RK3576": ("Mali-G52 MC3 (0.8 GHz)", 115.0, 0.6),
    "RK3566": ("Mali-G52 2EE (0.8 GHz)", 25.6, 0.5),
    "RK3568": ("Mali-G52 2EE (0.8 GHz)", 25.6, 0.5),
    "RK3562": ("Mali-G52 2EE (1.0 GHz)", 32.0, 0.5),
}
GPU_EFFICIENCY = 0.35

# CPU clusters: (unit name, cores, per-core GMAC/s relative to the chip profile's big-core fallback figure).
# The fallback figures are about half of one core's NEON peak (resources/chips/README.md: A76 4, A72 2.5, A55 1.5,
# A53 1.2, A7 0.3 GMAC/s); the little clusters keep that list's ratio to the big core.
CLUSTERS = {
    "RK3588": [("CPU-big", "4x Cortex-A76", 4, 1.0), ("CPU-little", "4x Cortex-A55", 4, 1.5 / 4.0)],
    "RK3576": [("CPU-big", "4x Cortex-A72", 4, 1.0), ("CPU-little", "4x Cortex-A53", 4, 1.2 / 2.5)],
}
PARALLEL_EFFICIENCY = 0.75  # four threads on a cluster (assumption)


def affinity_source():
    with open(os.path.join(HERE, "snapdragon-x2-elite.json")) as f:
        s = json.load(f)
    rows = {}
    for u in s["units"]:
        # The rates below are measured per kind of work already: only levels below "good" still say something.
        rows[u["kind"]] = {cls: (level if level in ("medium", "poor") and u["kind"] == "gpu" else "excellent")
                           for cls, level in u["affinity"].items()}
    return s["affinityFactors"], rows


def device(chip, factors, rows):
    name = chip["name"]
    cpu = chip["cpu"]
    units = [{
        "name": "NPU", "kind": "npu", "description": name + " NPU (" + str(chip["npu"]["cores"]) + " core(s))",
        "costs": "chip", "chipDtype": "int8",
    }]
    notes = ["NPU: per-layer times of the " + name + " chip profile's cost model (int8); ops off its NPU op list "
             "cannot run there"]
    if name in GPUS:
        label, peak, ddr_share = GPUS[name]
        units.append({
            "name": "GPU", "kind": "gpu", "description": label, "costs": "roofline",
            "gmacsPerSecond": round(peak * GPU_EFFICIENCY, 1),
            "gbytesPerSecond": round(chip["memory"]["ddrBandwidthGBps"] * ddr_share, 1),
            "opOverheadUs": 30, "affinity": rows["gpu"],
        })
        notes.append("GPU: %.0f%% of a %.0f GMAC/s fp16 peak, %.0f%% of DDR bandwidth, 30 us per kernel launch "
                     "(assumptions; no board measurement yet)" % (GPU_EFFICIENCY * 100, peak, ddr_share * 100))
    clusters = CLUSTERS.get(name, [("CPU", cpu["description"], 4 if "4x" in cpu["description"] else 1, 1.0)])
    for unit, label, cores, ratio in clusters:
        threads = cores * PARALLEL_EFFICIENCY if cores > 1 else 1
        units.append({
            "name": unit, "kind": "cpu", "description": label, "costs": "roofline",
            "gmacsPerSecond": round(cpu["gmacsPerSecond"] * ratio * threads, 2),
            "gbytesPerSecond": round(cpu["gbytesPerSecond"] * ratio * min(threads, 2), 2),
            "opOverheadUs": 5, "affinity": rows["cpu"],
        })
    notes.append("CPU clusters: the chip profile's per-core fallback rate x cores x %.2f parallel efficiency "
                 "(memory rate x at most 2)" % PARALLEL_EFFICIENCY)
    notes.append("hand-off: the chip profile's NPU<->CPU hand-over (%g us) plus bytes at its layout-conversion "
                 "rate (%g GB/s)" % (cpu["opOverheadUs"], cpu["gbytesPerSecond"]))
    notes.append("affinity: the rates are GEMM and data-bound rates already, so every class is excellent except the "
                 "GPU's conditional branches (poor) and data reorganisation (medium), from the Snapdragon X2 Elite "
                 "article's table (an assumption for Mali)")
    return {
        "schema": "npuwb-device-profile", "schemaVersion": 1, "name": name,
        "description": name + ": NPU, " + ("Mali GPU, " if name in GPUS else "") + "CPU (generated by "
                       "make_rockchip_devices.py from ../chips/" + name.lower() + ".json)",
        "chip": name.lower(), "affinityFactors": factors, "units": units,
        "transfer": {"syncUs": cpu["opOverheadUs"], "gbytesPerSecond": cpu["gbytesPerSecond"]},
        "notes": notes,
    }


def main():
    factors, rows = affinity_source()
    for file in sorted(os.listdir(CHIPS)):
        if not file.endswith(".json"):
            continue
        with open(os.path.join(CHIPS, file)) as f:
            chip = json.load(f)
        out = os.path.join(HERE, file)
        with open(out, "w") as f:
            json.dump(device(chip, factors, rows), f, indent=1)
            f.write("\n")
        print("wrote", out)


if __name__ == "__main__":
    main()
