#!/usr/bin/python3
"""Writes the GUI test's model: a small real conv net (conv/bn/relu/pool/residual add/linear/softmax)
exported by torch.onnx, so the test exercises a genuine exporter's output without committing a binary."""
import sys

import torch
from torch import nn


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.block = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10), nn.Softmax(dim=1))

    def forward(self, x):
        x = self.stem(x)
        x = torch.relu(x + self.block(x))
        return self.head(x)


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = SmallNet().eval()
    torch.onnx.export(model, torch.randn(1, 3, 32, 32), out, opset_version=13,
                      input_names=["image"], output_names=["probabilities"])


if __name__ == "__main__":
    main()
