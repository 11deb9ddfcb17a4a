#!/usr/bin/python3
"""Makes resources/samples/tiny_mobilenet.onnx: a small MobileNet-style net (random weights, fixed seed) that ships
with the repository so the quick start works offline. Run with Debian's python (python3-torch)."""
import sys

import torch
from torch import nn


def block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU6(),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6())


class TinyMobileNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6())
        self.features = nn.Sequential(block(16, 24, 2), block(24, 32, 2), block(32, 32, 1), block(32, 64, 2),
                                      block(64, 96, 1), block(96, 128, 2))
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        x = self.features(self.stem(x))
        return torch.softmax(self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)), dim=1)


torch.manual_seed(7)
model = TinyMobileNet().eval()
for m in model.modules():  # non-trivial BN statistics so folding matters
    if isinstance(m, nn.BatchNorm2d):
        m.running_mean.uniform_(-0.1, 0.1)
        m.running_var.uniform_(0.5, 1.5)
out = sys.argv[1] if len(sys.argv) > 1 else "resources/samples/tiny_mobilenet.onnx"
torch.onnx.export(model, torch.randn(1, 3, 128, 128), out, opset_version=13, input_names=["image"],
                  output_names=["probabilities"])
print("wrote", out)
