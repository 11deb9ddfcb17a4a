"""Building blocks shared by the zoo architectures.

Every "conv + BatchNorm + activation" unit of the source repositories is built here in its deploy form: one Conv2d
with a bias (the BatchNorm already folded into it, which is what rknn-toolkit's converter does anyway) followed by the
activation. That keeps the ONNX graphs identical in shape to a folded export and keeps the parameter count honest
(weights + one bias per output channel).
"""
import math

import torch
from torch import nn

ACTS = {
    "relu": nn.ReLU,
    "relu6": nn.ReLU6,
    "silu": nn.SiLU,  # exported as Sigmoid + Mul at opset 13, like every SiLU/Swish export
    "leaky0.1": lambda: nn.LeakyReLU(0.1),
    "leaky0": lambda: nn.LeakyReLU(0.0),  # biubug6 RetinaFace writes ReLU as LeakyReLU(negative_slope=0)
    "hardsigmoid": nn.Hardsigmoid,
}


def make_act(act):
    if act is None:
        return None
    if act not in ACTS:
        raise ValueError(f"unknown activation {act!r}")
    return ACTS[act]()


def make_divisible(x, divisor=8):
    """Channel rounding of the YOLOv5/v6/v7 width multiplier (ceil to a multiple of 8)."""
    return int(math.ceil(x / divisor) * divisor)


def _same_pad(k, d=1):
    if isinstance(k, int):
        return d * (k - 1) // 2
    return tuple(d * (kk - 1) // 2 for kk in k)


class ConvAct(nn.Sequential):
    """Conv2d (BatchNorm folded, so bias=True) + optional activation; padding defaults to 'same' for odd kernels."""

    def __init__(self, cin, cout, k=1, s=1, p=None, g=1, d=1, act="relu", bias=True):
        layers = [nn.Conv2d(cin, cout, k, s, _same_pad(k, d) if p is None else p, dilation=d, groups=g, bias=bias)]
        a = make_act(act)
        if a is not None:
            layers.append(a)
        super().__init__(*layers)
        self.cout = cout


def upsample2x():
    """Nearest-neighbour x2 upsampling (ONNX Resize), as YOLOv5/v7/X and PP-YOLOE use it."""
    return nn.Upsample(scale_factor=2.0, mode="nearest")


class MaxPoolCascade(nn.Module):
    """SPPF-style pooling: three chained stride-1 max-pools of kernel k, returning [x, p1, p2, p3] concatenated.

    With k=5 this equals parallel pools of 5, 9 and 13 (a 5x5 max-pool applied twice is a 9x9 one)."""

    def __init__(self, k=5):
        super().__init__()
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        y1 = self.m(x)
        y2 = self.m(y1)
        return torch.cat([x, y1, y2, self.m(y2)], 1)


class MaxPoolParallel(nn.Module):
    """SPP: parallel stride-1 max-pools of several kernels, returning [x, pools...] concatenated."""

    def __init__(self, ks=(5, 9, 13)):
        super().__init__()
        self.m = nn.ModuleList(nn.MaxPool2d(k, 1, k // 2) for k in ks)

    def forward(self, x):
        return torch.cat([x] + [m(x) for m in self.m], 1)


def score_sum(cls_prob):
    """The RKNN exports' extra 'score sum' output: clamp(sum over classes, 0, 1), one channel (ReduceSum + Clip)."""
    return torch.clamp(cls_prob.sum(1, keepdim=True), 0.0, 1.0)


@torch.no_grad()
def randomize_constant_inits(model):
    """Random-but-plausible values for everything PyTorch initializes to a constant (BatchNorm affine parameters and
    statistics, YOLOv6's BottleRep alpha). Otherwise torch.onnx.export folds BatchNorms into all-zero conv biases and
    then de-duplicates equal initializers behind Identity nodes, which neither the zoo files nor a trained model have.
    Uses the global (seeded) RNG, so exports stay deterministic."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            if m.affine:
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
            if m.track_running_stats:
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    for p in model.parameters():
        flat = p.reshape(-1)
        if flat.numel() > 0 and bool(torch.all(flat == flat[0])):
            p.uniform_(0.5, 1.5)
