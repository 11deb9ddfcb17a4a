#!/usr/bin/python3
"""Exports transformer models (random weights, seeded, reproducible) to ONNX with torch.onnx.export.

    export_transformers.py OUT_DIR [--size test|bench] [--only NAME ...] [--opsets 14 17] [--force] [--dataset N]

Models (the BERT, GPT-2, Whisper and MobileViT ones are written here in torch, no transformers package):
  bert_encoder     BERT-base-like encoder: word + position + token-type embeddings (Gather), LayerNorm, encoder
                   layers with an additive mask made from the int64 `attention_mask`, GELU (Erf), a tanh pooler;
                   inputs input_ids, attention_mask, token_type_ids (int64 [batch, seq])
  vit_b_16         torchvision.models.vit_b_16 (test size: a small torchvision VisionTransformer)
  deit_tiny        torchvision VisionTransformer: image 224, patch 16, 12 layers, 3 heads, hidden 192, mlp 768
  gpt2_block       GPT-2-small-like decoder step with a KV cache: input_ids [1, seq], past_key_I / past_value_I
                   [1, heads, past, head_dim] per layer; outputs logits and present_key_I / present_value_I (past and
                   new concatenated); causal mask sliced from a lower-triangular buffer, GELU in its tanh form
  whisper_encoder  whisper-tiny-like audio encoder: two Conv1d + GELU on [1, 80, frames] mel frames, sinusoidal
                   positions, pre-LayerNorm encoder layers (d 384, 6 heads, 4 layers)
  swin_t           torchvision.models.swin_t (torch.roll shifts, window partition Reshape/Transpose, relative
                   position bias; test size: a small torchvision SwinTransformer)
  mobilevit        MobileViT-XXS-like hybrid: MobileNetV2 inverted residuals, then MobileViT blocks (conv, unfold into
                   2x2 patches by Reshape/Transpose, transformer, fold, conv fuse)

Each at opset 14 (LayerNorm decomposed into ReduceMean/Sub/Pow/Sqrt/Div/Mul/Add) and opset 17
(LayerNormalization), with fixed shapes (NAME_opN.onnx) and with dynamic axes (NAME_opN_dyn.onnx: symbolic batch
for the image models, batch and sequence for BERT, sequence and past length for GPT-2, frames for Whisper).
GELU is the Erf form at both opsets (ONNX's Gelu op came with opset 20). With the torch of Debian 12
(1.13) every combination exports; one that fails with another torch prints why and is skipped (exit code 1 at
the end, the other models written).

`--size test` makes small versions whose reference runs take well under a second (tests/cli/transformer_commands.sh);
`--size bench` the real sizes (tests/bench/corpus.py). `--dataset N` also writes, beside each model, N seeded
calibration samples (NAME.data/*.npy, listed in NAME.dataset.txt: token ids inside the vocabulary, masks of 0/1)
and NAME.shapes, the `--input-shape` arguments of the samples' shapes (the symbolic dims made concrete).
Existing files are kept unless --force or this script changed since (NAME.stamp: its sha256); every file is
written to a .tmp and renamed. Run with Debian's
/usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
"""
import argparse
import hashlib
import math
import os
import sys

KINDS = ["bert_encoder", "vit_b_16", "deit_tiny", "gpt2_block", "whisper_encoder", "swin_t", "mobilevit"]
OPSETS = [14, 17]

