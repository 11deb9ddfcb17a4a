#!/usr/bin/env python3
"""Small seeded transformers exported by PyTorch, with .npy calibration and held-out data set lists:
  bert  2-layer encoder, d=64: input_ids, attention_mask, token_type_ids (int64, padded samples), Erf GELU, the
        additive (1 - mask) * float32 min mask; outputs last_hidden_state and logits (vocabulary head)
  vit   torchvision VisionTransformer (32x32 image, 8x8 patches, 2 layers, d=64); outputs last_hidden_state, logits
  gpt   2-layer GPT-2-like decoder with a KV cache: input_ids of the new tokens, past_key_L/past_value_L from a real
        prefix run, tanh GELU, Conv1D projections (Gemm on [K, N] weights); outputs logits, present_key_L/_value_L
Writes DIR/NAME.opsetN.onnx, DIR/NAME.calib.txt and DIR/NAME.eval.txt (different samples) per model."""
import argparse
import math
import os

import numpy as np
import torch
from torch import nn

D, HEADS, FFN, VOCAB, LAYERS = 64, 4, 128, 512, 2


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, HEADS, D // HEADS).transpose(1, 2)

    def forward(self, x, mask):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D // HEADS) + mask
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(x.shape)
        return self.o(ctx)


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn, self.ln1, self.ln2 = Attention(), nn.LayerNorm(D), nn.LayerNorm(D)
        self.up, self.down = nn.Linear(D, FFN), nn.Linear(FFN, D)

    def forward(self, x, mask):
        x = self.ln1(x + self.attn(x, mask))
        return self.ln2(x + self.down(nn.functional.gelu(self.up(x))))


class Bert(nn.Module):
    def __init__(self, seq):
        super().__init__()
        self.words, self.positions, self.types = nn.Embedding(VOCAB, D), nn.Embedding(seq, D), nn.Embedding(2, D)
        self.ln = nn.LayerNorm(D)
        self.layers = nn.ModuleList(BertLayer() for _ in range(LAYERS))
        self.head = nn.Linear(D, VOCAB)

    def forward(self, input_ids, attention_mask, token_type_ids):
        pos = torch.arange(input_ids.shape[1]).unsqueeze(0)
        x = self.ln(self.words(input_ids) + self.positions(pos) + self.types(token_type_ids))
        mask = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        for layer in self.layers:
            x = layer(x, mask)
        return x, self.head(x)


class Conv1D(nn.Module):
    """GPT-2's projection: x @ W + b with W [K, N] (exported as Gemm on 2-D rows)."""

    def __init__(self, k, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k, n) * 0.02)
        self.bias = nn.Parameter(torch.randn(n) * 0.02)

    def forward(self, x):
        shape = x.shape[:-1] + (self.weight.shape[1],)
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).view(shape)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GptLayer(nn.Module):
    def __init__(self, context):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = Conv1D(D, 3 * D), Conv1D(D, D)
        self.up, self.down = Conv1D(D, 4 * D), Conv1D(4 * D, D)
        self.register_buffer("causal", torch.tril(torch.ones(context, context, dtype=torch.bool)).view(
            1, 1, context, context))

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, HEADS, D // HEADS).permute(0, 2, 1, 3)

    def forward(self, x, past_key, past_value):
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        q, k, v = self.heads(q), self.heads(k), self.heads(v)
        k, v = torch.cat((past_key, k), dim=-2), torch.cat((past_value, v), dim=-2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D // HEADS)
        total, new = k.shape[-2], q.shape[-2]
        allowed = self.causal[:, :, total - new:total, :total]
        scores = torch.where(allowed, scores, torch.tensor(torch.finfo(torch.float32).min))
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).reshape(x.shape)
        x = x + self.proj(ctx)
        return x + self.down(gelu_tanh(self.up(self.ln2(x)))), k, v


class Gpt(nn.Module):
    def __init__(self, context):
        super().__init__()
        self.words, self.positions = nn.Embedding(VOCAB, D), nn.Embedding(context, D)
        for e in (self.words, self.positions):
            nn.init.normal_(e.weight, std=0.1)
        self.layers = nn.ModuleList(GptLayer(context) for _ in range(LAYERS))
        self.ln = nn.LayerNorm(D)

    def forward(self, input_ids, *past):
        start = past[0].shape[-2]
        pos = torch.arange(start, start + input_ids.shape[1]).unsqueeze(0)
        x = self.words(input_ids) + self.positions(pos)
        presents = []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        return (torch.matmul(self.ln(x), self.words.weight.t()), *presents)


