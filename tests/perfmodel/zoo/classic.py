"""Classification, segmentation and OCR models of the rknn_model_zoo benchmark: mobilenetv2-12, resnet50-v2-7,
deeplab-v3-plus-mobilenet-v2 and lprnet."""
import torch
from torch import nn

from layers import ConvAct


# =====================================================================================================================
# mobilenetv2-12: the ONNX model zoo's MobileNetV2 1.0 (converted from Gluon's mobilenetv2_1.0), which has the layer
# shapes of torchvision's mobilenet_v2 (ReLU6, 17 inverted residuals, 1280-channel last conv, 1000-way classifier).
# Source followed: torchvision.models.mobilenet_v2(weights=None). Simplification: Gluon's classifier is a 1x1 conv
# (no bias) + Flatten where torchvision has a Linear (Gemm): same MACs, 1000 more parameters (the bias).
# =====================================================================================================================
def mobilenetv2():
    import torchvision

    return torchvision.models.mobilenet_v2(weights=None)


# =====================================================================================================================
# resnet50-v2-7: ResNet-50 v2 (pre-activation, He et al. 2016 "Identity Mappings") as the ONNX model zoo exported it
# from MXNet Gluon's resnet50_v2 (gluon model_zoo vision/resnet.py: ResNetV2 + BottleneckV2): a parameter-free
# BatchNorm on the data, 7x7/2 conv + BN + ReLU + 3x3/2 max-pool, bottlenecks BN-ReLU-1x1, BN-ReLU-3x3(stride),
# BN-ReLU-1x1 with the projection shortcut taken from the pre-activated input, then BN-ReLU, global pool and a Dense.
# The BatchNorms that follow an Add (data BN, the first BN of each bottleneck, the final one) cannot be folded into a
# conv, so they stay BatchNormalization nodes (18 of them); the ones after convs are folded, as rknn's converter does.
# =====================================================================================================================
class BottleneckV2(nn.Module):
    def __init__(self, cin, cout, stride, downsample):
        super().__init__()
        mid = cout // 4
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, mid, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(mid)
        self.conv2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(mid)
        self.conv3 = nn.Conv2d(mid, cout, 1, bias=False)
        self.downsample = nn.Conv2d(cin, cout, 1, stride, bias=False) if downsample else None
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        x = self.relu(self.bn1(x))
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(self.relu(self.bn2(x)))
        x = self.conv3(self.relu(self.bn3(x)))
        return x + residual


class ResNetV2(nn.Module):
    def __init__(self, layers=(3, 4, 6, 3), channels=(64, 256, 512, 1024, 2048), classes=1000):
        super().__init__()
        data_bn = nn.BatchNorm2d(3, affine=False)  # Gluon: BatchNorm(scale=False, center=False)
        feats = [data_bn, nn.Conv2d(3, channels[0], 7, 2, 3, bias=False), nn.BatchNorm2d(channels[0]), nn.ReLU(),
                 nn.MaxPool2d(3, 2, 1)]
        cin = channels[0]
        for i, n in enumerate(layers):
            stride = 1 if i == 0 else 2
            cout = channels[i + 1]
            feats += [BottleneckV2(cin, cout, stride, cout != cin)]
            feats += [BottleneckV2(cout, cout, 1, False) for _ in range(n - 1)]
            cin = cout
        feats += [nn.BatchNorm2d(cin), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()]
        self.features = nn.Sequential(*feats)
        self.output = nn.Linear(cin, classes)

    def forward(self, x):
        return self.output(self.features(x))


def resnet50_v2():
    return ResNetV2()


