#!/usr/bin/python3
"""Exports the architectures of Rockchip's rknn_model_zoo benchmark table to ONNX (random weights, fixed seed).

    export.py NAME OUT.onnx      one model
    export.py --list             the names
    export.py --all OUTDIR       every model, one after the other, as OUTDIR/NAME.onnx

The graphs are for latency modelling: the layer structure (widths, depths, kernels, strides, activations, necks,
heads and the zoo's export cut points) follows what the zoo converts; the weights are random. Opset 13, fixed input
shape, ONNX checker + strict shape inference on every file. Run with Debian's /usr/bin/python3 (python3-torch,
python3-torchvision, python3-onnx).
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

OPSET = 13
SEED = 0


def _levels(*names):
    return [f"{n}_{s}" for s in ("p3", "p4", "p5") for n in names]


# name: (module, builder, kwargs, input name, input shape, output names)
MODELS = {
    "mobilenetv2-12": ("classic", "mobilenetv2", {}, "input", (1, 3, 224, 224), ["output"]),
    "resnet50-v2-7": ("classic", "resnet50_v2", {}, "data", (1, 3, 224, 224), ["output"]),
    "yolov5s_relu": ("yolo", "yolov5", {"depth": 0.33, "width": 0.50, "act": "relu"}, "images", (1, 3, 640, 640),
                     _levels("output")),
    "yolov5n": ("yolo", "yolov5", {"depth": 0.33, "width": 0.25}, "images", (1, 3, 640, 640), _levels("output")),
    "yolov5s": ("yolo", "yolov5", {"depth": 0.33, "width": 0.50}, "images", (1, 3, 640, 640), _levels("output")),
    "yolov5m": ("yolo", "yolov5", {"depth": 0.67, "width": 0.75}, "images", (1, 3, 640, 640), _levels("output")),
    "yolov6n": ("yolo_af", "yolov6", {"size": "n"}, "images", (1, 3, 640, 640), _levels("box", "cls", "score_sum")),
    "yolov6s": ("yolo_af", "yolov6", {"size": "s"}, "images", (1, 3, 640, 640), _levels("box", "cls", "score_sum")),
    "yolov6m": ("yolo_af", "yolov6", {"size": "m"}, "images", (1, 3, 640, 640), _levels("box", "cls", "score_sum")),
    "yolov7-tiny": ("yolo", "yolov7_tiny", {}, "images", (1, 3, 640, 640), _levels("output")),
    "yolov7": ("yolo", "yolov7", {}, "images", (1, 3, 640, 640), _levels("output")),
    "yolox_s": ("yolo_af", "yolox", {"depth": 0.33, "width": 0.50}, "images", (1, 3, 640, 640), _levels("output")),
    "yolox_m": ("yolo_af", "yolox", {"depth": 0.67, "width": 0.75}, "images", (1, 3, 640, 640), _levels("output")),
    "ppyoloe_s": ("yolo_af", "ppyoloe", {"depth": 0.33, "width": 0.50}, "image", (1, 3, 640, 640),
                  [f"{n}_{s}" for s in ("p5", "p4", "p3") for n in ("box", "cls", "score_sum")]),
    "ppyoloe_m": ("yolo_af", "ppyoloe", {"depth": 0.67, "width": 0.75}, "image", (1, 3, 640, 640),
                  [f"{n}_{s}" for s in ("p5", "p4", "p3") for n in ("box", "cls", "score_sum")]),
    "deeplab-v3-plus-mobilenet-v2": ("classic", "deeplabv3_mnv2", {}, "sub_7", (1, 513, 513, 3),
                                     ["logits/semantic/BiasAdd"]),
    "RetinaFace_mobile320": ("face", "retinaface", {"backbone": "mobilenet0.25"}, "input", (1, 3, 320, 320),
                             ["loc", "conf", "landmarks"]),
    "RetinaFace_resnet50_320": ("face", "retinaface", {"backbone": "resnet50"}, "input", (1, 3, 320, 320),
                                ["loc", "conf", "landmarks"]),
    "lprnet": ("classic", "lprnet", {}, "input", (1, 3, 24, 94), ["output"]),
}

# Variants that only exist for check_fidelity.py (a published figure describes them, not the benchmarked form).
CHECK_VARIANTS = {
    "deeplab-v3-plus-mobilenet-v2@os16": ("classic", "deeplabv3_mnv2", {"output_stride": 16}, "sub_7",
                                          (1, 513, 513, 3), ["logits/semantic/BiasAdd"]),
}


class ExportError(RuntimeError):
    pass


def build(name):
    """Returns (torch module in eval mode, example input, spec) with the fixed seed applied."""
    import importlib

    import torch

    spec = MODELS.get(name) or CHECK_VARIANTS.get(name)
    if spec is None:
        raise ExportError(f"unknown model {name!r}; --list prints the names")
    module, fn, kwargs, _, shape, _ = spec
    from layers import randomize_constant_inits

    torch.manual_seed(SEED)
    model = getattr(importlib.import_module(module), fn)(**kwargs).eval()
    randomize_constant_inits(model)
    example = torch.randn(*shape)
    return model, example, spec


def check_onnx(path, spec):
    """ONNX checker + strict shape inference; the input must be exactly the spec's fixed shape and every node output
    must get a fully static inferred shape (the MAC counter and the project's tools rely on it)."""
    import onnx

    _, _, _, in_name, shape, out_names = spec
    model = onnx.load(path)
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001 - re-raised with the file name
        raise ExportError(f"{path}: ONNX checker failed: {e}") from e
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    except Exception as e:  # noqa: BLE001
        raise ExportError(f"{path}: ONNX shape inference failed: {e}") from e
    inputs = [i for i in inferred.graph.input if i.name not in {t.name for t in inferred.graph.initializer}]
    if len(inputs) != 1 or inputs[0].name != in_name:
        raise ExportError(f"{path}: expected one input {in_name!r}, got {[i.name for i in inputs]}")
    dims = [d.dim_value if d.HasField("dim_value") else None for d in inputs[0].type.tensor_type.shape.dim]
    if dims != list(shape):
        raise ExportError(f"{path}: input shape {dims} is not the fixed {list(shape)}")
    if [o.name for o in inferred.graph.output] != list(out_names):
        raise ExportError(f"{path}: outputs {[o.name for o in inferred.graph.output]} != {out_names}")
    known = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output) + list(inferred.graph.input):
        t = vi.type.tensor_type
        if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            known[vi.name] = [d.dim_value for d in t.shape.dim]
    inits = {t.name for t in inferred.graph.initializer}
    missing = [o for n in inferred.graph.node for o in n.output if o and o not in known and o not in inits
               and n.op_type != "Constant"]
    if missing:
        raise ExportError(f"{path}: shape inference left {len(missing)} tensors without a static shape, "
                          f"e.g. {missing[:5]}")
    return inferred


