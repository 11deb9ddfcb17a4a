#!/usr/bin/python3
"""The benchmark corpus: models nobody tuned for, each with fixed input shapes, fp32 and a QDQ int8 export made by
our own quantizer (npuwb-cli quantize --scheme w8a8, calibrated on a few seeded random samples).

    corpus.py make [--quick] [--dir DIR] [--cli NPUWB_CLI]   export what is missing into DIR (default build/bench-corpus)
    corpus.py list [--quick] [--dir DIR] --kind fp32|int8     one line per model: PATH[@NAME=D1,D2,...]

Sources (all random weights, seeded, reproducible):
  torchvision   the classifiers of tests/tools/export_torchvision.py (core + --bench);
  real          every real model the tests fetch (scripts/fetch-models.sh) that runs on a tensor input;
  zoo           the rknn_model_zoo architectures of tests/perfmodel/zoo/export.py (detectors, segmentation, faces);
  tfpad         TensorFlow-style exports: torchvision MobileNetV2 / EfficientNet-B0 / MNASNet with 'SAME' padding made
                explicit, a ZeroPad2d (asymmetric, as TF pads) before every stride-2 convolution with padding 0: the
                pattern where a backend that does not claim Pad falls back once per downsampling;
  transformers  tests/tools/export_transformers.py at bench size (BERT-base encoder, ViT-B/16, DeiT-tiny, a GPT-2
                small decoder step with a 127-token KV cache, whisper-tiny encoder, Swin-T, MobileViT-XXS): opset 14
                (LayerNorm decomposed) and 17 (LayerNormalization) with fixed shapes, and the opset 17 dynamic-axes
                export run at the shapes of its corpus entry. Token inputs are calibrated on seeded ids inside the
                vocabulary and 0/1 masks.
`--quick` is a subset for everyday use (one of each kind). Run with Debian's /usr/bin/python3 (torch, onnx).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MODELS = os.path.join(ROOT, "tests", "data", "models")
ZOO_EXPORT = os.path.join(ROOT, "tests", "perfmodel", "zoo", "export.py")
TV_EXPORT = os.path.join(ROOT, "tests", "tools", "export_torchvision.py")
TX_EXPORT = os.path.join(ROOT, "tests", "tools", "export_transformers.py")
sys.path.insert(0, os.path.dirname(TX_EXPORT))
import export_transformers as tx  # noqa: E402  (imports torch only when it exports)


def transformer_entries(quick):
    """The transformers source: KIND_op14, KIND_op17 (fixed shapes) and KIND_op17_dyn at its bench shapes."""
    entries = {}
    for kind in tx.KINDS:
        entries[f"{kind}_op14"] = ("transformers", {}, False)
        entries[f"{kind}_op17"] = ("transformers", {}, kind == quick)
        entries[f"{kind}_op17_dyn"] = ("transformers", tx.dyn_shapes(kind, tx.SIZES["bench"][kind]), False)
    return entries


# name: (source, input shapes {input: dims}, quick). Shapes are what both engines run.
CORPUS = {
    "mobilenet_v2": ("torchvision", {"input": [1, 3, 224, 224]}, True),
    "resnet18": ("torchvision", {"input": [1, 3, 224, 224]}, False),
    "resnet50": ("torchvision", {"input": [1, 3, 224, 224]}, True),
    "shufflenet_v2_x0_5": ("torchvision", {"input": [1, 3, 224, 224]}, False),
    "shufflenet_v2_x1_0": ("torchvision", {"input": [1, 3, 224, 224]}, False),
    "squeezenet1_1": ("torchvision", {"input": [1, 3, 224, 224]}, False),
    "efficientnet_b0": ("torchvision", {"input": [1, 3, 224, 224]}, False),
    "ch_PP-OCRv4_det_infer": ("real", {"x": [1, 3, 480, 480]}, True),
    "ch_PP-OCRv4_rec_infer": ("real", {"x": [1, 3, 48, 320]}, False),
    "ch_ppocr_mobile_v2.0_cls_infer": ("real", {"x": [1, 3, 48, 192]}, False),
    "face_detection_front_128x128_barracuda": ("real", {}, False),
    "mobilenetv2-12": ("zoo", {}, False),
    "resnet50-v2-7": ("zoo", {}, False),
    "yolov5n": ("zoo", {}, True),
    "yolov5s": ("zoo", {}, False),
    "yolov5s_relu": ("zoo", {}, False),
    "yolov6n": ("zoo", {}, False),
    "yolov7-tiny": ("zoo", {}, False),
    "yolox_s": ("zoo", {}, False),
    "ppyoloe_s": ("zoo", {}, False),
    "deeplab-v3-plus-mobilenet-v2": ("zoo", {}, False),
    "RetinaFace_mobile320": ("zoo", {}, True),
    "lprnet": ("zoo", {}, False),
    "tfpad_mobilenet_v2": ("tfpad", {"input": [1, 3, 224, 224]}, True),
    "tfpad_efficientnet_b0": ("tfpad", {"input": [1, 3, 224, 224]}, False),
    "tfpad_mnasnet1_0": ("tfpad", {"input": [1, 3, 224, 224]}, False),
    **transformer_entries(quick="bert_encoder"),
}
CALIBRATION_SAMPLES = 4


def selected(quick):
    return [n for n, (_, _, q) in CORPUS.items() if q or not quick]


def fp32_path(d, name):
    source = CORPUS[name][0]
    fetched = os.path.join(MODELS, name + ".onnx")
    if source == "real" or (source == "torchvision" and os.path.exists(fetched)):
        return fetched
    return os.path.join(d, name + ".onnx")


def int8_path(d, name):
    return os.path.join(d, name + "_w8a8.onnx")


def export_tfpad(name, path):
    """A torchvision model with TensorFlow's 'SAME' padding spelled out: ZeroPad2d before each stride-2 conv."""
    import torch
    import torchvision

    torch.manual_seed(0)
    model = getattr(torchvision.models, name[len("tfpad_"):])(weights=None).eval()

    def rewrite(module):
        for child_name, child in module.named_children():
            if isinstance(child, torch.nn.Conv2d) and child.stride == (2, 2):
                k = child.kernel_size[0]
                total = max(k - 2, 0)  # TF 'SAME' for an even input size and stride 2
                child.padding = (0, 0)
                setattr(module, child_name, torch.nn.Sequential(
                    torch.nn.ZeroPad2d((total // 2, total - total // 2, total // 2, total - total // 2)), child))
            else:
                rewrite(child)

    rewrite(model)
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, torch.randn(1, 3, 224, 224), tmp, opset_version=13, input_names=["input"],
                          output_names=["logits"], do_constant_folding=True)
    os.replace(tmp, path)


def input_shapes(name, fp32):
    """The fixed shapes of the model's inputs: the corpus's, else the file's (all known for zoo exports)."""
    shapes = dict(CORPUS[name][1])
    if shapes:
        return shapes
    import onnx

    m = onnx.load(fp32, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    for i in m.graph.input:
        if i.name in inits:
            continue
        shapes[i.name] = [d.dim_value if d.dim_value > 0 else 1 for d in i.type.tensor_type.shape.dim]
    return shapes


def make_int8(name, fp32, out, cli, work):
    """w8a8 QDQ by our quantizer, calibrated on seeded uniform [0, 1) samples of the fixed shapes (transformers:
    token ids inside the vocabulary, 0/1 masks, normal mel frames and KV caches, export_transformers.py's)."""
    import numpy as np

    rng = np.random.default_rng(0)
    shapes = input_shapes(name, fp32)
    if CORPUS[name][0] == "transformers":
        dataset = tx.write_dataset(fp32, shapes, CALIBRATION_SAMPLES, work, force=True)
        cmd = [cli, "quantize", fp32, "--dataset", dataset, "--scheme", "w8a8", "--backend", "auto", "-q", "-o", out]
        subprocess.run(cmd, check=True)
        return
    lines = []
    for k in range(CALIBRATION_SAMPLES):
        files = []
        for inp, dims in shapes.items():
            f = os.path.join(work, f"{name}.{inp.replace('/', '_')}.{k}.npy")
            np.save(f, rng.random(dims, dtype=np.float32))
            files.append(f)
        lines.append(" ".join(files))
    dataset = os.path.join(work, f"{name}.dataset.txt")
    with open(dataset, "w") as f:
        f.write("\n".join(lines) + "\n")
    cmd = [cli, "quantize", fp32, "--dataset", dataset, "--scheme", "w8a8", "--backend", "auto", "-q", "-o", out]
    subprocess.run(cmd, check=True)


def make(args):
    os.makedirs(args.dir, exist_ok=True)
    work = os.path.join(args.dir, "calibration")
    os.makedirs(work, exist_ok=True)
    failed = []
    for name in selected(args.quick):
        source = CORPUS[name][0]
        fp32 = fp32_path(args.dir, name)
        try:
            if not os.path.exists(fp32):
                if source == "torchvision":
                    subprocess.run([sys.executable, TV_EXPORT, args.dir, "--only", name], check=True)
                elif source == "zoo":
                    subprocess.run([sys.executable, ZOO_EXPORT, name, fp32], check=True)
                elif source == "tfpad":
                    export_tfpad(name, fp32)
                elif source == "transformers":
                    kind, opset = name.rsplit("_op", 1)
                    opset, dynamic = opset.split("_")[0], opset.endswith("_dyn")
                    subprocess.run([sys.executable, TX_EXPORT, args.dir, "--size", "bench", "--only", kind,
                                    "--opsets", opset] + ([] if dynamic else ["--static-only"]), check=True)
                else:
                    print(f"skip {name}: {fp32} missing (scripts/fetch-models.sh)", file=sys.stderr)
                    continue
            int8 = int8_path(args.dir, name)
            if not args.fp32_only and not os.path.exists(int8):
                make_int8(name, fp32, int8, args.cli, work)
            print(f"ready  {name}", file=sys.stderr)
        except (subprocess.CalledProcessError, RuntimeError, ImportError) as e:
            failed.append(name)
            print(f"FAILED {name}: {e}", file=sys.stderr)
    return 1 if failed else 0


def listing(args):
    for name in selected(args.quick):
        fp32 = fp32_path(args.dir, name)
        path = fp32 if args.kind == "fp32" else int8_path(args.dir, name)
        if not os.path.exists(path):
            print(f"skip {name}: no {path} (corpus.py make)", file=sys.stderr)
            continue
        spec = path + "".join(f"@{k}={','.join(map(str, v))}" for k, v in CORPUS[name][1].items())
        if args.kind == "int8" and args.with_fp32 and os.path.exists(fp32):
            spec += "|" + fp32  # the bench times our fp32 model in the same turns as the int8 one
        print(spec)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["make", "list"])
    p.add_argument("--quick", action="store_true", help="the everyday subset")
    p.add_argument("--dir", default=os.path.join(ROOT, "build", "bench-corpus"))
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "bin", "npuwb-cli"))
    p.add_argument("--kind", choices=["fp32", "int8"], default="fp32")
    p.add_argument("--with-fp32", action="store_true",
                   help="list --kind int8: each spec ends in |FP32_MODEL, the fp32 model it was quantized from")
    p.add_argument("--fp32-only", action="store_true", help="make: skip the int8 exports")
    args = p.parse_args()
    return make(args) if args.command == "make" else listing(args)


if __name__ == "__main__":
    sys.exit(main())
