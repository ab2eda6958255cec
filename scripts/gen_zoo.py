#!/usr/bin/python3
"""Export a small zoo of torchvision image classifiers to ONNX for webnx.

Usage:
    /usr/bin/python3 scripts/gen_zoo.py --out build/models [--only NAME ...] [--force]

For every model in ZOO this writes two files into --out (relative paths are
resolved against the repository root):

    <name>.onnx       static input  "input" [1,3,224,224] -> "output"
    <name>_dyn.onnx   dynamic batch "input" [N,3,224,224] -> "output" [N,...]

Models are built with random weights (weights=None) after torch.manual_seed(0),
put in eval mode (so BatchNorm uses its running stats, Dropout and stochastic
depth are identities and the exporter folds BatchNorm into the convolutions),
and exported with opset 13 and constant folding.

The script is idempotent: a model whose two files already exist is skipped
unless --force is given. Every file is written to a temporary name in the
output directory, checked with onnx.checker and only then renamed into place,
so an interrupted run never leaves a partial model behind.

Finally every zoo file present in --out is checked again, its op-type
histogram is printed, and <out>/ops.json is (re)written, mapping each model
file name to the sorted list of op types it uses.
"""

import argparse
import collections
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import onnx
import torch
import torchvision

REPO_ROOT = Path(__file__).resolve().parent.parent
OPSET = 13
INPUT_SHAPE = (1, 3, 224, 224)
ZOO = (
    "mobilenet_v2",
    "mobilenet_v3_small",
    "mobilenet_v3_large",
    "resnet18",
    "squeezenet1_1",
    "efficientnet_b0",
    "shufflenet_v2_x1_0",
)
# Ops whose presence would mean the graph was exported in training mode.
TRAINING_ONLY_OPS = {"Dropout"}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="build/models",
                   help="output directory (relative to the repo root; default build/models)")
    p.add_argument("--only", nargs="+", choices=ZOO, metavar="NAME",
                   help="export only these models (choices: %s)" % ", ".join(ZOO))
    p.add_argument("--force", action="store_true", help="re-export even if the files exist")
    return p.parse_args(argv)


def resolve_out_dir(out):
    path = Path(out)
    return path if path.is_absolute() else REPO_ROOT / path


def model_files(out_dir, name):
    return out_dir / f"{name}.onnx", out_dir / f"{name}_dyn.onnx"


def build_model(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    model.eval()
    return model


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def export_atomic(model, path, dynamic):
    """Export `model` to `path` through a temp file that is checked, then renamed."""
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp creates 0600; use normal perms
    try:
        dummy = torch.zeros(INPUT_SHAPE, dtype=torch.float32)
        dynamic_axes = {"input": {0: "N"}, "output": {0: "N"}} if dynamic else None
        with torch.no_grad():
            torch.onnx.export(
                model, dummy, tmp,
                export_params=True,
                opset_version=OPSET,
                do_constant_folding=True,
                training=torch.onnx.TrainingMode.EVAL,
                input_names=["input"],
                output_names=["output"],
                dynamic_axes=dynamic_axes,
            )
        onnx.checker.check_model(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def export_one(name, out_dir, force):
    static_path, dyn_path = model_files(out_dir, name)
    if not force and static_path.exists() and dyn_path.exists():
        print(f"{name:20s} skipped (files exist; use --force to re-export)", flush=True)
        return
    start = time.monotonic()
    model = build_model(name)
    export_atomic(model, static_path, dynamic=False)
    export_atomic(model, dyn_path, dynamic=True)
    print(f"{name:20s} exported in {time.monotonic() - start:6.1f} s", flush=True)


def op_histogram(model):
    """Count op types over the main graph and any subgraphs (If/Loop bodies)."""
    counts = collections.Counter()

    def walk(graph):
        for node in graph.node:
            counts[node.op_type if not node.domain or node.domain == "ai.onnx"
                   else f"{node.domain}::{node.op_type}"] += 1
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)

    walk(model.graph)
    return counts


def training_mode_problems(model):
    """Return descriptions of nodes that only make sense in training mode."""
    problems = []
    for node in model.graph.node:
        if node.op_type in TRAINING_ONLY_OPS:
            problems.append(f"{node.op_type} node {node.name!r}")
        if node.op_type == "BatchNormalization":
            for attr in node.attribute:
                if attr.name == "training_mode" and attr.i != 0:
                    problems.append(f"BatchNormalization {node.name!r} has training_mode=1")
    return problems


def io_signature(model):
    def dims(value_info):
        return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]

    ins = ", ".join(f"{v.name}{dims(v)}" for v in model.graph.input)
    outs = ", ".join(f"{v.name}{dims(v)}" for v in model.graph.output)
    return f"{ins} -> {outs}"


def inspect_file(path):
    """Check one model file, print its summary and return its sorted op list."""
    onnx.checker.check_model(str(path))
    model = onnx.load(str(path))
    counts = op_histogram(model)
    problems = training_mode_problems(model)
    size_kb = path.stat().st_size / 1024
    print(f"\n{path.name}  ({size_kb:.0f} KiB, opset "
          f"{model.opset_import[0].version}, {sum(counts.values())} nodes)  {io_signature(model)}")
    for op, n in sorted(counts.items()):
        print(f"    {op:24s} {n}")
    if problems:
        raise RuntimeError(f"{path.name}: training-mode ops: " + "; ".join(problems))
    return sorted(counts)


def write_json_atomic(path, data):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def summarize(out_dir):
    """Check every zoo file present in out_dir and write ops.json for all of them."""
    ops = {}
    for name in ZOO:
        for path in model_files(out_dir, name):
            if path.exists():
                ops[path.name] = inspect_file(path)
    union = sorted(set().union(*ops.values())) if ops else []
    print(f"\nunion of op types ({len(union)}): {' '.join(union)}")
    ops_path = out_dir / "ops.json"
    write_json_atomic(ops_path, ops)
    print(f"wrote {ops_path}")


def exit_on_sigterm(signum, frame):
    """Turn SIGTERM into SystemExit so temp files are cleaned up like on Ctrl-C."""
    raise SystemExit(128 + signum)


def main(argv=None):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    torch.set_num_threads(1)
    out_dir = resolve_out_dir(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    total = time.monotonic()
    for name in args.only or ZOO:
        export_one(name, out_dir, args.force)
    print(f"exports done in {time.monotonic() - total:.1f} s", flush=True)
    summarize(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
