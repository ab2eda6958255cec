"""Counts the multiply-accumulates of Conv, Gemm and MatMul nodes in ONNX models (batch 1),
for the benchmark's GFLOP/s column. Writes {file: flops} (2 flops per MAC) as JSON.

usage: /usr/bin/python3 scripts/model_flops.py build/models/*.onnx --out build/models/flops.json
"""
import argparse
import json
import os

import onnx
from onnx import shape_inference


def shapes_of(model):
    inferred = shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    for init in model.graph.initializer:
        shapes[init.name] = list(init.dims)
    return shapes


def prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


def count_macs(model):
    shapes = shapes_of(model)
    macs = 0
    for node in model.graph.node:
        if node.op_type == "Conv":
            w = shapes.get(node.input[1])
            y = shapes.get(node.output[0])
            if w and y:
                macs += prod(y) * prod(w[1:])
        elif node.op_type in ("Gemm", "MatMul"):
            a = shapes.get(node.input[0])
            y = shapes.get(node.output[0])
            if a and y:
                trans_a = any(at.name == "transA" and at.i for at in node.attribute)
                k = a[-2] if trans_a else a[-1]
                macs += prod(y) * k
    return macs


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models", nargs="+")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    result = {os.path.basename(p): 2 * count_macs(onnx.load(p)) for p in args.models}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    for name, flops in sorted(result.items()):
        print(f"{name:32s} {flops / 1e9:.3f} GFLOP")


if __name__ == "__main__":
    main()
