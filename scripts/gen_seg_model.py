#!/usr/bin/python3
"""Write a small U^2-Net-style salient-object segmentation model, for the library test that runs
@bunnio/rembg-web (background removal) through webnx/ort (tests/browser/libraries.test.mjs).

Usage:
    /usr/bin/python3 scripts/gen_seg_model.py [--out build/models/seg] [--force]

Written into --out/ (relative paths resolve against the repository root):

    u2net-lite.onnx   input_image [1, 3, 128, 128] float32 (ImageNet-normalized RGB) ->
                      mask [1, 1, 128, 128] (the fused side outputs, sigmoid) and the six side
                      outputs side1..side6; torch-exported, opset 17

The network is U^2-Net's two-level U shape (residual U-blocks of depth 7 to 4, dilated blocks at
the bottom, a side output per decoder stage fused by a 1x1 conv) at a quarter of U^2-Net-p's
width. It is trained (about 2.5 minutes, once) for 300 seeded steps on synthetic 96x96 pictures
(a textured shape on a textured background, the shape's silhouette as the target), so that its
mask follows the object and the test compares masks that mean something: it prints the held-out
IoU (about 0.92 at 128x128). Its receptive field is sized for that scale; at U^2-Net's 320x320 it
would need longer training, so the library is configured with inputSize [128, 128]. Training on one thread is deterministic for a given torch build; an existing file
is kept unless --force.
"""

import argparse
import math
import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

SIZE, TRAIN_SIZE, STEPS, BATCH = 128, 96, 300, 8
MID, OUT = 8, 32


class ConvBnRelu(nn.Sequential):
    def __init__(self, cin, cout, dilation=1):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=dilation, dilation=dilation),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def upsample_like(x, like):
    return F.interpolate(x, size=like.shape[2:], mode="bilinear", align_corners=False)


class ResidualU(nn.Module):
    """A U-Net inside a block: `depth` levels (halving the plane at each), a dilated conv at the
    bottom, the decoder concatenating each level's encoder output; its output plus its input."""

    def __init__(self, depth, cin, mid, cout):
        super().__init__()
        self.inp = ConvBnRelu(cin, cout)
        self.down = nn.ModuleList([ConvBnRelu(cout, mid)] + [ConvBnRelu(mid, mid) for _ in range(depth - 2)])
        self.bottom = ConvBnRelu(mid, mid, dilation=2)
        self.up = nn.ModuleList([ConvBnRelu(2 * mid, mid) for _ in range(depth - 2)] + [ConvBnRelu(2 * mid, cout)])

    def forward(self, x):
        x_in = self.inp(x)
        skips, h = [], x_in
        for i, conv in enumerate(self.down):
            h = conv(F.max_pool2d(h, 2, 2, ceil_mode=True) if i > 0 else h)
            skips.append(h)
        h = self.bottom(h)
        for conv, skip in zip(self.up, reversed(skips)):
            h = conv(torch.cat([upsample_like(h, skip), skip], 1))
        return h + x_in


class DilatedU(nn.Module):
    """The same block without pooling (for the deepest, smallest planes): dilations 1, 2, 4, 8."""

    def __init__(self, cin, mid, cout):
        super().__init__()
        self.inp = ConvBnRelu(cin, cout)
        self.down = nn.ModuleList([ConvBnRelu(cout, mid, 1), ConvBnRelu(mid, mid, 2), ConvBnRelu(mid, mid, 4)])
        self.bottom = ConvBnRelu(mid, mid, 8)
        self.up = nn.ModuleList([ConvBnRelu(2 * mid, mid, 4), ConvBnRelu(2 * mid, mid, 2), ConvBnRelu(2 * mid, cout, 1)])

    def forward(self, x):
        x_in = self.inp(x)
        skips, h = [], x_in
        for conv in self.down:
            h = conv(h)
            skips.append(h)
        h = self.bottom(h)
        for conv, skip in zip(self.up, reversed(skips)):
            h = conv(torch.cat([h, skip], 1))
        return h + x_in


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.ModuleList([ResidualU(7, 3, MID, OUT), ResidualU(6, OUT, MID, OUT), ResidualU(5, OUT, MID, OUT),
                                  ResidualU(4, OUT, MID, OUT), DilatedU(OUT, MID, OUT), DilatedU(OUT, MID, OUT)])
        self.dec = nn.ModuleList([DilatedU(2 * OUT, MID, OUT), ResidualU(4, 2 * OUT, MID, OUT),
                                  ResidualU(5, 2 * OUT, MID, OUT), ResidualU(6, 2 * OUT, MID, OUT),
                                  ResidualU(7, 2 * OUT, MID, OUT)])
        self.sides = nn.ModuleList(nn.Conv2d(OUT, 1, 3, padding=1) for _ in range(6))
        self.fuse = nn.Conv2d(6, 1, 1)

    def forward(self, x):
        feats, h = [], x
        for i, block in enumerate(self.enc):
            h = block(F.max_pool2d(h, 2, 2, ceil_mode=True) if i > 0 else h)
            feats.append(h)
        decoded = [h]
        for block, skip in zip(self.dec, reversed(feats[:-1])):
            h = block(torch.cat([upsample_like(h, skip), skip], 1))
            decoded.append(h)
        # Side outputs from the finest decoder stage to the bottom, each at the input's size.
        sides = [upsample_like(conv(d), x) for conv, d in zip(self.sides, reversed(decoded))]
        fused = self.fuse(torch.cat(sides, 1))
        return tuple(torch.sigmoid(s) for s in [fused] + sides)


