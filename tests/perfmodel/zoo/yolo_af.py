"""Anchor-free detectors of the rknn_model_zoo benchmark: YOLOv6 3.0 (n/s/m), YOLOX (s/m), PP-YOLOE+ (s/m).

All three are built in their deploy form (RepVGG-style blocks re-parameterized into one 3x3 conv + bias, BatchNorm
folded) and cut where the zoo's RKNN exports cut them:
  * YOLOv6 / PP-YOLOE (airockchip/YOLOv6 RKOPT_README, rknn_model_zoo examples/ppyoloe/patch_for_model_export):
    per level the raw box-regression conv output (4 channels without DFL, 4*(reg_max+1) = 68 with DFL; the DFL
    softmax/projection moved to the CPU), the sigmoid class scores, and an extra score-sum branch
    clamp(sum_c cls, 0, 1). No anchors, no decoding, no NMS.
  * YOLOX (rknn_model_zoo examples/yolox; the airockchip YOLOX fork's RKNN_model_hack): per level
    concat([reg, sigmoid(obj), sigmoid(cls)]) = [1, 85, H, W], no grid decoding.
"""
import torch
from torch import nn

from layers import ConvAct, MaxPoolCascade, MaxPoolParallel, make_divisible, score_sum, upsample2x

NC = 80


# =====================================================================================================================
# YOLOv6 3.0  (meituan/YOLOv6: yolov6/models/efficientrep.py, reppan.py, layers/common.py, heads/
# effidehead_distill_ns.py (n, s) and effidehead.py / heads/effidehead_fuseab.py (m); configs/yolov6{n,s,m}.py).
#   n: depth 0.33 width 0.25, EfficientRep + RepBiFPANNeck, SimCSPSPPF, no DFL (4 box channels)
#   s: depth 0.33 width 0.50, same
#   m: depth 0.60 width 0.75, CSPBepBackbone + CSPRepBiFPANNeck (BepC3, csp_e 2/3), SimSPPF, DFL reg_max 16
# Deploy form: every RepVGGBlock is one 3x3 conv + bias + ReLU; ConvBNReLU/ConvBNSiLU are conv + bias + act.
# The training-only branches (the distillation DFL head of n/s, the anchor-based aux head of m) are not part of the
# exported graph, as in the upstream deploy export. BottleRep's learnable alpha is kept as a scalar Mul.
# =====================================================================================================================
def _rep(cin, cout, s=1):
    return ConvAct(cin, cout, 3, s, act="relu")  # RepVGGBlock after switch_to_deploy


class RepBlock(nn.Sequential):
    def __init__(self, cin, cout, n):
        super().__init__(_rep(cin, cout), *(_rep(cout, cout) for _ in range(n - 1)))


