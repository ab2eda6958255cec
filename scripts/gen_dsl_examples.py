#!/usr/bin/python3
"""Writes the JSON graph DSL examples in examples/dsl/ (docs/dsl.md), reproducibly.

  mobilenet_v2_block.json       a small MobileNetV2 (stem, five inverted residual blocks, head,
                                classifier) in the webnx-graph NHWC dialect, seeded weights
  neataptic_mlp.json            NeatapticTS-style ONNX-JSON exports: a layered MLP,
  neataptic_mixed_activation.json   per-neuron Gemm + activation joined by Concat,
  neataptic_recurrent.json      one recurrent step with a hidden_prev input (and the exporter's
                                experimental fused GRU node beside it, which no output reads),
  neataptic_conv.json           Conv + MaxPool + Flatten + dense.

The NeatapticTS documents follow its exporter's JSON shape (snake_case, plural graph
inputs/outputs, "input"/"output"/"attributes" per node, attribute types as strings, float_data,
metadata_props). Its conv export feeds Conv a flat [N, C*H*W] vector, which is not valid ONNX;
neataptic_conv.json gives Conv the 4-D [N, C, H, W] it needs.

usage: scripts/gen_dsl_examples.py [--out examples/dsl]
"""
import argparse
import base64
import json
import os

import numpy as np


def f32(a):
    return np.asarray(a, dtype=np.float32)


def b64(a):
    return base64.b64encode(f32(a).astype("<f4").tobytes()).decode("ascii")


def rounded(a, digits=3):
    """Float32 values that print short: rounded decimals, exact after the float32 round trip."""
    return [float(np.float32(round(float(v), digits))) for v in np.ravel(a)]


def short(values):
    """Shortest text that reads back as the same float32."""
    return [float(np.format_float_positional(np.float32(v), unique=True, trim="-")) for v in values]


# --- webnx-graph: MobileNetV2, NHWC ---------------------------------------------------------