def smooth_image(rng, shape):
    n, c, h, w = shape
    yy, xx = np.meshgrid(np.linspace(0, 1, h), np.linspace(0, 1, w), indexing="ij")
    img = np.zeros(shape, np.float32)
    for ch in range(c):
        f1, f2, ph = rng.uniform(1, 4), rng.uniform(1, 4), rng.uniform(0, 6.3)
        img[0, ch] = np.sin(f1 * 6.28 * xx + ph) * np.cos(f2 * 6.28 * yy)
    return (img + 0.3 * rng.standard_normal(shape)).astype(np.float32)


def bert_samples(rng, count, seq):
    out = []
    for _ in range(count):
        length = int(rng.integers(seq // 2, seq + 1))
        ids = np.zeros((1, seq), np.int64)
        ids[0, :length] = rng.integers(1, VOCAB, length)
        mask = np.zeros((1, seq), np.int64)
        mask[0, :length] = 1
        types = np.zeros((1, seq), np.int64)
        types[0, length // 2:length] = 1
        out.append({"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
    return out


def gpt_samples(rng, model, count, prefix, new):
    out = []
    for _ in range(count):
        ids = rng.integers(0, VOCAB, (1, prefix + new)).astype(np.int64)
        empty = [torch.zeros(1, HEADS, 0, D // HEADS) for _ in range(2 * LAYERS)]
        with torch.no_grad():  # the cache a real prefix leaves behind
            past = model(torch.from_numpy(ids[:, :prefix]), *empty)[1:]
        sample = {"input_ids": ids[:, prefix:]}
        for i in range(LAYERS):
            sample[f"past_key_{i}"] = past[2 * i].numpy()
            sample[f"past_value_{i}"] = past[2 * i + 1].numpy()
        out.append(sample)
    return out


def write_list(out_dir, name, samples, order):
    lines = []
    for s, sample in enumerate(samples):
        files = []
        for input_name in order:
            f = f"{name}.{s}.{input_name}.npy"
            np.save(os.path.join(out_dir, f), sample[input_name])
            files.append(f)
        lines.append(" ".join(files))
    with open(os.path.join(out_dir, name + ".txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def export(model, args, path, opset, inputs, outputs):
    torch.onnx.export(model, args, path, opset_version=opset, input_names=inputs, output_names=outputs,
                      do_constant_folding=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default="bert,vit,gpt")
    ap.add_argument("--opsets", default="14,17")
    ap.add_argument("--calib", type=int, default=32)
    ap.add_argument("--eval", type=int, default=16)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    opsets = [int(o) for o in args.opsets.split(",")]
    for name in args.models.split(","):
        torch.manual_seed(0)
        rng = np.random.default_rng(0)
        if name == "bert":
            seq = 16
            model = Bert(seq).eval()
            samples = bert_samples(rng, args.calib + args.eval, seq)
            inputs, outputs = ["input_ids", "attention_mask", "token_type_ids"], ["last_hidden_state", "logits"]
            example = tuple(torch.from_numpy(samples[0][i]) for i in inputs)
        elif name == "vit":
            from torchvision.models.vision_transformer import VisionTransformer

            vit = VisionTransformer(image_size=32, patch_size=8, num_layers=LAYERS, num_heads=HEADS, hidden_dim=D,
                                    mlp_dim=FFN, num_classes=10).eval()
            nn.init.normal_(vit.heads.head.weight, std=0.1)  # torchvision starts it at zero: constant logits

            class Vit(nn.Module):  # the encoder output beside the logits
                def __init__(self):
                    super().__init__()
                    self.vit = vit

                def forward(self, image):
                    x = self.vit._process_input(image)
                    x = torch.cat([self.vit.class_token.expand(x.shape[0], -1, -1), x], dim=1)
                    hidden = self.vit.encoder(x)
                    return hidden, self.vit.heads(hidden[:, 0])

            model = Vit().eval()
            samples = [{"image": smooth_image(rng, (1, 3, 32, 32))} for _ in range(args.calib + args.eval)]
            inputs, outputs = ["image"], ["last_hidden_state", "logits"]
            example = (torch.from_numpy(samples[0]["image"]),)
        elif name == "gpt":
            prefix, new = 8, 4
            model = Gpt(prefix + new).eval()
            samples = gpt_samples(rng, model, args.calib + args.eval, prefix, new)
            inputs = ["input_ids"] + [f"past_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]
            outputs = ["logits"] + [f"present_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]
            example = tuple(torch.from_numpy(samples[0][i]) for i in inputs)
        else:
            raise SystemExit(f"unknown model {name}")
        for opset in opsets:
            export(model, example, os.path.join(args.out, f"{name}.opset{opset}.onnx"), opset, inputs, outputs)
        write_list(args.out, f"{name}.calib", samples[:args.calib], inputs)
        write_list(args.out, f"{name}.eval", samples[args.calib:], inputs)


if __name__ == "__main__":
    main()