# =====================================================================================================================
# deeplab-v3-plus-mobilenet-v2: TensorFlow DeepLab (tensorflow/models research/deeplab, model_zoo.md checkpoint
# "mobilenetv2_coco_voc_trainaug": MobileNet-v2 depth multiplier 1.0, no atrous ASPP branches, no decoder, 21
# classes). The zoo converts the frozen .pb cut at input 'sub_7' (the normalized image; rknn config mean/std 127.5)
# and output 'logits/semantic/BiasAdd', input_size_list [[1, 513, 513, 3]] (examples/deeplabv3/python/convert.py).
# The C demo reads 65x65 logits, i.e. the graph runs at output stride 8: MobileNetV2 up to layer_18 (the 320-channel
# block, no 1280 conv), strides after 1/8 turned into atrous rates 2 then 4 (TF-slim's output_stride logic); head =
# image-level pooling (avg pool + 1x1 conv 256 + bilinear resize) || 1x1 conv 256, concat, 1x1 projection 256, then
# the 1x1 'logits/semantic' conv to 21 classes. BN + ReLU6 / ReLU as in TF-slim, folded.
# Input: the benchmark CSV says 1x513x513x1, but the converter feeds 3 channels (NHWC 1x513x513x3); this ONNX takes
# that NHWC tensor and transposes to NCHW first, and transposes the logits back to NHWC [1, 65, 65, 21] at the end,
# standing in for TensorFlow's native NHWC layout.
# =====================================================================================================================
MNV2_CFG = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
            (6, 320, 1, 1)]  # expansion t, channels c, repeats n, first stride s


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, t, dilation):
        super().__init__()
        hid = cin * t
        layers = [ConvAct(cin, hid, 1, act="relu6")] if t != 1 else []
        layers += [ConvAct(hid, hid, 3, stride, g=hid, d=dilation, act="relu6"), ConvAct(hid, cout, 1, act=None)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.conv(x)
        return x + y if self.residual else y


class DeepLabV3MobileNetV2(nn.Module):
    def __init__(self, output_stride=8, classes=21, depth=256):
        super().__init__()
        layers = [ConvAct(3, 32, 3, 2, act="relu6")]
        cur, rate, cin = 2, 1, 32
        for t, c, n, s in MNV2_CFG:
            for i in range(n):
                stride = s if i == 0 else 1
                layer_rate = 1
                if stride > 1 and cur >= output_stride:  # TF-slim: keep resolution, dilate what follows
                    layer_stride, layer_rate, rate = 1, rate, rate * stride
                else:
                    layer_stride, layer_rate = stride, rate
                    cur *= stride
                layers.append(InvertedResidual(cin, c, layer_stride, t, layer_rate))
                cin = c
        self.backbone = nn.Sequential(*layers)
        self.image_pool = ConvAct(cin, depth, 1, act="relu")
        self.aspp0 = ConvAct(cin, depth, 1, act="relu")
        self.concat_projection = ConvAct(2 * depth, depth, 1, act="relu")
        self.logits = nn.Conv2d(depth, classes, 1)

    def forward(self, x):
        f = self.backbone(x.permute(0, 3, 1, 2))
        h, w = (int(d) for d in f.shape[-2:])  # static: the input shape is fixed
        pooled = self.image_pool(nn.functional.adaptive_avg_pool2d(f, 1))
        # TF's resize_bilinear of the 1x1 pooled feature back to h x w, exported as a Resize with constant scales
        pooled = nn.functional.interpolate(pooled, scale_factor=(float(h), float(w)), mode="bilinear",
                                           align_corners=True)
        y = self.concat_projection(torch.cat([pooled, self.aspp0(f)], 1))
        return self.logits(y).permute(0, 2, 3, 1)


def deeplabv3_mnv2(output_stride=8):
    return DeepLabV3MobileNetV2(output_stride)


# =====================================================================================================================
# lprnet: sirius-ai/LPRNet_Pytorch (model/LPRNet.py) as rknn_model_zoo examples/LPRNet/python/export_onnx.py defines it
# for export: class_num 68, dropout 0, input 1x3x24x94, output [1, 68, 18] logits (CTC decoding on the CPU). The
# 3-D max-pools (which also stride over channels) are written, as in the zoo's export script, as a 2-D spatial max-pool
# plus a channel-axis max-pool between two transposes; the small basic blocks are 1x1 / 3x1 / 1x3 / 1x1 convs; the
# global context is four feature maps average-pooled to 4x18, each divided by its mean square, concatenated and mixed
# by a 1x1 conv, then averaged over height. BatchNorms follow convs and are folded.
# =====================================================================================================================
class MaxPool3dAs2d(nn.Module):
    def __init__(self, kernel, stride):
        super().__init__()
        self.spatial = nn.MaxPool2d(kernel[1:], stride[1:])
        self.channel = nn.MaxPool2d((kernel[0], kernel[0]), (kernel[0], stride[0]))

    def forward(self, x):
        x = self.spatial(x)
        return self.channel(x.transpose(1, 3)).transpose(1, 3)


def _small_basic_block(cin, cout):
    q = cout // 4
    return nn.Sequential(ConvAct(cin, q, 1), ConvAct(q, q, (3, 1)), ConvAct(q, q, (1, 3)),
                         ConvAct(q, cout, 1, act=None))


class LPRNet(nn.Module):
    def __init__(self, class_num=68):
        super().__init__()
        self.stage0 = ConvAct(3, 64, 3, p=0)                                     # keep 0 (64 x 22 x 92)
        self.stage1 = nn.Sequential(MaxPool3dAs2d((1, 3, 3), (1, 1, 1)),
                                    _small_basic_block(64, 128), nn.ReLU())      # keep 1 (128 x 20 x 90)
        self.stage2 = nn.Sequential(MaxPool3dAs2d((1, 3, 3), (2, 1, 2)), _small_basic_block(64, 256), nn.ReLU(),
                                    _small_basic_block(256, 256), nn.ReLU())     # keep 2 (256 x 18 x 44)
        self.stage3 = nn.Sequential(MaxPool3dAs2d((1, 3, 3), (4, 1, 2)), ConvAct(64, 256, (1, 4), p=0),
                                    ConvAct(256, class_num, (13, 1), p=0))      # keep 3 (68 x 4 x 18)
        self.pool01 = nn.AvgPool2d(5, 5)
        self.pool2 = nn.AvgPool2d((4, 10), (4, 2))
        self.container = nn.Conv2d(64 + 128 + 256 + class_num, class_num, 1)

    def forward(self, x):
        k0 = self.stage0(x)
        k1 = self.stage1(k0)
        k2 = self.stage2(k1)
        k3 = self.stage3(k2)
        ctx = []
        for f in (self.pool01(k0), self.pool01(k1), self.pool2(k2), k3):
            ctx.append(f / torch.mean(torch.pow(f, 2)))
        return torch.mean(self.container(torch.cat(ctx, 1)), dim=2)


def lprnet():
    return LPRNet()
