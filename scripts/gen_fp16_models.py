#!/usr/bin/python3
"""Write float16 variants of zoo models. <name>_fp16w.onnx as onnxconverter-common's
keep_io_types export writes them: every float initializer stored as float16 and read through a
Cast to float, the graph computing in float32; webnx folds each Cast at load (the weights widened
once). <name>_fp16.onnx float16 end to end: inputs, outputs, weights and every value float16;
webnx computes it in float32 (core/passes/float16_in_float32.h). Both should run as fast as the
float32 export: tests/node/float16.test.mjs checks the outputs against onnxruntime-node,
bench/quantized.mjs measures them.

Usage:
    /usr/bin/python3 scripts/gen_fp16_models.py [--models build/models] [--out build/models/fp16]
"""
import argparse
import os
import pathlib

import numpy as np
import onnx
from onnx import helper, numpy_helper

MODELS = ["mobilenet_v2", "resnet18"]


def to_fp16_weights(model):
    graph = model.graph
    casts = []
    for i, init in enumerate(graph.initializer):
        if init.data_type != onnx.TensorProto.FLOAT:
            continue
        name = init.name
        half = numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), name + "_fp16")
        graph.initializer[i].CopyFrom(half)
        casts.append(helper.make_node("Cast", [name + "_fp16"], [name], name=name + "_to_float",
                                      to=onnx.TensorProto.FLOAT))
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    return model


def to_fp16_graph(model):
    graph = model.graph
    for init in graph.initializer:
        if init.data_type == onnx.TensorProto.FLOAT:
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), init.name))
    for value in list(graph.input) + list(graph.output) + list(graph.value_info):
        if value.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
            value.type.tensor_type.elem_type = onnx.TensorProto.FLOAT16
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == onnx.TensorProto.FLOAT:
                attr.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(attr.t).astype(np.float16), attr.t.name))
            if node.op_type == "Cast" and attr.name == "to" and attr.i == onnx.TensorProto.FLOAT:
                attr.i = onnx.TensorProto.FLOAT16
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="build/models")
    ap.add_argument("--out", default="build/models/fp16")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in MODELS:
        model = onnx.load(pathlib.Path(args.models) / f"{name}.onnx")
        onnx.checker.check_model(to_fp16_weights(model))
        onnx.save(model, pathlib.Path(args.out) / f"{name}_fp16w.onnx")
        print(f"{args.out}/{name}_fp16w.onnx")
        model = onnx.load(pathlib.Path(args.models) / f"{name}.onnx")
        onnx.checker.check_model(to_fp16_graph(model))
        onnx.save(model, pathlib.Path(args.out) / f"{name}_fp16.onnx")
        print(f"{args.out}/{name}_fp16.onnx")


if __name__ == "__main__":
    main()