class BottleRep(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1, self.conv2 = _rep(cin, cout), _rep(cout, cout)
        self.shortcut = cin == cout
        self.alpha = nn.Parameter(torch.ones(1))

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        return y + self.alpha * x if self.shortcut else y


class BepC3(nn.Module):
    """CSPStackRep: 1x1 ConvBNReLU split, RepBlock(block=BottleRep) holding max(n//2, 1) BottleReps, 1x1 fuse."""

    def __init__(self, cin, cout, n, e):
        super().__init__()
        c_ = int(cout * e)
        self.cv1, self.cv2 = ConvAct(cin, c_, 1), ConvAct(cin, c_, 1)
        self.cv3 = ConvAct(2 * c_, cout, 1)
        self.m = nn.Sequential(*(BottleRep(c_, c_) for _ in range(max(n // 2, 1))))

    def forward(self, x):
        return self.cv3(torch.cat([self.m(self.cv1(x)), self.cv2(x)], 1))


class SimSPPF(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        c_ = cin // 2
        self.cv1, self.pool, self.cv2 = ConvAct(cin, c_, 1), MaxPoolCascade(5), ConvAct(4 * c_, cout, 1)

    def forward(self, x):
        return self.cv2(self.pool(self.cv1(x)))


class SimCSPSPPF(nn.Module):
    """CSPSPPFModule with ConvBNReLU (YOLOv6 3.0 n/s)."""

    def __init__(self, cin, cout, e=0.5):
        super().__init__()
        c_ = int(cout * e)
        self.cv1, self.cv2 = ConvAct(cin, c_, 1), ConvAct(cin, c_, 1)
        self.cv3, self.cv4 = ConvAct(c_, c_, 3), ConvAct(c_, c_, 1)
        self.pool = MaxPoolCascade(5)
        self.cv5, self.cv6 = ConvAct(4 * c_, c_, 1), ConvAct(c_, c_, 3)
        self.cv7 = ConvAct(2 * c_, cout, 1)

    def forward(self, x):
        x1 = self.cv4(self.cv3(self.cv1(x)))
        y3 = self.cv6(self.cv5(self.pool(x1)))
        return self.cv7(torch.cat([self.cv2(x), y3], 1))


class BiFusion(nn.Module):
    """Upsample (2x2 stride-2 ConvTranspose) the top feature, 1x1 the current one, 1x1 + 3x3/2 the lower one."""

    def __init__(self, c_cur, c_low, cout):
        super().__init__()
        self.cv1, self.cv2 = ConvAct(c_cur, cout, 1), ConvAct(c_low, cout, 1)
        self.cv3 = ConvAct(3 * cout, cout, 1)
        self.upsample = nn.ConvTranspose2d(cout, cout, 2, 2, bias=True)
        self.downsample = ConvAct(cout, cout, 3, 2)

    def forward(self, top, cur, low):
        return self.cv3(torch.cat([self.upsample(top), self.cv1(cur), self.downsample(self.cv2(low))], 1))


YOLOV6_SIZES = {  # depth, width, csp (BepC3 stages), csp_e, cspsppf, reg_max (0 = no DFL)
    "n": (0.33, 0.25, False, None, True, 0),
    "s": (0.33, 0.50, False, None, True, 0),
    "m": (0.60, 0.75, True, 2 / 3, False, 16),
}


class YOLOv6(nn.Module):
    def __init__(self, size):
        super().__init__()
        depth, width, csp, csp_e, cspsppf, reg_max = YOLOV6_SIZES[size]
        c = [make_divisible(x * width, 8) for x in (64, 128, 256, 512, 1024, 256, 128, 128, 256, 256, 512)]
        r = [(max(round(x * depth), 1) if x > 1 else x) for x in (1, 6, 12, 18, 6, 12, 12, 12, 12)]

        def stage(cin, cout, n):
            return BepC3(cin, cout, n, csp_e) if csp else RepBlock(cin, cout, n)

        self.stem = _rep(3, c[0], 2)
        self.erb2 = nn.Sequential(_rep(c[0], c[1], 2), stage(c[1], c[1], r[1]))
        self.erb3 = nn.Sequential(_rep(c[1], c[2], 2), stage(c[2], c[2], r[2]))
        self.erb4 = nn.Sequential(_rep(c[2], c[3], 2), stage(c[3], c[3], r[3]))
        self.erb5 = nn.Sequential(_rep(c[3], c[4], 2), stage(c[4], c[4], r[4]),
                                  SimCSPSPPF(c[4], c[4]) if cspsppf else SimSPPF(c[4], c[4]))
        # (CSP)RepBiFPANNeck
        self.reduce0 = ConvAct(c[4], c[5], 1)
        self.bif0 = BiFusion(c[3], c[2], c[5])
        self.rep_p4 = stage(c[5], c[5], r[5])
        self.reduce1 = ConvAct(c[5], c[6], 1)
        self.bif1 = BiFusion(c[2], c[1], c[6])
        self.rep_p3 = stage(c[6], c[6], r[6])
        self.down2 = ConvAct(c[6], c[7], 3, 2)
        self.rep_n3 = stage(c[6] + c[7], c[8], r[7])
        self.down1 = ConvAct(c[8], c[9], 3, 2)
        self.rep_n4 = stage(c[5] + c[9], c[10], r[8])
        # Efficient decoupled head (SiLU), one per level
        self.heads = nn.ModuleList()
        for ch in (c[6], c[8], c[10]):
            self.heads.append(nn.ModuleDict({
                "stem": ConvAct(ch, ch, 1, act="silu"),
                "cls_conv": ConvAct(ch, ch, 3, act="silu"), "reg_conv": ConvAct(ch, ch, 3, act="silu"),
                "cls_pred": nn.Conv2d(ch, NC, 1), "reg_pred": nn.Conv2d(ch, 4 * (reg_max + 1) if reg_max else 4, 1),
            }))

    def forward(self, x):
        c2 = self.erb2(self.stem(x))
        c3 = self.erb3(c2)
        c4 = self.erb4(c3)
        c5 = self.erb5(c4)
        fpn0 = self.reduce0(c5)
        f0 = self.rep_p4(self.bif0(fpn0, c4, c3))
        fpn1 = self.reduce1(f0)
        p3 = self.rep_p3(self.bif1(fpn1, c3, c2))
        p4 = self.rep_n3(torch.cat([self.down2(p3), fpn1], 1))
        p5 = self.rep_n4(torch.cat([self.down1(p4), fpn0], 1))
        outs = []
        for h, f in zip(self.heads, (p3, p4, p5)):
            f = h["stem"](f)
            cls = h["cls_pred"](h["cls_conv"](f)).sigmoid()
            outs += [h["reg_pred"](h["reg_conv"](f)), cls, score_sum(cls)]
        return tuple(outs)


def yolov6(size):
    """YOLOv6 3.0 in the airockchip/YOLOv6 RKNN export form (see module docstring)."""
    return YOLOv6(size)


# =====================================================================================================================
# YOLOX (Megvii-BaseDetection/YOLOX: yolox/models/darknet.py CSPDarknet, network_blocks.py, yolo_pafpn.py,
# yolo_head.py; exps/default/yolox_{s,m}.py: depth 0.33/0.67, width 0.50/0.75, SiLU).
# RKNN export (airockchip YOLOX fork, --rknpu / RKNN_model_hack; as summarized in derived repositories: "Focus ->
# Focus_conv (convolution replaces slicing), SPPBottleneck large-kernel split, YOLOXHead skips post-processing"):
# the stem here is a fixed one-hot 2x2/2 conv (3 -> 12 channels, Focus's channel order) followed by Focus's 3x3
# BaseConv; for the SPP we use three chained 5x5 max-pools, which give exactly the 5/9/13 pools (the fork's exact
# split was not available to check; no MAC depends on it); the head stops before grid decoding.
# =====================================================================================================================
class XBottleneck(nn.Module):
    def __init__(self, c, shortcut):
        super().__init__()
        self.conv1, self.conv2 = ConvAct(c, c, 1, act="silu"), ConvAct(c, c, 3, act="silu")
        self.add = shortcut

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        return x + y if self.add else y


class CSPLayer(nn.Module):
    def __init__(self, cin, cout, n, shortcut=True):
        super().__init__()
        h = int(cout * 0.5)
        self.conv1, self.conv2 = ConvAct(cin, h, 1, act="silu"), ConvAct(cin, h, 1, act="silu")
        self.conv3 = ConvAct(2 * h, cout, 1, act="silu")
        self.m = nn.Sequential(*(XBottleneck(h, shortcut) for _ in range(n)))

    def forward(self, x):
        return self.conv3(torch.cat([self.m(self.conv1(x)), self.conv2(x)], 1))


class SpaceToDepthConv(nn.Conv2d):
    """Focus slicing as a fixed 2x2 stride-2 conv: out[c + 3*k] = x[c, 2i+dy_k, 2j+dx_k], k over
    (top-left, bottom-left, top-right, bottom-right) as YOLOX's Focus concatenates them."""

    def __init__(self):
        super().__init__(3, 12, 2, 2, bias=False)
        w = torch.zeros(12, 3, 2, 2)
        for k, (dy, dx) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
            for ch in range(3):
                w[3 * k + ch, ch, dy, dx] = 1.0
        self.weight.data.copy_(w)


class YOLOX(nn.Module):
    def __init__(self, depth, width):
        super().__init__()
        b = int(64 * width)
        bd = max(round(depth * 3), 1)
        self.stem = nn.Sequential(SpaceToDepthConv(), ConvAct(12, b, 3, act="silu"))
        self.dark2 = nn.Sequential(ConvAct(b, 2 * b, 3, 2, act="silu"), CSPLayer(2 * b, 2 * b, bd))
        self.dark3 = nn.Sequential(ConvAct(2 * b, 4 * b, 3, 2, act="silu"), CSPLayer(4 * b, 4 * b, 3 * bd))
        self.dark4 = nn.Sequential(ConvAct(4 * b, 8 * b, 3, 2, act="silu"), CSPLayer(8 * b, 8 * b, 3 * bd))
        self.dark5 = nn.Sequential(
            ConvAct(8 * b, 16 * b, 3, 2, act="silu"),
            nn.Sequential(ConvAct(16 * b, 8 * b, 1, act="silu"), MaxPoolCascade(5),
                          ConvAct(32 * b, 16 * b, 1, act="silu")),  # SPPBottleneck
            CSPLayer(16 * b, 16 * b, bd, shortcut=False))
        c0, c1, c2 = (int(x * width) for x in (256, 512, 1024))
        n = round(3 * depth)
        self.lateral_conv0 = ConvAct(c2, c1, 1, act="silu")
        self.c3_p4 = CSPLayer(2 * c1, c1, n, False)
        self.reduce_conv1 = ConvAct(c1, c0, 1, act="silu")
        self.c3_p3 = CSPLayer(2 * c0, c0, n, False)
        self.bu_conv2 = ConvAct(c0, c0, 3, 2, act="silu")
        self.c3_n3 = CSPLayer(2 * c0, c1, n, False)
        self.bu_conv1 = ConvAct(c1, c1, 3, 2, act="silu")
        self.c3_n4 = CSPLayer(2 * c1, c2, n, False)
        self.up = upsample2x()
        hc = int(256 * width)
        self.heads = nn.ModuleList()
        for ch in (c0, c1, c2):
            self.heads.append(nn.ModuleDict({
                "stem": ConvAct(ch, hc, 1, act="silu"),
                "cls_convs": nn.Sequential(ConvAct(hc, hc, 3, act="silu"), ConvAct(hc, hc, 3, act="silu")),
                "reg_convs": nn.Sequential(ConvAct(hc, hc, 3, act="silu"), ConvAct(hc, hc, 3, act="silu")),
                "cls_pred": nn.Conv2d(hc, NC, 1), "reg_pred": nn.Conv2d(hc, 4, 1), "obj_pred": nn.Conv2d(hc, 1, 1),
            }))

    def forward(self, x):
        x2 = self.dark3(self.dark2(self.stem(x)))
        x1 = self.dark4(x2)
        x0 = self.dark5(x1)
        fpn_out0 = self.lateral_conv0(x0)
        f_out0 = self.c3_p4(torch.cat([self.up(fpn_out0), x1], 1))
        fpn_out1 = self.reduce_conv1(f_out0)
        pan_out2 = self.c3_p3(torch.cat([self.up(fpn_out1), x2], 1))
        pan_out1 = self.c3_n3(torch.cat([self.bu_conv2(pan_out2), fpn_out1], 1))
        pan_out0 = self.c3_n4(torch.cat([self.bu_conv1(pan_out1), fpn_out0], 1))
        outs = []
        for h, f in zip(self.heads, (pan_out2, pan_out1, pan_out0)):
            f = h["stem"](f)
            cls = h["cls_pred"](h["cls_convs"](f))
            reg_feat = h["reg_convs"](f)
            outs.append(torch.cat([h["reg_pred"](reg_feat), h["obj_pred"](reg_feat).sigmoid(), cls.sigmoid()], 1))
        return tuple(outs)


def yolox(depth, width):
    return YOLOX(depth, width)


# =====================================================================================================================
# PP-YOLOE+ (PaddleDetection release/2.5-2.6: ppdet/modeling/backbones/cspresnet.py, necks/custom_pan.py,
# heads/ppyoloe_head.py; configs/ppyoloe/ppyoloe_plus_crn_{s,m}_80e_coco.yml: depth 0.33/0.67, width 0.50/0.75,
# swish = SiLU, CSPResNet with large stem, use_alpha, ESE attention; CustomCSPPAN with SPP; ET-head with ESEAttn,
# reg_max 16). The zoo exports it with PaddleDetection's --rknn patch: DFL moved to the CPU (68-channel box output),
# sigmoid class scores, plus the score-sum branch. Levels come out in the head's order: stride 32, 16, 8.
# Deploy form: RepVggBlock (3x3 + 1x1 + alpha) is one 3x3 conv + bias.
# =====================================================================================================================
class ResBasicBlock(nn.Module):
    def __init__(self, c, shortcut):
        super().__init__()
        self.conv1 = ConvAct(c, c, 3, act="silu")
        self.conv2 = ConvAct(c, c, 3, act="silu")  # RepVggBlock, deploy
        self.shortcut = shortcut

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        return x + y if self.shortcut else y


class EffectiveSE(nn.Module):
    """x * hardsigmoid(fc(mean_hw(x))) with a 1x1 conv (bias) as fc."""

    def __init__(self, c):
        super().__init__()
        self.fc = nn.Conv2d(c, c, 1)
        self.act = nn.Hardsigmoid()

    def forward(self, x):
        return x * self.act(self.fc(x.mean((2, 3), keepdim=True)))


class CSPResStage(nn.Module):
    def __init__(self, cin, cout, n):
        super().__init__()
        mid = (cin + cout) // 2
        self.conv_down = ConvAct(cin, mid, 3, 2, act="silu")
        self.conv1, self.conv2 = ConvAct(mid, mid // 2, 1, act="silu"), ConvAct(mid, mid // 2, 1, act="silu")
        self.blocks = nn.Sequential(*(ResBasicBlock(mid // 2, True) for _ in range(n)))
        self.attn = EffectiveSE(mid)
        self.conv3 = ConvAct(mid, cout, 1, act="silu")

    def forward(self, x):
        x = self.conv_down(x)
        y = torch.cat([self.conv1(x), self.blocks(self.conv2(x))], 1)
        return self.conv3(self.attn(y))


class CSPStage(nn.Module):
    """custom_pan CSPStage: two 1x1 branches, n BasicBlocks without shortcut (+ SPP after the middle one), 1x1."""

    def __init__(self, cin, cout, n, spp):
        super().__init__()
        mid = cout // 2
        self.conv1, self.conv2 = ConvAct(cin, mid, 1, act="silu"), ConvAct(cin, mid, 1, act="silu")
        convs = []
        for i in range(n):
            convs.append(ResBasicBlock(mid, False))
            if spp and i == (n - 1) // 2:
                convs += [MaxPoolParallel((5, 9, 13)), ConvAct(4 * mid, mid, 1, act="silu")]
        self.convs = nn.Sequential(*convs)
        self.conv3 = ConvAct(2 * mid, cout, 1, act="silu")

    def forward(self, x):
        return self.conv3(torch.cat([self.conv1(x), self.convs(self.conv2(x))], 1))


class ESEAttn(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc = nn.Conv2d(c, c, 1)
        self.conv = ConvAct(c, c, 1, act="silu")

    def forward(self, feat, avg):
        return self.conv(feat * torch.sigmoid(self.fc(avg)))


class PPYOLOE(nn.Module):
    def __init__(self, depth, width, reg_max=16):
        super().__init__()
        ch = [max(round(c * width), 1) for c in (64, 128, 256, 512, 1024)]
        layers = [max(round(n * depth), 1) for n in (3, 6, 6, 3)]
        self.stem = nn.Sequential(ConvAct(3, ch[0] // 2, 3, 2, act="silu"),
                                  ConvAct(ch[0] // 2, ch[0] // 2, 3, act="silu"),
                                  ConvAct(ch[0] // 2, ch[0], 3, act="silu"))
        self.stages = nn.ModuleList(CSPResStage(ch[i], ch[i + 1], layers[i]) for i in range(4))
        # CustomCSPPAN(in=[C3, C4, C5], out=[768, 384, 192] * width, stage_num 1, block_num 3 * depth, spp)
        out = [max(round(c * width), 1) for c in (768, 384, 192)]
        nb = max(round(3 * depth), 1)
        ins = [ch[4], ch[3], ch[2]]
        self.fpn_stages, self.fpn_routes = nn.ModuleList(), nn.ModuleList()
        for i, (cin, cout) in enumerate(zip(ins, out)):
            if i > 0:
                cin += out[i - 1] // 2
            self.fpn_stages.append(CSPStage(cin, cout, nb, spp=(i == 0)))
            if i < 2:
                self.fpn_routes.append(ConvAct(cout, cout // 2, 1, act="silu"))
        self.pan_stages, self.pan_routes = nn.ModuleList(), nn.ModuleList()
        for i in reversed(range(2)):
            self.pan_routes.insert(0, ConvAct(out[i + 1], out[i + 1], 3, 2, act="silu"))
            self.pan_stages.insert(0, CSPStage(out[i] + out[i + 1], out[i], nb, spp=False))
        self.up = upsample2x()
        self.stem_cls = nn.ModuleList(ESEAttn(c) for c in out)
        self.stem_reg = nn.ModuleList(ESEAttn(c) for c in out)
        self.pred_cls = nn.ModuleList(nn.Conv2d(c, NC, 3, padding=1) for c in out)
        self.pred_reg = nn.ModuleList(nn.Conv2d(c, 4 * (reg_max + 1), 3, padding=1) for c in out)

    def forward(self, x):
        x = self.stem(x)
        feats = []
        for i, s in enumerate(self.stages):
            x = s(x)
            if i >= 1:
                feats.append(x)
        blocks = feats[::-1]  # C5, C4, C3
        fpn_feats, route = [], None
        for i, blk in enumerate(blocks):
            if i > 0:
                blk = torch.cat([route, blk], 1)
            route = self.fpn_stages[i](blk)
            fpn_feats.append(route)
            if i < 2:
                route = self.up(self.fpn_routes[i](route))
        pan_feats, route = [fpn_feats[-1]], fpn_feats[-1]
        for i in reversed(range(2)):
            route = self.pan_stages[i](torch.cat([self.pan_routes[i](route), fpn_feats[i]], 1))
            pan_feats.append(route)
        outs = []
        for i, f in enumerate(pan_feats[::-1]):  # P5, P4, P3: the head's fpn_strides (32, 16, 8)
            avg = nn.functional.adaptive_avg_pool2d(f, 1)
            cls = self.pred_cls[i](self.stem_cls[i](f, avg) + f).sigmoid()
            outs += [self.pred_reg[i](self.stem_reg[i](f, avg)), cls, score_sum(cls)]
        return tuple(outs)


def ppyoloe(depth, width):
    return PPYOLOE(depth, width)
