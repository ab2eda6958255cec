#!/usr/bin/python3
"""Train webnx's demo model: a tiny MobileNet-style CNN on scikit-learn's digits.

Usage:
    /usr/bin/python3 scripts/train_digits.py [--out-dir examples/digits] [--epochs N]

Data: sklearn.datasets.load_digits (1797 grayscale 8x8 images, integer values
0..16, 10 classes). Inputs are scaled to [0,1] as x/16. A fixed stratified 20%
split (random_state=0) is held out and never used for training.

Model (see DigitsMobileNet): a 3x3 stem conv, four inverted residual blocks
(1x1 expand -> depthwise 3x3 -> 1x1 project, BatchNorm after each conv,
ReLU6 in the first two blocks and HardSwish in the last two), a 1x1 head conv,
global average pooling and a linear classifier.

Training is deterministic: fixed seeds, torch.use_deterministic_algorithms,
one thread, a seeded generator for shuffling and for the +-1 pixel shift
augmentation. Re-running the script reproduces bitwise-identical weights and
therefore an identical ONNX file (its sha256 is printed and recorded).

Outputs (paths relative to the repo root unless absolute):
    <out-dir>/digits_mobilenet.onnx  opset 13, "input" [N,1,8,8] float32 -> "logits" [N,10]
    <out-dir>/heldout.json           the held-out images (raw ints 0..16), labels,
                                     PyTorch predictions/accuracy and the model's sha256
"""

import argparse
import hashlib
import json
import os
import random
import signal
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn

REPO_ROOT = Path(__file__).resolve().parent.parent
SEED = 0
OPSET = 13
MODEL_NAME = "digits_mobilenet.onnx"
HELDOUT_NAME = "heldout.json"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out-dir", default="examples/digits",
                   help="output directory, relative to the repo root (default examples/digits)")
    p.add_argument("--epochs", type=int, default=60, help="training epochs (default 60)")
    p.add_argument("--batch-size", type=int, default=32, help="minibatch size (default 32)")
    p.add_argument("--lr", type=float, default=0.01, help="peak learning rate (default 0.01)")
    p.add_argument("--min-accuracy", type=float, default=0.95,
                   help="fail if held-out accuracy is below this (default 0.95)")
    return p.parse_args(argv)


def make_deterministic(seed):
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


# ----------------------------------------------------------------------------- data

def load_split(seed):
    """Return (train_images, train_labels, test_images, test_labels) as raw int arrays."""
    digits = load_digits()
    images = digits.data.astype(np.int64)  # [1797, 64], values 0..16
    labels = digits.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(
        images, labels, test_size=0.2, stratify=labels, random_state=seed)
    return x_tr, y_tr, x_te, y_te


def to_tensor(images):
    """Raw 0..16 ints [N,64] -> float32 [N,1,8,8] scaled by 1/16 (the model's input)."""
    return torch.from_numpy(images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)


def random_shift(x, gen, max_shift=1):
    """Shift each image by up to +-max_shift pixels in x and y (zero fill)."""
    n = x.shape[0]
    padded = nn.functional.pad(x, (max_shift,) * 4)
    offs = torch.randint(0, 2 * max_shift + 1, (n, 2), generator=gen)
    out = torch.empty_like(x)
    for i in range(n):
        dy, dx = int(offs[i, 0]), int(offs[i, 1])
        out[i] = padded[i, :, dy:dy + 8, dx:dx + 8]
    return out


# ----------------------------------------------------------------------------- model

class InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand, depthwise 3x3, 1x1 linear projection."""

    def __init__(self, cin, cout, stride, expand, act):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), act(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden), act(),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout),
        )

    def forward(self, x):
        y = self.body(x)
        return x + y if self.use_res else y


class DigitsMobileNet(nn.Module):
    """8x8 -> stem(12) -> IR blocks (8x8 x2, 4x4 x2) -> 1x1 head(48) -> GAP -> linear(10)."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 12, 3, 1, 1, bias=False), nn.BatchNorm2d(12), nn.Hardswish(),
            InvertedResidual(12, 12, 1, 2, nn.ReLU6),
            InvertedResidual(12, 16, 1, 3, nn.ReLU6),
            InvertedResidual(16, 24, 2, 3, nn.Hardswish),
            InvertedResidual(24, 24, 1, 3, nn.Hardswish),
            nn.Conv2d(24, 48, 1, bias=False), nn.BatchNorm2d(48), nn.Hardswish(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(48, num_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


# ----------------------------------------------------------------------------- training

def train(model, x_tr, y_tr, args, seed):
    gen = torch.Generator().manual_seed(seed)
    x, y = to_tensor(x_tr), torch.from_numpy(y_tr)
    steps_per_epoch = (len(x) + args.batch_size - 1) // args.batch_size
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), args.batch_size):
            idx = perm[i:i + args.batch_size]
            xb = random_shift(x[idx], gen)
            loss = loss_fn(model(xb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(idx)
        if (epoch + 1) % 10 == 0 or epoch == 0:
            print(f"  epoch {epoch + 1:3d}/{args.epochs}  loss {total / len(x):.4f}", flush=True)


@torch.no_grad()
def predict(model, images):
    model.eval()
    logits = model(to_tensor(images))
    return logits, logits.argmax(1).numpy()


def min_margin(logits):
    """Smallest top1 - top2 logit gap: how robust the argmax is to numeric noise."""
    top2 = logits.topk(2, dim=1).values
    return float((top2[:, 0] - top2[:, 1]).min())


# ----------------------------------------------------------------------------- output

def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path, data):
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(data)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def export_onnx(model, path):
    """Export the eval model (BatchNorm folded into convs) and return the file bytes."""
    model.eval()
    tmp = path.with_name(path.name + ".export.tmp")
    try:
        with torch.no_grad():
            torch.onnx.export(
                model, torch.zeros(1, 1, 8, 8), str(tmp),
                export_params=True,
                opset_version=OPSET,
                do_constant_folding=True,
                training=torch.onnx.TrainingMode.EVAL,
                input_names=["input"],
                output_names=["logits"],
                dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}},
            )
        onnx.checker.check_model(str(tmp))
        data = tmp.read_bytes()
    finally:
        if tmp.exists():
            tmp.unlink()
    write_atomic(path, data)
    return data


def op_summary(path):
    model = onnx.load(str(path))
    ops = {}
    for node in model.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(ops.items()))


def heldout_record(x_te, y_te, preds, accuracy, sha):
    return {
        "input_name": "input",
        "shape": [1, 8, 8],
        "scale": "x/16",
        "images": [[int(v) for v in img] for img in x_te],
        "labels": [int(v) for v in y_te],
        "pytorch_predictions": [int(v) for v in preds],
        "pytorch_accuracy": accuracy,
        "model_sha256": sha,
    }


def display(path):
    return path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path


def exit_on_sigterm(signum, frame):
    """Turn SIGTERM into SystemExit so temp files are cleaned up like on Ctrl-C."""
    raise SystemExit(128 + signum)


def main(argv=None):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    make_deterministic(SEED)
    out_dir = Path(args.out_dir)
    out_dir = out_dir if out_dir.is_absolute() else REPO_ROOT / out_dir
    out_dir.mkdir(parents=True, exist_ok=True)

    x_tr, y_tr, x_te, y_te = load_split(SEED)
    print(f"digits: {len(x_tr)} train / {len(x_te)} held-out images")
    model = DigitsMobileNet()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params} parameters; training {args.epochs} epochs", flush=True)

    start = time.process_time()
    wall = time.monotonic()
    train(model, x_tr, y_tr, args, SEED)
    print(f"train time: {time.process_time() - start:.1f} s CPU, "
          f"{time.monotonic() - wall:.1f} s wall")

    logits, preds = predict(model, x_te)
    accuracy = float((preds == y_te).mean())
    print(f"held-out accuracy: {accuracy:.4f} ({int((preds == y_te).sum())}/{len(y_te)}), "
          f"min top-2 logit margin {min_margin(logits):.4f}")
    if accuracy < args.min_accuracy:
        print(f"error: accuracy below --min-accuracy {args.min_accuracy}", file=sys.stderr)
        return 1

    model_path, heldout_path = out_dir / MODEL_NAME, out_dir / HELDOUT_NAME
    data = export_onnx(model, model_path)
    sha = hashlib.sha256(data).hexdigest()
    record = heldout_record(x_te, y_te, preds, accuracy, sha)
    write_atomic(heldout_path, (json.dumps(record, separators=(",", ":")) + "\n").encode())

    print(f"ops: {op_summary(model_path)}")
    print(f"{display(model_path)}: {model_path.stat().st_size} bytes, sha256 {sha}")
    print(f"{display(heldout_path)}: {heldout_path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