def export_model(name, out_path, quiet=False):
    import onnx
    import torch

    import warnings

    torch.set_num_threads(1)  # the machine is shared; exports are small
    # Known-harmless export chatter: the constant scales of nearest/bilinear Resize and the static int() of a traced
    # shape (the input shape is fixed, so treating it as a constant is exactly what we want).
    warnings.filterwarnings("ignore", message="The shape inference of prim::Constant type is missing")
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    t0 = time.time()
    model, example, spec = build(name)
    _, _, _, in_name, _, out_names = spec
    out_dir = os.path.dirname(os.path.abspath(out_path))
    os.makedirs(out_dir, exist_ok=True)
    tmp = out_path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, example, tmp, opset_version=OPSET, input_names=[in_name], output_names=out_names,
                          do_constant_folding=True)
    proto = onnx.load(tmp)
    proto.producer_name = "npu-workbench tests/perfmodel/zoo"
    proto.doc_string = f"{name}: random-weight architecture replica for latency modelling (seed {SEED})"
    onnx.save(proto, tmp)
    try:
        check_onnx(tmp, spec)
    except ExportError:
        os.replace(tmp, out_path + ".failed.onnx")
        raise
    os.replace(tmp, out_path)  # never leave a half-written or unchecked model under the final name
    if not quiet:
        print(f"export {name:30s} -> {out_path}  ({time.time() - t0:.1f} s)")
    return out_path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", help="model name (see --list)")
    p.add_argument("out", nargs="?", help="output .onnx path")
    p.add_argument("--list", action="store_true", help="print the model names")
    p.add_argument("--all", metavar="OUTDIR", help="export every model to OUTDIR/NAME.onnx")
    p.add_argument("--missing-only", action="store_true",
                   help="with --all: skip models whose file is newer than every exporter source (test fixtures)")
    a = p.parse_args(argv)
    if a.list:
        print("\n".join(MODELS))
        return 0
    try:
        if a.all:
            t0 = time.time()
            sources = max(os.path.getmtime(os.path.join(HERE, f)) for f in os.listdir(HERE) if f.endswith(".py"))
            done = 0
            for name in MODELS:
                out = os.path.join(a.all, name + ".onnx")
                if a.missing_only and os.path.exists(out) and os.path.getmtime(out) > sources:
                    continue
                export_model(name, out)
                done += 1
            print(f"exported {done} of {len(MODELS)} models in {time.time() - t0:.1f} s")
            return 0
        if not a.name or not a.out:
            p.error("give NAME OUT.onnx, --list or --all OUTDIR")
        export_model(a.name, a.out)
        return 0
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