# Per size and kind: the architecture's sizes. "fixed" are the static export's input dims, "dyn" the concrete dims
# the dynamic-axes export is run and calibrated with (other than the fixed ones where the axes allow).
SIZES = {
    "test": {
        "bert_encoder": dict(vocab=1000, d=64, layers=2, heads=4, ffn=256, max_pos=64, batch=1, seq=16,
                             dyn_batch=2, dyn_seq=12),
        "vit_b_16": dict(image=32, patch=8, layers=2, heads=4, d=64, mlp=128, classes=10),
        "deit_tiny": dict(image=64, patch=16, layers=2, heads=3, d=48, mlp=96, classes=10),
        "gpt2_block": dict(vocab=1000, d=64, layers=2, heads=4, max_pos=64, seq=1, past=15, dyn_seq=3, dyn_past=9),
        "whisper_encoder": dict(mels=80, frames=200, d=64, layers=2, heads=4, dyn_frames=160),
        "swin_t": dict(image=64, patch=4, d=16, depths=[2, 2], heads=[2, 4], window=4, classes=10),
        "mobilevit": dict(image=64, stem=8, stages=[(16, 1, 2, None), (24, 2, 2, None), (32, 2, 2, (32, 1)),
                                                   (48, 2, 2, (48, 1))], last=96, classes=10, heads=2),
    },
    "bench": {
        "bert_encoder": dict(vocab=30522, d=768, layers=12, heads=12, ffn=3072, max_pos=512, batch=1, seq=128,
                             dyn_batch=1, dyn_seq=128),
        "vit_b_16": dict(image=224, patch=16, layers=12, heads=12, d=768, mlp=3072, classes=1000),
        "deit_tiny": dict(image=224, patch=16, layers=12, heads=3, d=192, mlp=768, classes=1000),
        "gpt2_block": dict(vocab=50257, d=768, layers=12, heads=12, max_pos=1024, seq=1, past=127, dyn_seq=1,
                           dyn_past=127),
        "whisper_encoder": dict(mels=80, frames=3000, d=384, layers=4, heads=6, dyn_frames=3000),
        "swin_t": dict(image=224, patch=4, d=96, depths=[2, 2, 6, 2], heads=[3, 6, 12, 24], window=7, classes=1000),
        # MobileViT-XXS: (channels, inverted residuals, stride of the first, MobileViT block (d, layers) or None)
        "mobilevit": dict(image=256, stem=16, stages=[(16, 1, 1, None), (24, 3, 2, None), (48, 1, 2, (64, 2)),
                                                      (64, 1, 2, (80, 4)), (80, 1, 2, (96, 3))],
                          last=320, classes=1000, heads=4),
    },
}
IMAGE_KINDS = ["vit_b_16", "deit_tiny", "swin_t", "mobilevit"]
IMAGE_DYN_BATCH = 2


