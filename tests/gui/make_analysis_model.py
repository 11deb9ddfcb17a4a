#!/usr/bin/python3
"""Writes the Estimate/Suggestions test model: a small conv net with a ShuffleNet channel shuffle
(Reshape-Transpose-Reshape, RKNN SDK user guide V2.5.0, 5.2.4.1) and a Relu behind it, so the advisor has a finding a pass can fix and
the GUI can apply and undo it; and two HardSwish activations spelled out as exporters write them
(x * clip(x + 3, 0, 6) / 6), two sites of one pass, so the GUI can rewrite one site and leave the other. Exported by
torch.onnx, so no binary lives in the tree."""
import sys

import torch
from torch import nn


def spelled_out_hardswish(x):
    return x * torch.clamp(x + 3.0, 0.0, 6.0) / 6.0


class ShuffleNetLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.conv = nn.Conv2d(16, 16, 3, padding=1)
        self.mix1 = nn.Conv2d(16, 16, 1)
        self.mix2 = nn.Conv2d(16, 16, 1)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    def forward(self, x):
        x = self.stem(x)
        n, c, h, w = x.shape
        x = x.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)  # channel shuffle
        x = torch.relu(self.conv(x))
        x = spelled_out_hardswish(self.mix1(x))
        x = spelled_out_hardswish(self.mix2(x))
        return self.head(x)


def main():
    torch.manual_seed(0)
    torch.onnx.export(ShuffleNetLike().eval(), torch.randn(1, 3, 32, 32), sys.argv[1], opset_version=13,
                      input_names=["image"], output_names=["logits"])


if __name__ == "__main__":
    main()
