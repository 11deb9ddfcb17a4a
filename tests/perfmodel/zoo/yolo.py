"""Anchor-based YOLOs of the rknn_model_zoo benchmark: YOLOv5 n/s/m (+ the ReLU variant of s) and YOLOv7 / -tiny.

Both families are described by their upstream model YAMLs; the layer tables below transcribe those YAMLs and a small
parser (the same rules as the upstream `parse_model`: channels scaled by the width multiple and rounded up to a
multiple of 8, repeats scaled by the depth multiple) builds the network.

Export convention (rknn_model_zoo examples/yolov5 and examples/yolov7, airockchip/yolov5 README_rkopt and the
`RKNN_model_hack` branch of the forks' Detect.forward): the model ends at the three Detect 1x1 convolutions, each
followed by a Sigmoid; the outputs are [1, 3*(80+5), H, W] for H = 80, 40, 20. Grid/anchor decoding, the reshape to
[1, N, 85] and NMS are all done on the CPU by the zoo's post-processing.
"""
import torch
from torch import nn

from layers import ConvAct, MaxPoolCascade, make_divisible, upsample2x

NC, NA = 80, 3  # COCO classes, anchors per level

# ---------------------------------------------------------------------------------------------------------------
# YOLOv5 v7.0 (ultralytics/yolov5 tag v7.0, models/yolov5s.yaml; the rknn fork airockchip/yolov5 is based on commit
# 915bbf2 of that tag). Rows are (from, repeats, kind, args) exactly as in the YAML.
# ---------------------------------------------------------------------------------------------------------------
YOLOV5 = [
    (-1, 1, "conv", [64, 6, 2, 2]),     # 0-P1/2 (the v6.0+ 6x6 stem that replaced Focus)
    (-1, 1, "conv", [128, 3, 2]),       # 1-P2/4
    (-1, 3, "c3", [128]),
    (-1, 1, "conv", [256, 3, 2]),       # 3-P3/8
    (-1, 6, "c3", [256]),
    (-1, 1, "conv", [512, 3, 2]),       # 5-P4/16
    (-1, 9, "c3", [512]),
    (-1, 1, "conv", [1024, 3, 2]),      # 7-P5/32
    (-1, 3, "c3", [1024]),
    (-1, 1, "sppf", [1024, 5]),         # 9
    (-1, 1, "conv", [512, 1, 1]),       # 10
    (-1, 1, "up", []),
    ([-1, 6], 1, "cat", []),
    (-1, 3, "c3", [512, False]),        # 13
    (-1, 1, "conv", [256, 1, 1]),       # 14
    (-1, 1, "up", []),
    ([-1, 4], 1, "cat", []),
    (-1, 3, "c3", [256, False]),        # 17 (P3/8)
    (-1, 1, "conv", [256, 3, 2]),
    ([-1, 14], 1, "cat", []),
    (-1, 3, "c3", [512, False]),        # 20 (P4/16)
    (-1, 1, "conv", [512, 3, 2]),
    ([-1, 10], 1, "cat", []),
    (-1, 3, "c3", [1024, False]),       # 23 (P5/32)
]
YOLOV5_DETECT = [17, 20, 23]


def _elan(c_branch, c_mid, c_out, n_mid=4, cat=(-1, -3, -5, -6)):
    """Helper for the YOLOv7 E-ELAN rows: two 1x1 branches, a chain of 3x3s, a concat, a 1x1 fuse."""
    rows = [(-1, 1, "conv", [c_branch, 1, 1]), (-2, 1, "conv", [c_branch, 1, 1])]
    rows += [(-1, 1, "conv", [c_mid, 3, 1])] * n_mid
    rows += [(list(cat), 1, "cat", []), (-1, 1, "conv", [c_out, 1, 1])]
    return rows


def _mp_down(c):
    """YOLOv7 MP-Conv transition: max-pool branch and strided-conv branch, concatenated (5 rows)."""
    return [(-1, 1, "mp", []), (-1, 1, "conv", [c, 1, 1]), (-3, 1, "conv", [c, 1, 1]),
            (-1, 1, "conv", [c, 3, 2])]