def texture(gen, n, size):
    """Smooth colored noise plus stripes at a random angle and frequency, per picture."""
    coarse = torch.rand(n, 3, 6, 6, generator=gen)
    base = F.interpolate(coarse, size=(size, size), mode="bilinear", align_corners=False)
    ys, xs = torch.meshgrid(torch.linspace(0, 1, size), torch.linspace(0, 1, size), indexing="ij")
    angle = torch.rand(n, 1, 1, generator=gen) * math.pi
    freq = 4 + 12 * torch.rand(n, 1, 1, generator=gen)
    stripes = torch.sin(freq * 2 * math.pi * (xs * torch.cos(angle) + ys * torch.sin(angle)))
    return (0.75 * base + 0.25 * stripes.unsqueeze(1) * torch.rand(n, 3, 1, 1, generator=gen)).clamp(0, 1)


def batch(gen, n, size):
    """Pictures of one ellipse or rectangle (textured) on a textured background, and its mask."""
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, size), torch.linspace(-1, 1, size), indexing="ij")
    center = torch.rand(n, 2, 1, 1, generator=gen) * 1.0 - 0.5
    radius = 0.25 + 0.4 * torch.rand(n, 2, 1, 1, generator=gen)
    dx, dy = (xs - center[:, 0]) / radius[:, 0], (ys - center[:, 1]) / radius[:, 1]
    ellipse = dx * dx + dy * dy <= 1
    box = (dx.abs() <= 0.85) & (dy.abs() <= 0.85)
    mask = torch.where(torch.rand(n, 1, 1, generator=gen) < 0.5, ellipse, box).float().unsqueeze(1)
    image = mask * texture(gen, n, size) + (1 - mask) * texture(gen, n, size) * 0.8
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return (image - mean) / std, mask


def train(model):
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(29)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for step in range(STEPS):
        images, masks = batch(gen, BATCH, TRAIN_SIZE)
        loss = sum(F.binary_cross_entropy(out, masks) for out in model(images))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == STEPS - 1:
            print(f"step {step}: loss {loss.item():.3f}", flush=True)
    model.eval()
    for size in (TRAIN_SIZE, SIZE):
        images, masks = batch(gen, 16, size)
        with torch.no_grad():
            pred = model(images)[0] > 0.5
        iou = ((pred & (masks > 0.5)).sum() / (pred | (masks > 0.5)).sum()).item()
        print(f"held-out IoU at {size}x{size}: {iou:.3f}")


def write(path):
    torch.manual_seed(29)
    model = SegNet()
    train(model)
    names = ["mask"] + [f"side{i}" for i in range(1, 7)]
    torch.onnx.export(model, torch.zeros(1, 3, SIZE, SIZE), path + ".tmp", input_names=["input_image"],
                      output_names=names, opset_version=17)
    import onnx
    onnx.checker.check_model(onnx.load(path + ".tmp"))
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="build/models/seg")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folder = args.out if os.path.isabs(args.out) else os.path.join(root, args.out)
    path = os.path.join(folder, "u2net-lite.onnx")
    if os.path.exists(path) and not args.force:
        return 0
    os.makedirs(folder, exist_ok=True)
    write(path)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