def build(kind, cfg):
    """(module, {input: example tensor}, output names, {input or output: {axis: symbolic name}})."""
    import torch
    from torch import nn

    class Attention(nn.Module):
        """Multi-head self-attention on [batch, seq, d], written out: MatMul, Softmax, Reshape/Transpose."""

        def __init__(self, d, heads, key_bias=True):
            super().__init__()
            self.heads, self.head_dim = heads, d // heads
            self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d, bias=key_bias), nn.Linear(d, d)
            self.out = nn.Linear(d, d)

        def split(self, x):
            b, s, _ = x.shape
            return x.reshape(b, s, self.heads, self.head_dim).transpose(1, 2)

        def merge(self, x):
            b, _, s, _ = x.shape
            return x.transpose(1, 2).reshape(b, s, self.heads * self.head_dim)

        def forward(self, x, additive_mask=None):
            q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
            if additive_mask is not None:
                scores = scores + additive_mask
            return self.out(self.merge(torch.matmul(scores.softmax(-1), v)))

    if kind == "bert_encoder":
        class BertLayer(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.attention = Attention(c["d"], c["heads"])
                self.ln1, self.ln2 = nn.LayerNorm(c["d"], eps=1e-12), nn.LayerNorm(c["d"], eps=1e-12)
                self.ffn_in, self.ffn_out = nn.Linear(c["d"], c["ffn"]), nn.Linear(c["ffn"], c["d"])
                self.gelu = nn.GELU()

            def forward(self, x, mask):
                x = self.ln1(x + self.attention(x, mask))  # post-LayerNorm, as BERT
                return self.ln2(x + self.ffn_out(self.gelu(self.ffn_in(x))))

        class Bert(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.word = nn.Embedding(c["vocab"], c["d"])
                self.position = nn.Embedding(c["max_pos"], c["d"])
                self.token_type = nn.Embedding(2, c["d"])
                self.ln = nn.LayerNorm(c["d"], eps=1e-12)
                self.register_buffer("position_ids", torch.arange(c["max_pos"]).unsqueeze(0), persistent=False)
                self.layers = nn.ModuleList(BertLayer(c) for _ in range(c["layers"]))
                self.pooler = nn.Linear(c["d"], c["d"])

            def forward(self, input_ids, attention_mask, token_type_ids):
                positions = self.position_ids[:, :input_ids.shape[1]]
                x = self.ln(self.word(input_ids) + self.position(positions) + self.token_type(token_type_ids))
                mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
                for layer in self.layers:
                    x = layer(x, mask)
                return x, torch.tanh(self.pooler(x[:, 0]))

        g = torch.Generator().manual_seed(1)
        ids = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), generator=g)
        inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}
        dyn = {n: {0: "batch", 1: "seq"} for n in inputs}
        dyn.update({"last_hidden_state": {0: "batch", 1: "seq"}, "pooler_output": {0: "batch"}})
        return Bert(cfg), inputs, ["last_hidden_state", "pooler_output"], dyn

    if kind in ("vit_b_16", "deit_tiny"):
        import torchvision

        if kind == "vit_b_16" and cfg["image"] == 224:
            model = torchvision.models.vit_b_16(weights=None)
        else:
            model = torchvision.models.VisionTransformer(
                image_size=cfg["image"], patch_size=cfg["patch"], num_layers=cfg["layers"], num_heads=cfg["heads"],
                hidden_dim=cfg["d"], mlp_dim=cfg["mlp"], num_classes=cfg["classes"])
        nn.init.normal_(model.heads.head.weight, std=0.02)  # torchvision zeroes it: every logit would be 0
        return model, {"input": torch.rand(1, 3, cfg["image"], cfg["image"])}, ["logits"], \
            {"input": {0: "batch"}, "logits": {0: "batch"}}

    if kind == "swin_t":
        import torchvision

        if cfg["image"] == 224:
            model = torchvision.models.swin_t(weights=None)
        else:
            model = torchvision.models.SwinTransformer(
                patch_size=[cfg["patch"]] * 2, embed_dim=cfg["d"], depths=cfg["depths"], num_heads=cfg["heads"],
                window_size=[cfg["window"]] * 2, stochastic_depth_prob=0.0, num_classes=cfg["classes"])
        return model, {"input": torch.rand(1, 3, cfg["image"], cfg["image"])}, ["logits"], \
            {"input": {0: "batch"}, "logits": {0: "batch"}}

    if kind == "gpt2_block":
        class GptAttention(Attention):
            def forward(self, x, past_key, past_value, causal):
                q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
                k, v = torch.cat([past_key, k], dim=2), torch.cat([past_value, v], dim=2)
                scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
                query_len, key_len = q.shape[2], k.shape[2]
                allowed = causal[:, :, key_len - query_len:key_len, :key_len]
                scores = torch.where(allowed, scores, torch.tensor(-1e4, dtype=scores.dtype))
                return self.out(self.merge(torch.matmul(scores.softmax(-1), v))), k, v

        class GptLayer(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.ln1, self.ln2 = nn.LayerNorm(c["d"]), nn.LayerNorm(c["d"])
                self.attention = GptAttention(c["d"], c["heads"])
                self.fc, self.proj = nn.Linear(c["d"], 4 * c["d"]), nn.Linear(4 * c["d"], c["d"])
                self.gelu = nn.GELU(approximate="tanh")

            def forward(self, x, past_key, past_value, causal):
                a, k, v = self.attention(self.ln1(x), past_key, past_value, causal)
                x = x + a  # pre-LayerNorm, as GPT-2
                return x + self.proj(self.gelu(self.fc(self.ln2(x)))), k, v

        class Gpt2(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.wte, self.wpe = nn.Embedding(c["vocab"], c["d"]), nn.Embedding(c["max_pos"], c["d"])
                self.layers = nn.ModuleList(GptLayer(c) for _ in range(c["layers"]))
                self.ln_f = nn.LayerNorm(c["d"])
                tril = torch.tril(torch.ones(c["max_pos"], c["max_pos"], dtype=torch.bool))
                self.register_buffer("causal", tril.view(1, 1, c["max_pos"], c["max_pos"]), persistent=False)

            def forward(self, input_ids, *past):
                past_len = past[0].shape[2]
                positions = torch.arange(past_len, past_len + input_ids.shape[1], dtype=torch.int64).unsqueeze(0)
                x = self.wte(input_ids) + self.wpe(positions)
                presents = []
                for i, layer in enumerate(self.layers):
                    x, k, v = layer(x, past[2 * i], past[2 * i + 1], self.causal)
                    presents += [k, v]
                logits = torch.matmul(self.ln_f(x), self.wte.weight.t())  # tied embedding, as GPT-2
                return (logits, *presents)

        g = torch.Generator().manual_seed(1)
        head_dim = cfg["d"] // cfg["heads"]
        inputs = {"input_ids": torch.randint(0, cfg["vocab"], (1, cfg["seq"]), generator=g)}
        dyn = {"input_ids": {1: "seq"}, "logits": {1: "seq"}}
        outputs = ["logits"]
        for i in range(cfg["layers"]):
            for kv in ("key", "value"):
                inputs[f"past_{kv}_{i}"] = torch.randn(1, cfg["heads"], cfg["past"], head_dim, generator=g)
                dyn[f"past_{kv}_{i}"] = {2: "past"}
                outputs.append(f"present_{kv}_{i}")
                dyn[f"present_{kv}_{i}"] = {2: "total"}
        return Gpt2(cfg), inputs, outputs, dyn

    if kind == "whisper_encoder":
        class WhisperLayer(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.attention = Attention(c["d"], c["heads"], key_bias=False)
                self.ln1, self.ln2 = nn.LayerNorm(c["d"]), nn.LayerNorm(c["d"])
                self.fc1, self.fc2, self.gelu = nn.Linear(c["d"], 4 * c["d"]), nn.Linear(4 * c["d"], c["d"]), nn.GELU()

            def forward(self, x):
                x = x + self.attention(self.ln1(x))
                return x + self.fc2(self.gelu(self.fc1(self.ln2(x))))

        class WhisperEncoder(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv1 = nn.Conv1d(c["mels"], c["d"], 3, padding=1)
                self.conv2 = nn.Conv1d(c["d"], c["d"], 3, stride=2, padding=1)
                self.gelu = nn.GELU()
                positions = max(c["frames"], c["dyn_frames"]) // 2
                scales = torch.exp(-math.log(10000) / (c["d"] // 2 - 1) * torch.arange(c["d"] // 2))
                t = torch.arange(positions)[:, None] * scales[None, :]
                self.register_buffer("positions", torch.cat([t.sin(), t.cos()], dim=1), persistent=False)
                self.layers = nn.ModuleList(WhisperLayer(c) for _ in range(c["layers"]))
                self.ln_post = nn.LayerNorm(c["d"])

            def forward(self, input_features):
                x = self.gelu(self.conv2(self.gelu(self.conv1(input_features)))).permute(0, 2, 1)
                x = x + self.positions[:x.shape[1]]
                for layer in self.layers:
                    x = layer(x)
                return self.ln_post(x)

        example = torch.randn(1, cfg["mels"], cfg["frames"], generator=torch.Generator().manual_seed(1))
        return WhisperEncoder(cfg), {"input_features": example}, ["last_hidden_state"], \
            {"input_features": {2: "frames"}, "last_hidden_state": {1: "positions"}}

    if kind == "mobilevit":
        def conv_bn(cin, cout, k, stride=1, groups=1, act=True):
            layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
            return nn.Sequential(*layers, nn.SiLU()) if act else nn.Sequential(*layers)

        class InvertedResidual(nn.Module):
            def __init__(self, cin, cout, stride, expand=2):
                super().__init__()
                hidden = cin * expand
                self.block = nn.Sequential(conv_bn(cin, hidden, 1), conv_bn(hidden, hidden, 3, stride, hidden),
                                           conv_bn(hidden, cout, 1, act=False))
                self.residual = stride == 1 and cin == cout

            def forward(self, x):
                return x + self.block(x) if self.residual else self.block(x)

        class TransformerLayer(nn.Module):
            def __init__(self, d, heads):
                super().__init__()
                self.ln1, self.ln2, self.attention = nn.LayerNorm(d), nn.LayerNorm(d), Attention(d, heads)
                self.ffn = nn.Sequential(nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))

            def forward(self, x):
                x = x + self.attention(self.ln1(x))
                return x + self.ffn(self.ln2(x))

        class MobileVitBlock(nn.Module):
            def __init__(self, c, d, layers, heads, patch=2):
                super().__init__()
                self.patch = patch
                self.local = nn.Sequential(conv_bn(c, c, 3), nn.Conv2d(c, d, 1, bias=False))
                self.transformer = nn.Sequential(*[TransformerLayer(d, heads) for _ in range(layers)], nn.LayerNorm(d))
                self.project, self.fuse = conv_bn(d, c, 1), conv_bn(2 * c, c, 3)

            def forward(self, x):
                y = self.local(x)
                b, d, h, w = y.shape
                p = self.patch
                # unfold: [b, d, h, w] -> [b * p * p, (h / p) * (w / p), d], each pixel of a patch with its peers
                y = y.reshape(b, d, h // p, p, w // p, p).permute(0, 3, 5, 2, 4, 1).reshape(b * p * p, -1, d)
                y = self.transformer(y)
                y = y.reshape(b, p, p, h // p, w // p, d).permute(0, 5, 3, 1, 4, 2).reshape(b, d, h, w)  # fold
                return self.fuse(torch.cat([x, self.project(y)], dim=1))

        class MobileVit(nn.Module):
            def __init__(self, c):
                super().__init__()
                layers, cin = [conv_bn(3, c["stem"], 3, 2)], c["stem"]
                for cout, blocks, stride, vit in c["stages"]:
                    for i in range(blocks):
                        layers.append(InvertedResidual(cin, cout, stride if i == 0 else 1))
                        cin = cout
                    if vit:
                        layers.append(MobileVitBlock(cin, vit[0], vit[1], c["heads"]))
                layers.append(conv_bn(cin, c["last"], 1))
                self.features = nn.Sequential(*layers)
                self.classifier = nn.Linear(c["last"], c["classes"])

            def forward(self, x):
                return self.classifier(self.features(x).mean((2, 3)))

        return MobileVit(cfg), {"input": torch.rand(1, 3, cfg["image"], cfg["image"])}, ["logits"], \
            {"input": {0: "batch"}, "logits": {0: "batch"}}

    raise ValueError(f"unknown model kind {kind}")


def static_shapes(kind, cfg):
    """{input: dims} of the fixed-shape export, in the model's input order."""
    if kind == "bert_encoder":
        return {n: [cfg["batch"], cfg["seq"]] for n in ("input_ids", "attention_mask", "token_type_ids")}
    if kind == "gpt2_block":
        shapes = {"input_ids": [1, cfg["seq"]]}
        for i in range(cfg["layers"]):
            for kv in ("key", "value"):
                shapes[f"past_{kv}_{i}"] = [1, cfg["heads"], cfg["past"], cfg["d"] // cfg["heads"]]
        return shapes
    if kind == "whisper_encoder":
        return {"input_features": [1, cfg["mels"], cfg["frames"]]}
    return {"input": [1, 3, cfg["image"], cfg["image"]]}


def dyn_shapes(kind, cfg):
    """The concrete dims a dynamic-axes export is run and calibrated with: {input: dims}."""
    shapes = static_shapes(kind, cfg)
    if kind == "bert_encoder":
        return {n: [cfg["dyn_batch"], cfg["dyn_seq"]] for n in shapes}
    if kind == "gpt2_block":
        return {n: [1, cfg["dyn_seq"]] if n == "input_ids" else [s[0], s[1], cfg["dyn_past"], s[3]]
                for n, s in shapes.items()}
    if kind == "whisper_encoder":
        return {n: [s[0], s[1], cfg["dyn_frames"]] for n, s in shapes.items()}
    return {n: [IMAGE_DYN_BATCH] + s[1:] for n, s in shapes.items()}


def model_name(kind, opset, dynamic):
    return f"{kind}_op{opset}{'_dyn' if dynamic else ''}"


def export(kind, size, opset, dynamic, out_dir, force):
    """Writes OUT_DIR/NAME.onnx unless this script made it; returns (path, {input: concrete dims}, written)."""
    cfg = SIZES[size][kind]
    path = os.path.join(out_dir, model_name(kind, opset, dynamic) + ".onnx")
    shapes = dyn_shapes(kind, cfg) if dynamic else static_shapes(kind, cfg)
    stamp = os.path.splitext(path)[0] + ".stamp"
    with open(os.path.abspath(__file__), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if os.path.exists(path) and os.path.exists(stamp) and not force:
        with open(stamp) as f:
            if f.read().strip() == digest:
                print(f"keep   {path}")
                return path, shapes, False
    import torch  # only now: importing torch takes seconds

    torch.manual_seed(0)  # the same weights for every opset and axes of one kind and size
    model, inputs, outputs, axes = build(kind, cfg)
    model.eval()
    assert {n: list(t.shape) for n, t in inputs.items()} == static_shapes(kind, cfg), kind
    tmp = path + ".tmp"
    # Traced with gradients enabled: under no_grad nn.MultiheadAttention (the torchvision ViTs) takes its fused
    # fast path, aten::_native_multi_head_attention, which this torch's exporter cannot write at any opset.
    torch.onnx.export(model, tuple(inputs.values()), tmp, opset_version=opset, input_names=list(inputs),
                      output_names=outputs, dynamic_axes=axes if dynamic else None, do_constant_folding=True)
    os.replace(tmp, path)  # never leave a half-written model under the final name
    with open(stamp + ".tmp", "w") as f:
        f.write(digest + "\n")
    os.replace(stamp + ".tmp", stamp)
    print(f"export {path}")
    return path, shapes, True


def integer_input_ranges(model_path):
    """{int input: number of rows of the smallest embedding table it indexes (Gather data)}, from the file."""
    import onnx

    m = onnx.load(model_path, load_external_data=False)
    rows = {i.name: i.dims[0] for i in m.graph.initializer if i.dims}
    ranges = {}
    for node in m.graph.node:
        if node.op_type == "Gather" and len(node.input) == 2 and node.input[0] in rows:
            ranges[node.input[1]] = min(ranges.get(node.input[1], rows[node.input[0]]), rows[node.input[0]])
    return ranges


def write_dataset(model_path, shapes, count, out_dir, seed=0, force=False):
    """COUNT seeded samples of the given shapes for the model's inputs, as .npy files listed in a dataset.txt
    (one sample a line, the inputs in the model's order). Integer inputs named *mask* get 1s followed by a random
    number of 0s (at least one 1), *type* 0/1, others token ids below the rows of the embedding they index; float
    inputs uniform [0, 1) (images) or standard normal (*past*, mel frames). Returns the list's path."""
    import numpy as np
    import onnx

    base = os.path.splitext(os.path.basename(model_path))[0]
    listing = os.path.join(out_dir, base + ".dataset.txt")
    if os.path.exists(listing) and not force:
        return listing
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    inputs = [(i.name, i.type.tensor_type.elem_type) for i in m.graph.input if i.name not in inits]
    ranges = integer_input_ranges(model_path)
    data = os.path.join(out_dir, base + ".data")
    os.makedirs(data, exist_ok=True)
    rng = np.random.default_rng(seed)
    lines = []
    for k in range(count):
        files = []
        for name, elem in inputs:
            dims = shapes[name]
            if elem == onnx.TensorProto.INT64:
                if "mask" in name:
                    value = np.ones(dims, dtype=np.int64)
                    for row in value.reshape(-1, dims[-1]):
                        row[rng.integers(1, dims[-1] + 1):] = 0
                elif "type" in name:
                    value = rng.integers(0, 2, dims, dtype=np.int64)
                else:
                    if name not in ranges:
                        raise RuntimeError(f"{model_path}: int64 input {name} indexes no embedding table")
                    value = rng.integers(0, ranges[name], dims, dtype=np.int64)
            elif elem == onnx.TensorProto.FLOAT:
                value = (rng.random(dims, dtype=np.float32) if len(dims) == 4 and "past" not in name
                         else rng.standard_normal(dims, dtype=np.float32))
            else:
                raise RuntimeError(f"{model_path}: input {name} has element type {elem}, not int64 or float")
            f = os.path.join(data, f"{k}.{name.replace('/', '_')}.npy")
            with open(f + ".tmp", "wb") as out:
                np.save(out, value)
            os.replace(f + ".tmp", f)
            files.append(os.path.relpath(f, out_dir))
        lines.append(" ".join(files))
    with open(listing + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(listing + ".tmp", listing)
    return listing


def write_shapes(model_path, shapes):
    """NAME.shapes: one `--input-shape NAME=D1,D2,...` argument a line, for the samples' shapes."""
    path = os.path.splitext(model_path)[0] + ".shapes"
    with open(path + ".tmp", "w") as f:
        f.write("".join(f"{n}={','.join(map(str, d))}\n" for n, d in shapes.items()))
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", help="folder for the .onnx files")
    parser.add_argument("--size", choices=list(SIZES), default="test")
    parser.add_argument("--only", nargs="*", choices=KINDS, help="export just these kinds")
    parser.add_argument("--opsets", nargs="*", type=int, choices=OPSETS, default=OPSETS)
    parser.add_argument("--static-only", action="store_true", help="no dynamic-axes exports")
    parser.add_argument("--dataset", type=int, default=0, metavar="N",
                        help="also write N calibration samples and NAME.shapes beside each model")
    parser.add_argument("--force", action="store_true", help="re-export existing files")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    failed = []
    for kind in args.only or KINDS:
        for opset in args.opsets:
            for dynamic in ([False] if args.static_only else [False, True]):
                name = model_name(kind, opset, dynamic)
                try:
                    path, shapes, written = export(kind, args.size, opset, dynamic, args.out_dir, args.force)
                except Exception as e:  # an exporter limit of this torch: say which and go on with the others
                    failed.append(name)
                    print(f"FAILED {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                          file=sys.stderr)
                    continue
                if args.dataset:
                    write_shapes(path, shapes)
                    write_dataset(path, shapes, args.dataset, args.out_dir, force=args.force or written)
    if failed:
        print(f"{len(failed)} export(s) failed: {' '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