# ---------------------------------------------------------------------------------------------------------------
# YOLOv7 (WongKinYiu/yolov7 cfg/deploy/yolov7.yaml, the re-parameterized deploy form: RepConv is one 3x3 conv and
# IDetect's implicit layers are folded into Detect). Index comments are the YAML's layer numbers.
# ---------------------------------------------------------------------------------------------------------------
YOLOV7 = (
    [(-1, 1, "conv", [32, 3, 1]), (-1, 1, "conv", [64, 3, 2]), (-1, 1, "conv", [64, 3, 1]),
     (-1, 1, "conv", [128, 3, 2])]                                                  # 0-3
    + _elan(64, 64, 256)                                                            # 4-11
    + _mp_down(128) + [([-1, -3], 1, "cat", [])] + _elan(128, 128, 512)             # 12-24
    + _mp_down(256) + [([-1, -3], 1, "cat", [])] + _elan(256, 256, 1024)            # 25-37
    + _mp_down(512) + [([-1, -3], 1, "cat", [])] + _elan(256, 256, 1024)            # 38-50
    + [(-1, 1, "sppcspc", [512]),                                                   # 51
       (-1, 1, "conv", [256, 1, 1]), (-1, 1, "up", []), (37, 1, "conv", [256, 1, 1]),
       ([-1, -2], 1, "cat", [])]                                                    # 52-55
    + _elan(256, 128, 256, cat=(-1, -2, -3, -4, -5, -6))                            # 56-63
    + [(-1, 1, "conv", [128, 1, 1]), (-1, 1, "up", []), (24, 1, "conv", [128, 1, 1]),
       ([-1, -2], 1, "cat", [])]                                                    # 64-67
    + _elan(128, 64, 128, cat=(-1, -2, -3, -4, -5, -6))                             # 68-75
    + _mp_down(128) + [([-1, -3, 63], 1, "cat", [])]                                # 76-80
    + _elan(256, 128, 256, cat=(-1, -2, -3, -4, -5, -6))                            # 81-88
    + _mp_down(256) + [([-1, -3, 51], 1, "cat", [])]                                # 89-93
    + _elan(512, 256, 512, cat=(-1, -2, -3, -4, -5, -6))                            # 94-101
    + [(75, 1, "conv", [256, 3, 1]), (88, 1, "conv", [512, 3, 1]),
       (101, 1, "conv", [1024, 3, 1])]                                              # 102-104 RepConv (deploy)
)
YOLOV7_DETECT = [102, 103, 104]


def _tiny_elan(c_branch, c_out):
    rows = [(-1, 1, "conv", [c_branch, 1, 1]), (-2, 1, "conv", [c_branch, 1, 1]),
            (-1, 1, "conv", [c_branch, 3, 1]), (-1, 1, "conv", [c_branch, 3, 1])]
    return rows + [([-1, -2, -3, -4], 1, "cat", []), (-1, 1, "conv", [c_out, 1, 1])]


