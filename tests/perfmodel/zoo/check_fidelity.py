#!/usr/bin/python3
"""Fidelity check of the zoo exports against published parameter counts and compute figures.

    check_fidelity.py [--models a,b] [--keep DIR]

Exports each model (export.py's code, into a temporary folder unless --keep), counts its parameters (elements of the
floating-point initializers) and its multiply-accumulates (Conv, ConvTranspose, Gemm and MatMul only, from shapes
inferred by ONNX), and prints them next to the published figures. Exits 1 when a ratio ours/published falls outside
the model's band: [0.95, 1.05] where the figure describes the same implementation, [0.85, 1.15] where a figure only
exists for another implementation of the architecture (RetinaFace: InsightFace's MXNet model, not biubug6's).
Published "GFLOPs" of repositories that compute thop MACs x 2 (Ultralytics YOLOv5, YOLOv6, YOLOv7, YOLOX) are
halved; figures that are already multiply-adds are used as they are. A missing figure is printed as "-" with the
reason: nothing is invented. Elementwise ops, pooling, resizing and activations are not counted (thop, behind most
of the published figures, counts a few of them; they are well under 1% of these conv-dominated totals).
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

TIGHT, LOOSE = (0.95, 1.05), (0.85, 1.15)

# name: dict(params=(value, source) or None, macs=(value in MACs, source) or None, why_params / why_macs = reason a
#            figure is missing, check_as = an export variant the MAC figure describes (see export.CHECK_VARIANTS),
#            band = allowed ratio band (default TIGHT))
PUBLISHED = {
    "mobilenetv2-12": dict(
        params=(3.4e6, "Sandler et al., MobileNetV2 (CVPR 2018) Table 4: 3.4 M"),
        macs=(300e6, "same table: 300 M multiply-adds at 224x224")),
    "resnet50-v2-7": dict(
        params=(25.6e6, "Keras Applications table, ResNet50V2: 25.6 M"),
        macs=(4.09e9, "torchvision resnet50 model card 4.09 GFLOPS, counted by fvcore as 1 per multiply-add; "
                      "Gluon ResNet-50 v2 (the ONNX zoo model's source) has the same conv shapes")),
    "yolov5s_relu": dict(
        params=(7.2e6, "Ultralytics YOLOv5 v7.0 README, YOLOv5s: 7.2 M (ReLU variant, same layers)"),
        macs=(16.5e9 / 2, "same table: 16.5 GFLOPs at 640 (thop MACs x 2)")),
    "yolov5n": dict(
        params=(1.9e6, "Ultralytics YOLOv5 v7.0 README, YOLOv5n: 1.9 M"),
        macs=(4.5e9 / 2, "same table: 4.5 GFLOPs at 640 (thop MACs x 2)")),
    "yolov5s": dict(
        params=(7.2e6, "Ultralytics YOLOv5 v7.0 README, YOLOv5s: 7.2 M"),
        macs=(16.5e9 / 2, "same table: 16.5 GFLOPs at 640 (thop MACs x 2)")),
    "yolov5m": dict(
        params=(21.2e6, "Ultralytics YOLOv5 v7.0 README, YOLOv5m: 21.2 M"),
        macs=(49.0e9 / 2, "same table: 49.0 GFLOPs at 640 (thop MACs x 2)")),
    "yolov6n": dict(
        params=(4.7e6, "meituan/YOLOv6 README (v3.0 models), YOLOv6-N: 4.7 M"),
        macs=(11.4e9 / 2, "same table: 11.4 GFLOPs at 640 (get_model_info: thop MACs x 2)")),
    "yolov6s": dict(
        params=(18.5e6, "meituan/YOLOv6 README (v3.0 models), YOLOv6-S: 18.5 M"),
        macs=(45.3e9 / 2, "same table: 45.3 GFLOPs at 640 (thop MACs x 2)")),
    "yolov6m": dict(
        params=(34.9e6, "meituan/YOLOv6 README (v3.0 models), YOLOv6-M: 34.9 M"),
        macs=(85.8e9 / 2, "same table: 85.8 GFLOPs at 640 (thop MACs x 2)")),
    "yolov7-tiny": dict(
        params=(6.2e6, "YOLOv7 paper (arXiv 2207.02696) Table 2, YOLOv7-tiny-SiLU at 640: 6.2 M (the LeakyReLU "
                       "tiny the zoo runs has the same layers)"),
        macs=(13.8e9 / 2, "same table: 13.8 GFLOPs at 640 (thop MACs x 2)")),
    "yolov7": dict(
        params=(36.9e6, "YOLOv7 paper (arXiv 2207.02696) Table 2, YOLOv7 at 640: 36.9 M"),
        macs=(104.7e9 / 2, "same table: 104.7 GFLOPs at 640 (thop MACs x 2)")),
    "yolox_s": dict(
        params=(9.0e6, "Megvii YOLOX README, YOLOX-s: 9.0 M"),
        macs=(26.8e9 / 2, "same table: 26.8 GFLOPs at 640 (get_model_info: thop MACs x 2)")),
    "yolox_m": dict(
        params=(25.3e6, "Megvii YOLOX README, YOLOX-m: 25.3 M"),
        macs=(73.8e9 / 2, "same table: 73.8 GFLOPs at 640 (thop MACs x 2)")),
    "ppyoloe_s": dict(
        params=(7.93e6, "PaddleDetection configs/ppyoloe README, PP-YOLOE+_s: 7.93 M"),
        macs=(17.36e9 / 2, "same table: 17.36 GFLOPs at 640, read as 2 per MAC (see the note below)")),
    "ppyoloe_m": dict(
        params=(23.43e6, "PaddleDetection configs/ppyoloe README, PP-YOLOE+_m: 23.43 M"),
        macs=(49.91e9 / 2, "same table: 49.91 GFLOPs at 640 (2 per MAC, see note below)")),
    "deeplab-v3-plus-mobilenet-v2": dict(
        params=None, why_params="the TF DeepLab model zoo gives no parameter count",
        macs=(2.75e9, "TF DeepLab model zoo, mobilenetv2_coco_voc_trainaug: 2.75 B multiply-adds at 513x513 with eval "
                      "output stride 16; checked on our OS16 build because the benchmarked graph runs at OS 8 "
                      "(65x65 logits), for which no single-scale figure is published"),
        check_as="deeplab-v3-plus-mobilenet-v2@os16"),
    "RetinaFace_mobile320": dict(
        params=(0.44e6, "InsightFace SCRFD README 'Mobile family' table, RetinaFace MobileNet0.25: 0.44 M "
                        "(InsightFace's MXNet RetinaFace; biubug6's own README only says '1.7M' model size)"),
        macs=(0.802e9 * 320 * 320 / (640 * 480), "same table: 0.802 G #Flops at VGA 640x480 (SCRFD counts with "
                                                 "mmcv, one per multiply-add), scaled by pixel count to 320x320"),
        band=LOOSE),
    "RetinaFace_resnet50_320": dict(
        params=(29.50e6, "InsightFace SCRFD README 'ResNet family' table, RetinaFace ResNet50: 29.50 M "
                         "(InsightFace's MXNet RetinaFace, not biubug6's PyTorch one; no figure exists for the "
                         "latter)"),
        macs=(37.59e9 * 320 * 320 / (640 * 480), "same table: 37.59 G #Flops (multiply-adds) at VGA 640x480, scaled "
                                                 "by pixel count to 320x320"),
        band=LOOSE),
    "lprnet": dict(
        params=(1.7e6 / 4, "sirius-ai/LPRNet_Pytorch README: 'size 1.7M' weight file = ~0.43 M fp32 values"),
        macs=None, why_macs="sirius-ai's implementation (the zoo's) publishes none; the LPRNet paper "
                            "(arXiv 1806.10447) quotes 0.34 GFLOPs for its own network without saying whether it "
                            "counts 1 or 2 per multiply-add or includes its optional spatial-transformer front end, "
                            "so it cannot be compared (ours: 0.144 GMACs = 0.29 GFLOPs at 2 per MAC)"),
}


def count(model):
    """(parameters, MACs) of an ONNX model with inferred shapes."""
    import numpy as np
    from onnx import TensorProto

    float_types = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16}
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer if t.data_type in float_types)
    for n in model.graph.node:  # folded constants that stayed Constant nodes
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value" and a.t.data_type in float_types:
                    params += int(np.prod(a.t.dims)) if len(a.t.dims) else 0
    shapes = {}
    for vi in list(model.graph.value_info) + list(model.graph.input) + list(model.graph.output):
        dims = vi.type.tensor_type.shape.dim
        shapes[vi.name] = [d.dim_value for d in dims]
    for t in model.graph.initializer:
        shapes[t.name] = list(t.dims)

    def attr(node, name, default):
        for a in node.attribute:
            if a.name == name:
                return a.i if a.type == a.INT else list(a.ints)
        return default

    macs = 0
    for n in model.graph.node:
        if n.op_type == "Conv":
            w = shapes[n.input[1]]  # [Cout, Cin/g, k...]
            macs += int(np.prod(shapes[n.output[0]])) * int(np.prod(w[1:]))
        elif n.op_type == "ConvTranspose":
            w = shapes[n.input[1]]  # [Cin, Cout/g, k...]: every input element feeds Cout/g * k*k outputs
            macs += int(np.prod(shapes[n.input[0]])) * int(np.prod(w[1:]))
        elif n.op_type == "Gemm":
            a = shapes[n.input[0]]
            k = a[0] if attr(n, "transA", 0) else a[1]
            macs += int(np.prod(shapes[n.output[0]])) * k
        elif n.op_type == "MatMul":
            a = shapes[n.input[0]]
            macs += int(np.prod(shapes[n.output[0]])) * a[-1]
    return params, macs


def _fmt_ratio(r):
    return "-" if r is None else f"{r:.3f}"


def main(argv=None):
    import export

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", help="comma-separated names (default: all)")
    p.add_argument("--keep", metavar="DIR", help="keep the exported files in DIR instead of a temp folder")
    a = p.parse_args(argv)
    names = a.models.split(",") if a.models else list(export.MODELS)
    unknown = [n for n in names if n not in export.MODELS]
    if unknown:
        print(f"error: unknown model(s) {unknown}", file=sys.stderr)
        return 2

    import onnx

    rows, failures, notes = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = a.keep or tmp
        for name in names:
            pub = PUBLISHED[name]
            path = export.export_model(name, os.path.join(out_dir, name + ".onnx"), quiet=True)
            ours_p, ours_m = count(onnx.shape_inference.infer_shapes(onnx.load(path), strict_mode=True))
            check_m = ours_m
            if pub.get("check_as"):
                vpath = export.export_model(pub["check_as"], os.path.join(out_dir, pub["check_as"] + ".onnx"),
                                            quiet=True)
                check_m = count(onnx.shape_inference.infer_shapes(onnx.load(vpath), strict_mode=True))[1]
            rp = ours_p / pub["params"][0] if pub.get("params") else None
            rm = check_m / pub["macs"][0] if pub.get("macs") else None
            low, high = pub.get("band", TIGHT)
            for what, r in (("params", rp), ("MACs", rm)):
                if r is not None and not (low <= r <= high):
                    failures.append(f"{name}: {what} ratio {r:.3f} outside [{low}, {high}]")
            rows.append((name, ours_p, pub.get("params"), rp, ours_m, check_m if pub.get("check_as") else None,
                         pub.get("macs"), rm))
            for key, fig in (("params", pub.get("params")), ("macs", pub.get("macs"))):
                notes.append(f"{name} {key}: " + (fig[1] if fig else "no published figure: " + pub["why_" + key]))

    print(f"{'model':30s} {'params ours':>12s} {'published':>10s} {'ratio':>6s}   "
          f"{'GMACs ours':>20s} {'published':>9s} {'ratio':>6s}  band")
    for name, op, pp, rp, om, cm, pm, rm in rows:
        pub_m = "-" if pm is None else f"{pm[0] / 1e9:.3f}"
        ours_m = f"{om / 1e9:.3f}" + (f" (OS16 {cm / 1e9:.3f})" if cm is not None else "")
        band = "%.2f-%.2f" % PUBLISHED[name].get("band", TIGHT)
        print(f"{name:30s} {op / 1e6:11.3f}M {('-' if pp is None else f'{pp[0] / 1e6:.2f}M'):>10s} "
              f"{_fmt_ratio(rp):>6s}   {ours_m:>20s} {pub_m:>9s} {_fmt_ratio(rm):>6s}  {band}")
    print("\nsources:")
    for n in notes:
        print("  " + n)
    print("\nnote: PaddleDetection does not say how its PP-YOLOE GFLOPs count; comparison tables (the PP-YOLOE paper's "
          "among them) put them in one column with YOLOv5's and YOLOX's thop-MACs-x-2 GFLOPs, and our MAC count "
          "matches half the figure, so it is read as 2 per MAC.")
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures))
        return 1
    print("\nall ratios within their bands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