class NhwcGraph:
    def __init__(self, rng):
        self.rng = rng
        self.tensors = {}
        self.nodes = []

    def weight(self, name, shape, fan_in):
        w = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        self.tensors[name] = {"dtype": "float32", "shape": list(shape), "base64": b64(w)}
        return name

    def batchnorm_params(self, prefix, c):
        # Inline "data" lists: a readable form next to base64.
        params = {
            "gamma": 1 + 0.1 * self.rng.standard_normal(c),
            "beta": 0.1 * self.rng.standard_normal(c),
            "mean": 0.1 * self.rng.standard_normal(c),
            "var": 1 + 0.5 * self.rng.random(c),
        }
        names = []
        for key in ("gamma", "beta", "mean", "var"):
            name = f"{prefix}.{key}"
            self.tensors[name] = {"dtype": "float32", "shape": [c], "data": short(rounded(params[key]))}
            names.append(name)
        return names

    def node(self, op, id, inputs, attrs=None):
        n = {"id": id, "op": op, "inputs": inputs}
        if attrs:
            n["attrs"] = attrs
        self.nodes.append(n)
        return id

    def conv_bn(self, x, prefix, cin, cout, k=1, stride=1, act=True):
        """Conv2D (HWIO kernel) + BatchNorm (+ Relu6). Stride 2 pads TensorFlow's 'same' way
        (the extra row and column at the bottom and right)."""
        pad = [(k - 1) // 2] * 4 if stride == 1 else [(k - 2) // 2, (k - 2) // 2, k // 2, k // 2]
        w = self.weight(f"{prefix}.kernel", (k, k, cin, cout), k * k * cin)
        attrs = {"kernel_shape": [k, k], "strides": [stride, stride], "pads": pad}
        y = self.node("Conv2D", f"{prefix}.conv", [x, w], attrs if k > 1 or stride > 1 else None)
        y = self.node("BatchNorm", f"{prefix}.bn", [y] + self.batchnorm_params(prefix, cout),
                      {"epsilon": 0.001})
        return self.node("Relu6", f"{prefix}.relu6", [y]) if act else y

    def dw_bn(self, x, prefix, c, stride):
        w = self.weight(f"{prefix}.kernel", (3, 3, c, 1), 9)
        pad = [1, 1, 1, 1] if stride == 1 else [0, 0, 1, 1]
        y = self.node("DepthwiseConv2D", f"{prefix}.dwconv", [x, w],
                      {"kernel_shape": [3, 3], "strides": [stride, stride], "pads": pad})
        y = self.node("BatchNorm", f"{prefix}.bn", [y] + self.batchnorm_params(prefix, c),
                      {"epsilon": 0.001})
        return self.node("Relu6", f"{prefix}.relu6", [y])

    def inverted_residual(self, x, prefix, cin, cout, expand, stride):
        h = x
        hidden = cin * expand
        if expand != 1:
            h = self.conv_bn(h, f"{prefix}.expand", cin, hidden)
        h = self.dw_bn(h, f"{prefix}.depthwise", hidden, stride)
        h = self.conv_bn(h, f"{prefix}.project", hidden, cout, act=False)
        if stride == 1 and cin == cout:
            h = self.node("Add", f"{prefix}.add", [x, h])
        return h


def mobilenet_v2(seed=20251127):
    g = NhwcGraph(np.random.default_rng(seed))
    x = g.conv_bn("image", "stem", 3, 16, k=3, stride=2)
    # (expansion, channels, repeats, first stride): a narrow, short MobileNetV2.
    cin = 16
    for i, (t, c, n, s) in enumerate([(1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 2, 2)]):
        for j in range(n):
            x = g.inverted_residual(x, f"block{i + 1}_{j + 1}", cin, c, t, s if j == 0 else 1)
            cin = c
    x = g.conv_bn(x, "head", cin, 64)
    x = g.node("GlobalAveragePool", "pool", [x])
    x = g.node("Reshape", "flatten", [x], {"shape": [-1, 64]})
    # The classifier weight is stored [classes, features], as frameworks keep it: transB.
    w = g.weight("classifier.weight", (10, 64), 64)
    g.tensors["classifier.bias"] = {"dtype": "float32", "shape": [10],
                                    "data": short(rounded(0.01 * g.rng.standard_normal(10)))}
    x = g.node("MatMul", "classifier.matmul", [x, w], {"transB": True})
    g.node("Add", "logits", [x, "classifier.bias"])
    return {
        "$schema": "../../docs/webnx-graph.schema.json",
        "format": "webnx-graph",
        "version": 1,
        "layout": "NHWC",
        "producer": "scripts/gen_dsl_examples.py",
        "metadata": {"description": "A narrow MobileNetV2 (stem, 5 inverted residual blocks, head, "
                                    "classifier) on 32x32 NHWC images; random weights, seed 20251127"},
        "inputs": [{"name": "image", "dtype": "float32", "shape": ["N", 32, 32, 3]}],
        "outputs": ["logits"],
        "tensors": g.tensors,
        "nodes": g.nodes,
    }


# --- NeatapticTS-style ONNX-JSON ------------------------------------------------------------


def value_info(name, features, batch=True):
    dims = ([{"dim_param": "N"}] if batch else []) + [{"dim_value": d} for d in features]
    return {"name": name, "type": {"tensor_type": {"elem_type": 1, "shape": {"dim": dims}}}}


def initializer(name, array):
    a = f32(array)
    return {"name": name, "data_type": 1, "dims": list(a.shape), "float_data": short(np.ravel(a))}


GEMM_ATTRIBUTES = [
    {"name": "alpha", "type": "FLOAT", "f": 1},
    {"name": "beta", "type": "FLOAT", "f": 1},
    {"name": "transB", "type": "INT", "i": 1},
]


def neataptic_model(graph, metadata):
    return {
        "ir_version": 9,
        "opset_import": [{"version": 18, "domain": ""}],
        "producer_name": "neataptic-ts",
        "producer_version": "0.1.0",
        "doc_string": "NeatapticTS-style export written by scripts/gen_dsl_examples.py",
        "metadata_props": [{"key": k, "value": json.dumps(v, separators=(",", ":"))}
                           for k, v in metadata.items()],
        "graph": graph,
    }


def dense_layer(nodes, inits, k, prev, w, b, activation, out=None):
    inits += [initializer(f"W{k}", w), initializer(f"B{k}", b)]
    nodes.append({"op_type": "Gemm", "input": [prev, f"W{k}", f"B{k}"], "output": [f"Gemm_{k}"],
                  "name": f"gemm_l{k}", "attributes": GEMM_ATTRIBUTES})
    out = out or f"Layer_{k}"
    nodes.append({"op_type": activation, "input": [f"Gemm_{k}"], "output": [out], "name": f"act_l{k}"})
    return out


def neataptic_mlp(rng):
    sizes = [4, 5, 3, 2]
    acts = ["Tanh", "Relu", "Sigmoid"]
    nodes, inits, prev = [], [], "input"
    for k in range(3):
        w = rounded(rng.standard_normal((sizes[k + 1], sizes[k])))
        b = rounded(0.1 * rng.standard_normal(sizes[k + 1]))
        prev = dense_layer(nodes, inits, k, prev, np.reshape(w, (sizes[k + 1], sizes[k])), b, acts[k],
                           "output" if k == 2 else None)
    graph = {"inputs": [value_info("input", [4])], "outputs": [value_info("output", [2])],
             "initializer": inits, "node": nodes}
    return neataptic_model(graph, {"layer_sizes": [5, 3]})


def neataptic_mixed(rng):
    nodes, inits = [], []
    acts = ["Tanh", "Relu", "Sigmoid", "Identity"]
    layer = []
    for i, act in enumerate(acts):  # hidden layer 1, one Gemm + activation per neuron
        inits += [initializer(f"W0_n{i}", np.reshape(rounded(rng.standard_normal(3)), (1, 3))),
                  initializer(f"B0_n{i}", rounded(0.1 * rng.standard_normal(1)))]
        nodes.append({"op_type": "Gemm", "input": ["input", f"W0_n{i}", f"B0_n{i}"],
                      "output": [f"Gemm_1_n{i}"], "name": f"gemm_l1_n{i}", "attributes": GEMM_ATTRIBUTES})
        nodes.append({"op_type": act, "input": [f"Gemm_1_n{i}"], "output": [f"Layer_1_n{i}"],
                      "name": f"act_l1_n{i}"})
        layer.append(f"Layer_1_n{i}")
    nodes.append({"op_type": "Concat", "input": layer, "output": ["Layer_1"], "name": "concat_l1",
                  "attributes": [{"name": "axis", "type": "INT", "i": 1}]})
    dense_layer(nodes, inits, 1, "Layer_1", np.reshape(rounded(rng.standard_normal(8)), (2, 4)),
                rounded(0.1 * rng.standard_normal(2)), "Sigmoid", "output")
    graph = {"inputs": [value_info("input", [3])], "outputs": [value_info("output", [2])],
             "initializer": inits, "node": nodes}
    return neataptic_model(graph, {"layer_sizes": [4]})


def neataptic_recurrent(rng):
    hidden, inputs = 8, 3
    nodes, inits = [], []
    w0 = np.reshape(rounded(rng.standard_normal(hidden * inputs)), (hidden, inputs))
    b0 = rounded(0.1 * rng.standard_normal(hidden))
    r0 = np.diag(rounded(0.5 * rng.standard_normal(hidden)))  # self-connections only
    inits += [initializer("W0", w0), initializer("B0", b0), initializer("R0", r0)]
    nodes += [
        {"op_type": "Gemm", "input": ["input", "W0", "B0"], "output": ["Gemm_in_1"],
         "name": "gemm_in_l1", "attributes": GEMM_ATTRIBUTES},
        {"op_type": "Gemm", "input": ["hidden_prev", "R0"], "output": ["Gemm_rec_1"],
         "name": "gemm_rec_l1", "attributes": GEMM_ATTRIBUTES},
        {"op_type": "Add", "input": ["Gemm_in_1", "Gemm_rec_1"], "output": ["RecurrentSum_1"],
         "name": "add_recurrent_l1"},
        {"op_type": "Tanh", "input": ["RecurrentSum_1"], "output": ["Layer_1"], "name": "act_l1"},
    ]
    # The exporter's experimental fused GRU, emitted beside the unfused path with its simplified
    # (non-ONNX) weight shapes; nothing reads its output.
    inits += [initializer("GRU_W0", np.zeros((3 * hidden, inputs))),
              initializer("GRU_R0", np.zeros((3 * hidden, hidden))),
              initializer("GRU_B0", np.zeros(3 * hidden))]
    nodes.append({"op_type": "GRU", "input": ["input", "GRU_W0", "GRU_R0", "GRU_B0"],
                  "output": ["Layer_1_gru_hidden"], "name": "gru_l1",
                  "attributes": [{"name": "hidden_size", "type": "INT", "i": hidden},
                                 {"name": "layout", "type": "INT", "i": 0}]})
    dense_layer(nodes, inits, 1, "Layer_1", np.reshape(rounded(rng.standard_normal(2 * hidden)), (2, hidden)),
                rounded(0.1 * rng.standard_normal(2)), "Sigmoid", "output")
    graph = {"inputs": [value_info("input", [inputs]), value_info("hidden_prev", [hidden])],
             "outputs": [value_info("output", [2])], "initializer": inits, "node": nodes}
    return neataptic_model(graph, {"layer_sizes": [hidden], "recurrent_single_step": [1],
                                   "gru_emitted_layers": [1]})


def neataptic_conv(rng):
    nodes, inits = [], []
    inits += [initializer("ConvW0", np.reshape(rounded(rng.standard_normal(2 * 9)), (2, 1, 3, 3))),
              initializer("ConvB0", rounded(0.1 * rng.standard_normal(2)))]
    conv_attributes = [{"name": "kernel_shape", "type": "INTS", "ints": [3, 3]},
                       {"name": "strides", "type": "INTS", "ints": [1, 1]},
                       {"name": "pads", "type": "INTS", "ints": [0, 0, 0, 0]}]
    pool_attributes = [{"name": "kernel_shape", "type": "INTS", "ints": [2, 2]},
                       {"name": "strides", "type": "INTS", "ints": [2, 2]},
                       {"name": "pads", "type": "INTS", "ints": [0, 0, 0, 0]}]
    nodes += [
        {"op_type": "Conv", "input": ["input", "ConvW0", "ConvB0"], "output": ["Conv_1"],
         "name": "conv_l1", "attributes": conv_attributes},
        {"op_type": "Relu", "input": ["Conv_1"], "output": ["Layer_1"], "name": "act_conv_l1"},
        {"op_type": "MaxPool", "input": ["Layer_1"], "output": ["Pool_1"], "name": "pool_after_l1",
         "attributes": pool_attributes},
        {"op_type": "Flatten", "input": ["Pool_1"], "output": ["PoolFlat_1"], "name": "flatten_after_l1",
         "attributes": [{"name": "axis", "type": "INT", "i": 1}]},
    ]
    dense_layer(nodes, inits, 1, "PoolFlat_1", np.reshape(rounded(rng.standard_normal(3 * 8)), (3, 8)),
                rounded(0.1 * rng.standard_normal(3)), "Sigmoid", "output")
    graph = {"inputs": [value_info("input", [1, 6, 6])], "outputs": [value_info("output", [3])],
             "initializer": inits, "node": nodes}
    spec = {"layerIndex": 1, "inHeight": 6, "inWidth": 6, "inChannels": 1, "kernelHeight": 3,
            "kernelWidth": 3, "strideHeight": 1, "strideWidth": 1, "outHeight": 4, "outWidth": 4,
            "outChannels": 2}
    pool = {"afterLayerIndex": 1, "type": "MaxPool", "kernelHeight": 2, "kernelWidth": 2,
            "strideHeight": 2, "strideWidth": 2}
    return neataptic_model(graph, {"layer_sizes": [32, 8], "conv2d_layers": [1], "conv2d_specs": [spec],
                                   "pool2d_layers": [1], "pool2d_specs": [pool], "flatten_layers": [1]})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "examples", "dsl"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(7)
    docs = {
        "mobilenet_v2_block.json": (mobilenet_v2(), 1),
        "neataptic_mlp.json": (neataptic_mlp(rng), 2),
        "neataptic_mixed_activation.json": (neataptic_mixed(rng), 2),
        "neataptic_recurrent.json": (neataptic_recurrent(rng), 2),
        "neataptic_conv.json": (neataptic_conv(rng), 2),
    }
    for name, (doc, indent) in docs.items():
        path = os.path.join(args.out, name)
        with open(path, "w") as f:
            json.dump(doc, f, indent=indent)
            f.write("\n")
        size = os.path.getsize(path)
        assert size < 200_000, f"{name} is {size} bytes"
        print(f"wrote {path} ({size} bytes)")


if __name__ == "__main__":
    main()
