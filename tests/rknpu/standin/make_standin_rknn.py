#!/usr/bin/python3
"""Wraps an ONNX model into a stand-in test container, the file the test stand-in librknnrt.so accepts instead of a
real .rknn model (format: README.md in this folder). It is NOT a conversion: the stand-in runs the ONNX model itself.

  make_standin_rknn.py MODEL.onnx --target rk3588 [--batch N] -o OUT.rknn
"""
import argparse
import json
import os
import sys
import tempfile

MAGIC = b"NPUWB-STANDIN-RKNN 1\n"
CHIPS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "resources", "chips")


def known_targets():
    try:
        return sorted(f[:-5] for f in os.listdir(CHIPS_DIR) if f.endswith(".json"))
    except OSError:
        return []


def npu_cores(target):
    """The chip profile's NPU core count, so the container carries it to hosts without the profiles."""
    with open(os.path.join(CHIPS_DIR, target + ".json"), encoding="utf-8") as f:
        return int(json.load(f)["npu"]["cores"])


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("model", help="the ONNX model to embed")
    p.add_argument("--target", required=True, help="target platform, e.g. rk3588 (a chip profile's name)")
    p.add_argument("--batch", type=int, default=1, help="rknn_batch_size: inputs/outputs N times the model's (1-64)")
    p.add_argument("-o", "--output", required=True, help="the container to write")
    a = p.parse_args(argv)
    target = a.target.lower()
    targets = known_targets()
    if target not in targets:
        p.error("unknown target '%s' (chip profiles in %s: %s)" % (a.target, CHIPS_DIR, ", ".join(targets) or "none"))
    if not 1 <= a.batch <= 64:
        p.error("--batch must be from 1 to 64")
    try:
        with open(a.model, "rb") as f:
            onnx = f.read()
    except OSError as e:
        print("make_standin_rknn: cannot read %s: %s" % (a.model, e.strerror), file=sys.stderr)
        return 1
    if onnx.startswith(b"RKNN") or onnx.startswith(MAGIC):
        print("make_standin_rknn: %s is already an .rknn file or a container, not an ONNX model" % a.model,
              file=sys.stderr)
        return 1
    header = {"target_platform": target, "npu_cores": npu_cores(target), "batch": a.batch, "onnx_bytes": len(onnx),
              "source": os.path.basename(a.model)}
    data = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + onnx
    folder = os.path.dirname(os.path.abspath(a.output))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".standin-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, a.output)  # atomic: never a half-written container
    except OSError as e:
        print("make_standin_rknn: cannot write %s: %s" % (a.output, e.strerror), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
