#!/usr/bin/python3
"""Write NHWC variants of zoo models, as tf2onnx and jax2onnx export them: the graph input is NHWC,
activations stay NHWC, and every op that only takes NCHW (Conv, pooling, BatchNormalization) is
wrapped in a Transpose to NCHW before it and one back to NHWC after it. Same outputs as the
original. webnx's transpose-folding pass (core/passes/fold_transposes.cc) should run them as fast
as the NCHW export; tests/node/nhwc.test.mjs and bench/run.mjs --only <name>_nhwc check that.

Usage:
    /usr/bin/python3 scripts/gen_nhwc_models.py [--models build/models] [--out build/models/nhwc]

Reads <models>/<name>.onnx for mobilenet_v2 and resnet18 (make models), writes
<out>/<name>_nhwc.onnx. Existing files are rewritten (this takes a second).
"""
import argparse
import os
import pathlib

import onnx
from onnx import helper

NCHW_ONLY = {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
             "BatchNormalization"}
TO_NCHW = [0, 3, 1, 2]
TO_NHWC = [0, 2, 3, 1]


def to_nhwc(model):
    graph = model.graph
    x = graph.input[0]
    dims = x.type.tensor_type.shape.dim
    n, c, h, w = (dims[i] for i in range(4))
    new_dims = [n, h, w, c]
    shape = [d.dim_param if d.dim_param else d.dim_value for d in new_dims]
    nhwc_input = helper.make_tensor_value_info(x.name, x.type.tensor_type.elem_type, shape)
    nodes = []
    for node in graph.node:
        if node.op_type not in NCHW_ONLY:
            nodes.append(node)
            continue
        src, out = node.input[0], node.output[0]
        nodes.append(helper.make_node("Transpose", [src], [src + "/nchw_" + node.name],
                                      name=node.name + "/to_nchw", perm=TO_NCHW))
        node.input[0] = src + "/nchw_" + node.name
        node.output[0] = out + "/nchw"
        nodes.append(node)
        nodes.append(helper.make_node("Transpose", [out + "/nchw"], [out],
                                      name=node.name + "/to_nhwc", perm=TO_NHWC))
    del graph.node[:]
    graph.node.extend(nodes)
    graph.input.remove(x)
    graph.input.insert(0, nhwc_input)
    del graph.value_info[:]
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="build/models")
    parser.add_argument("--out", default="build/models/nhwc")
    args = parser.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    models = (root / args.models).resolve()
    out = (root / args.out).resolve()
    os.makedirs(out, exist_ok=True)
    for name in ["mobilenet_v2", "resnet18"]:
        model = to_nhwc(onnx.load(models / f"{name}.onnx"))
        onnx.checker.check_model(model)
        path = out / f"{name}_nhwc.onnx"
        onnx.save(model, path)
        transposes = sum(1 for node in model.graph.node if node.op_type == "Transpose")
        print(f"{path.name}: {transposes} Transpose nodes")


if __name__ == "__main__":
    main()