# ---------------------------------------------------------------------------------------------------------------
# YOLOv7-tiny (WongKinYiu/yolov7 cfg/deploy/yolov7-tiny.yaml): every conv uses LeakyReLU(0.1).
# ---------------------------------------------------------------------------------------------------------------
YOLOV7_TINY = (
    [(-1, 1, "conv", [32, 3, 2]), (-1, 1, "conv", [64, 3, 2])]                      # 0-1
    + _tiny_elan(32, 64)                                                            # 2-7
    + [(-1, 1, "mp", [])] + _tiny_elan(64, 128)                                     # 8-14
    + [(-1, 1, "mp", [])] + _tiny_elan(128, 256)                                    # 15-21
    + [(-1, 1, "mp", [])] + _tiny_elan(256, 512)                                    # 22-28
    + [(-1, 1, "conv", [256, 1, 1]), (-2, 1, "conv", [256, 1, 1]),                  # 29-30
       (-1, 1, "sp", [5]), (-2, 1, "sp", [9]), (-3, 1, "sp", [13]),                 # 31-33
       ([-1, -2, -3, -4], 1, "cat", []), (-1, 1, "conv", [256, 1, 1]),              # 34-35
       ([-1, -7], 1, "cat", []), (-1, 1, "conv", [256, 1, 1]),                      # 36-37
       (-1, 1, "conv", [128, 1, 1]), (-1, 1, "up", []), (21, 1, "conv", [128, 1, 1]),
       ([-1, -2], 1, "cat", [])]                                                    # 38-41
    + _tiny_elan(64, 128)                                                           # 42-47
    + [(-1, 1, "conv", [64, 1, 1]), (-1, 1, "up", []), (14, 1, "conv", [64, 1, 1]),
       ([-1, -2], 1, "cat", [])]                                                    # 48-51
    + _tiny_elan(32, 64)                                                            # 52-57
    + [(-1, 1, "conv", [128, 3, 2]), ([-1, 47], 1, "cat", [])] + _tiny_elan(64, 128)     # 58-65
    + [(-1, 1, "conv", [256, 3, 2]), ([-1, 37], 1, "cat", [])] + _tiny_elan(128, 256)    # 66-73
    + [(57, 1, "conv", [128, 3, 1]), (65, 1, "conv", [256, 3, 1]), (73, 1, "conv", [512, 3, 1])]  # 74-76
)
YOLOV7_TINY_DETECT = [74, 75, 76]


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut, act):
        super().__init__()
        self.cv1 = ConvAct(c, c, 1, act=act)
        self.cv2 = ConvAct(c, c, 3, act=act)
        self.add = shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C3(nn.Module):
    """YOLOv5 C3 (CSP bottleneck with 3 convs, hidden width c2/2, bottlenecks with expansion 1.0)."""

    def __init__(self, c1, c2, n, shortcut, act):
        super().__init__()
        c_ = c2 // 2
        self.cv1 = ConvAct(c1, c_, 1, act=act)
        self.cv2 = ConvAct(c1, c_, 1, act=act)
        self.cv3 = ConvAct(2 * c_, c2, 1, act=act)
        self.m = nn.Sequential(*(Bottleneck(c_, shortcut, act) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat([self.m(self.cv1(x)), self.cv2(x)], 1))


class SPPF(nn.Module):
    """YOLOv5 SPPF: 1x1 to c1/2, three chained 5x5 max-pools, concat, 1x1."""

    def __init__(self, c1, c2, k, act):
        super().__init__()
        c_ = c1 // 2
        self.cv1 = ConvAct(c1, c_, 1, act=act)
        self.pool = MaxPoolCascade(k)
        self.cv2 = ConvAct(4 * c_, c2, 1, act=act)

    def forward(self, x):
        return self.cv2(self.pool(self.cv1(x)))


class SPPCSPC(nn.Module):
    """YOLOv7 SPPCSPC (models/common.py): CSP split around an SPP with parallel 5/9/13 max-pools."""

    def __init__(self, c1, c2, act):
        super().__init__()
        c_ = c2  # int(2 * c2 * e) with e = 0.5
        self.cv1 = ConvAct(c1, c_, 1, act=act)
        self.cv2 = ConvAct(c1, c_, 1, act=act)
        self.cv3 = ConvAct(c_, c_, 3, act=act)
        self.cv4 = ConvAct(c_, c_, 1, act=act)
        self.pools = nn.ModuleList(nn.MaxPool2d(k, 1, k // 2) for k in (5, 9, 13))
        self.cv5 = ConvAct(4 * c_, c_, 1, act=act)
        self.cv6 = ConvAct(c_, c_, 3, act=act)
        self.cv7 = ConvAct(2 * c_, c2, 1, act=act)

    def forward(self, x):
        x1 = self.cv4(self.cv3(self.cv1(x)))
        y1 = self.cv6(self.cv5(torch.cat([x1] + [m(x1) for m in self.pools], 1)))
        return self.cv7(torch.cat([y1, self.cv2(x)], 1))


class YamlYolo(nn.Module):
    """Builds a network from (from, repeats, kind, args) rows and ends in the RKNN-style Detect (conv + sigmoid)."""

    def __init__(self, rows, detect_from, act, depth=1.0, width=1.0):
        super().__init__()
        chans, self.froms, mods = [], [], []
        for i, (f, n, kind, args) in enumerate(rows):
            def cin_of(j):
                return 3 if (i == 0 and j == -1) else chans[j if j >= 0 else i + j]
            cin = [cin_of(j) for j in f] if isinstance(f, list) else cin_of(f)
            n = max(round(n * depth), 1) if n > 1 else n
            if kind in ("conv", "c3", "sppf", "sppcspc"):
                c2 = make_divisible(args[0] * width, 8)
            if kind == "conv":
                k = args[1] if len(args) > 1 else 1
                s = args[2] if len(args) > 2 else 1
                p = args[3] if len(args) > 3 else None
                m = ConvAct(cin, c2, k, s, p, act=act)
            elif kind == "c3":
                m = C3(cin, c2, n, args[1] if len(args) > 1 else True, act)
            elif kind == "sppf":
                m = SPPF(cin, c2, args[1], act)
            elif kind == "sppcspc":
                m = SPPCSPC(cin, c2, act)
            elif kind == "mp":
                m, c2 = nn.MaxPool2d(2, 2), cin
            elif kind == "sp":
                m, c2 = nn.MaxPool2d(args[0], 1, args[0] // 2), cin
            elif kind == "up":
                m, c2 = upsample2x(), cin
            elif kind == "cat":
                m, c2 = None, sum(cin)
            else:
                raise ValueError(kind)
            mods.append(m if m is not None else nn.Identity())
            self.froms.append(f)
            chans.append(c2)
        self.layers = nn.ModuleList(mods)
        self.detect_from = detect_from
        self.detect = nn.ModuleList(nn.Conv2d(chans[j], NA * (NC + 5), 1) for j in detect_from)

    def forward(self, x):
        ys = []
        for i, (f, m) in enumerate(zip(self.froms, self.layers)):
            if isinstance(f, list):
                inp = [ys[j if j >= 0 else i + j] for j in f]
                x = torch.cat(inp, 1)
            else:
                x = m(x if (i == 0 or f == -1) else ys[f if f >= 0 else i + f])
            ys.append(x)
        return tuple(det(ys[j]).sigmoid() for det, j in zip(self.detect, self.detect_from))


def yolov5(depth, width, act="silu"):
    """YOLOv5 v7.0 (n: 0.33/0.25, s: 0.33/0.50, m: 0.67/0.75). act='relu' gives the zoo's yolov5s_relu, the
    airockchip fork's ReLU-activation variant (same layers, SiLU replaced by ReLU everywhere).

    Simplification: the airockchip fork rewrites SPPF's max-pools in an NPU-friendlier but numerically identical form
    ("optimize focus/SPPF block ... with same result"); we keep the upstream three chained 5x5 MaxPools."""
    return YamlYolo(YOLOV5, YOLOV5_DETECT, act, depth, width)


def yolov7():
    """YOLOv7 (cfg/deploy/yolov7.yaml, SiLU). Simplification: the SPPCSPC 5/9/13 max-pools are kept as upstream
    wrote them (the RKNN export may split the large kernels; that changes no MAC)."""
    return YamlYolo(YOLOV7, YOLOV7_DETECT, "silu")


def yolov7_tiny():
    """YOLOv7-tiny (cfg/deploy/yolov7-tiny.yaml, LeakyReLU(0.1))."""
    return YamlYolo(YOLOV7_TINY, YOLOV7_TINY_DETECT, "leaky0.1")
