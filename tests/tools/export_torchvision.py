#!/usr/bin/python3
"""Exports torchvision classifiers (random weights, weights=None) to ONNX opset 13 for the real-model tests.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision). The seed is fixed per model so the
export is reproducible; existing files are kept (idempotent) unless --force.
"""
import argparse
import os
import sys

CORE = ["mobilenet_v2", "resnet18", "shufflenet_v2_x0_5"]
# Larger models for the benchmarks only: slow to export and to run through the reference kernels.
BENCH = ["resnet50", "squeezenet1_1", "efficientnet_b0", "shufflenet_v2_x1_0"]


def export(name, out_dir, force):
    path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(path) and not force:
        print(f"keep   {path}")
        return
    import torch  # only now: importing torch takes seconds
    import torchvision

    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    example = torch.randn(1, 3, 224, 224)
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, example, tmp, opset_version=13, input_names=["input"], output_names=["logits"],
                          do_constant_folding=True)
    os.replace(tmp, path)  # never leave a half-written model under the final name
    print(f"export {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir", help="folder for the .onnx files")
    parser.add_argument("--bench", action="store_true", help="also export " + ", ".join(BENCH))
    parser.add_argument("--force", action="store_true", help="re-export existing files")
    parser.add_argument("--only", nargs="*", help="export just these models")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    names = args.only or (CORE + (BENCH if args.bench else []))
    for name in names:
        export(name, args.out_dir, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
