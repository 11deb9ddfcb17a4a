#!/usr/bin/python3
"""Exports a YOLOv5-style Focus block (4 strided slices + concat, then Conv+BN+SiLU) to ONNX opset 13.

Random weights, fixed seed; run with Debian's /usr/bin/python3 (python3-torch).
"""
import os
import sys

import torch


class Focus(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(12, 16, 3, 1, 1, bias=False)
        self.bn = torch.nn.BatchNorm2d(16)
        self.act = torch.nn.SiLU()

    def forward(self, x):
        x = torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)
        return self.act(self.bn(self.conv(x)))


def main():
    path = sys.argv[1]
    torch.manual_seed(0)
    model = Focus().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    tmp = path + ".tmp"
    torch.onnx.export(model, torch.randn(1, 3, 64, 64), tmp, opset_version=13, input_names=["images"],
                      output_names=["features"], do_constant_folding=True)
    os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
