"""RetinaFace as rknn_model_zoo benchmarks it: biubug6/Pytorch_Retinaface (models/retinaface.py, models/net.py,
data/config.py cfg_mnet / cfg_re50), exported at 320x320 in its test phase.

  * backbone: MobileNetV1 x0.25 (net.py MobileNetV1: conv_bn 3->8/2 with LeakyReLU 0.1, then depthwise-separable
    conv_dw blocks, LeakyReLU 0.1; stage1/2/3 return 64/128/256 channels at strides 8/16/32) or torchvision ResNet-50
    (layer2/3/4: 512/1024/2048 channels). The classifier parts (MobileNetV1's avgpool/fc, ResNet's avgpool/fc) are not
    in the graph: IntermediateLayerGetter stops at the last returned stage.
  * FPN (out 64 for mobilenet, 256 for resnet; LeakyReLU 0.1 when out <= 64, else LeakyReLU 0): 1x1 laterals, nearest
    upsampling + add, 3x3 merges.
  * SSH context module per level: 3x3 (out/2) || 3x3 (out/4) -> 3x3 || -> 3x3 -> 3x3, concat, ReLU.
  * heads: 1x1 convs with 2 anchors per cell -> class (2), box (4), landmarks (10), permuted to NHWC and reshaped,
    concatenated over the three levels: loc [1, 4200, 4], conf [1, 4200, 2] after the test-phase softmax (the zoo's
    Python demo reads conf[:, 1] as the face score), landmarks [1, 4200, 10]. Prior-box decoding and NMS are on the CPU
    (examples/RetinaFace/python/RetinaFace.py).
BatchNorms follow convs and are folded.
"""
import torch
from torch import nn

from layers import ConvAct

NUM_ANCHORS = 2


def _conv_dw(cin, cout, stride, leaky="leaky0.1"):
    return nn.Sequential(ConvAct(cin, cin, 3, stride, g=cin, act=leaky), ConvAct(cin, cout, 1, act=leaky))


class MobileNetV1x025(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Sequential(ConvAct(3, 8, 3, 2, act="leaky0.1"), _conv_dw(8, 16, 1), _conv_dw(16, 32, 2),
                                    _conv_dw(32, 32, 1), _conv_dw(32, 64, 2), _conv_dw(64, 64, 1))
        self.stage2 = nn.Sequential(_conv_dw(64, 128, 2), *(_conv_dw(128, 128, 1) for _ in range(5)))
        self.stage3 = nn.Sequential(_conv_dw(128, 256, 2), _conv_dw(256, 256, 1))

    def forward(self, x):
        c3 = self.stage1(x)
        c4 = self.stage2(c3)
        return c3, c4, self.stage3(c4)


class ResNet50Body(nn.Module):
    def __init__(self):
        super().__init__()
        import torchvision

        r = torchvision.models.resnet50(weights=None)
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool, r.layer1)
        self.layer2, self.layer3, self.layer4 = r.layer2, r.layer3, r.layer4

    def forward(self, x):
        c3 = self.layer2(self.stem(x))
        c4 = self.layer3(c3)
        return c3, c4, self.layer4(c4)


class SSH(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        leaky = "leaky0.1" if cout <= 64 else "leaky0"
        self.conv3x3 = ConvAct(cin, cout // 2, 3, act=None)
        self.conv5x5_1 = ConvAct(cin, cout // 4, 3, act=leaky)
        self.conv5x5_2 = ConvAct(cout // 4, cout // 4, 3, act=None)
        self.conv7x7_2 = ConvAct(cout // 4, cout // 4, 3, act=leaky)
        self.conv7x7_3 = ConvAct(cout // 4, cout // 4, 3, act=None)

    def forward(self, x):
        c5_1 = self.conv5x5_1(x)
        out = torch.cat([self.conv3x3(x), self.conv5x5_2(c5_1), self.conv7x7_3(self.conv7x7_2(c5_1))], 1)
        return torch.relu(out)


class RetinaFace(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        if backbone == "mobilenet0.25":
            self.body, cin, cout = MobileNetV1x025(), 32, 64
        elif backbone == "resnet50":
            self.body, cin, cout = ResNet50Body(), 256, 256
        else:
            raise ValueError(backbone)
        leaky = "leaky0.1" if cout <= 64 else "leaky0"
        ins = [cin * 2, cin * 4, cin * 8]
        self.output1, self.output2, self.output3 = (ConvAct(c, cout, 1, act=leaky) for c in ins)
        self.merge1, self.merge2 = ConvAct(cout, cout, 3, act=leaky), ConvAct(cout, cout, 3, act=leaky)
        self.ssh = nn.ModuleList(SSH(cout, cout) for _ in range(3))
        self.bbox = nn.ModuleList(nn.Conv2d(cout, NUM_ANCHORS * 4, 1) for _ in range(3))
        self.cls = nn.ModuleList(nn.Conv2d(cout, NUM_ANCHORS * 2, 1) for _ in range(3))
        self.ldm = nn.ModuleList(nn.Conv2d(cout, NUM_ANCHORS * 10, 1) for _ in range(3))

    def forward(self, x):
        c3, c4, c5 = self.body(x)
        o1, o2, o3 = self.output1(c3), self.output2(c4), self.output3(c5)
        o2 = self.merge2(o2 + nn.functional.interpolate(o3, scale_factor=2.0, mode="nearest"))
        o1 = self.merge1(o1 + nn.functional.interpolate(o2, scale_factor=2.0, mode="nearest"))
        feats = [ssh(f) for ssh, f in zip(self.ssh, (o1, o2, o3))]

        def head(convs, k):
            return torch.cat([c(f).permute(0, 2, 3, 1).reshape(1, -1, k) for c, f in zip(convs, feats)], 1)

        return head(self.bbox, 4), torch.softmax(head(self.cls, 2), -1), head(self.ldm, 10)


def retinaface(backbone):
    """Simplification: biubug6 upsamples with F.interpolate(size=<lateral's H, W>, mode='nearest'); at 320x320 every
    level is exactly twice the next, so a constant x2 nearest Resize gives the same tensor without Shape ops."""
    return RetinaFace(backbone)
