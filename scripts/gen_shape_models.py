#!/usr/bin/python3
"""Write the dynamic-shape models the shape-specialisation tests run (tests/node/shapes.test.mjs).

Usage:
    /usr/bin/python3 scripts/gen_shape_models.py [--out build/models/shapes] [--only NAME ...]
                                                 [--force]

Files written into --out (relative paths are resolved against the repository root):

    lraspp.onnx         torchvision LR-ASPP MobileNetV3-Large segmentation, random weights,
                        "input" [N,3,H,W] -> "out" [N,21,H,W] (opset 13)
    transformer.onnx    torch.nn.TransformerEncoder (d_model 32, 4 heads, 2 layers, ff 64),
                        "input" [batch,seq,32] -> "output" [batch,seq,32] (opset 14)
    detr_patterns.onnx  hand-built graph with DETR's shape-tensor patterns (see build_detr_patterns)
                        "pixel" [batch,16,height,width] -> "decoded" [batch,6,16],
                        "attn_map" [batch,12,height,width]
    two_inputs.onnx     Add of x[N,4] and y[N,4]: one named dim shared by two inputs

Every model is seeded, so re-exports are identical. Existing files are kept unless --force is
given; each file is written to a temporary name, checked with onnx.checker, then renamed into
place, so an interrupted run never leaves a partial model. The builders are importable
(build_lraspp(), build_transformer(), build_detr_patterns(), build_two_inputs() return
onnx.ModelProto) and the whole run takes a few seconds.
"""

import argparse
import collections
import io
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = "build/models/shapes"


# ---------------------------------------------------------------------------------------------
# torch exports


def _torch():
    # Imported lazily so the hand-built models need neither torch nor its import time.
    import torch

    torch.set_num_threads(1)
    return torch


def _export(module, example, opset, input_names, output_names, dynamic_axes):
    """torch.onnx.export into memory; returns the ModelProto."""
    torch = _torch()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # The exporter warns about its own shape inference on every dynamic axis.
        warnings.simplefilter("ignore")
        torch.onnx.export(module, example, buffer, export_params=True, opset_version=opset,
                          do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL,
                          input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic_axes)
    return onnx.load_from_string(buffer.getvalue())


def build_lraspp():
    """LR-ASPP MobileNetV3-Large with dynamic batch, height and width."""
    torch = _torch()
    import torchvision

    class OutOnly(torch.nn.Module):
        """The segmentation models return a dict; export its 'out' tensor."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x)["out"]

    torch.manual_seed(0)
    net = torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None,
                                                                    weights_backbone=None)
    model = OutOnly(net).eval()
    dims = {0: "N", 2: "H", 3: "W"}
    with torch.no_grad():
        return _export(model, torch.zeros(1, 3, 64, 64), 13, ["input"], ["out"],
                       {"input": dims, "out": dims})


def build_transformer():
    """A small post-norm TransformerEncoder with dynamic batch and sequence length.

    Exported with autograd enabled: in eval mode under no_grad torch 1.13 takes the fused
    fast path (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    """
    torch = _torch()
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                             batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=2).eval()
    dims = {0: "batch", 1: "seq"}
    return _export(model, torch.zeros(2, 5, 32), 14, ["input"], ["output"],
                   {"input": dims, "output": dims})


# ---------------------------------------------------------------------------------------------
# DETR's shape patterns, by hand


class GraphBuilder:
    """Accumulates nodes and initializers with unique names."""

    def __init__(self, seed):
        self.nodes = []
        self.initializers = []
        self.rng = np.random.default_rng(seed)
        self._count = collections.Counter()

    def name(self, hint):
        self._count[hint] += 1
        return f"{hint}_{self._count[hint]}"

    def op(self, op_type, inputs, outputs=1, **attrs):
        """Adds a node; returns its output name (or the list of names when outputs > 1)."""
        node_name = self.name(op_type.lower())
        names = [f"{node_name}_out{i}" if outputs > 1 else node_name for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names, name=node_name, **attrs))
        return names if outputs > 1 else names[0]

    def const(self, value, hint="c"):
        """An initializer holding `value` (a numpy array)."""
        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def ints(self, *values):
        return self.const(np.array(values, dtype=np.int64), "i64")

    def weight(self, *shape):
        # Scaled by 1/sqrt(fan_in) so activations stay O(1) and softmax logits small.
        w = self.rng.standard_normal(shape) / np.sqrt(shape[0])
        return self.const(w.astype(np.float32), "w")

    # Shape idioms --------------------------------------------------------------------------

    def dim(self, x, i):
        """Unsqueeze(Gather(Shape(x), i)): dim i of x as a 1-element int64 tensor."""
        g = self.op("Gather", [self.op("Shape", [x]), self.const(np.int64(i), "idx")], axis=0)
        return self.op("Unsqueeze", [g, self.ints(0)])

    def scalar_dim(self, x, i):
        return self.op("Gather", [self.op("Shape", [x]), self.const(np.int64(i), "idx")], axis=0)

    def shape_slice(self, x, start, end):
        """Shape(x)[start:end] through Slice."""
        return self.op("Slice", [self.op("Shape", [x]), self.ints(start), self.ints(end),
                                 self.ints(0)])

    def linear(self, x, d_in, d_out):
        return self.op("Add", [self.op("MatMul", [x, self.weight(d_in, d_out)]),
                               self.const((0.1 * self.rng.standard_normal(d_out))
                                          .astype(np.float32), "b")])


HIDDEN = 16
HEADS = 2
QUERIES = 6


def _split_heads(b, x):
    """[B, S, D] -> [B*heads, S, D/heads], the way DETR's exported attention does it."""
    # Concat([Unsqueeze(Gather(Shape)), Unsqueeze(Gather(Shape)), CONST, Unsqueeze(Div)])
    head_dim = b.op("Div", [b.scalar_dim(x, 2), b.const(np.int64(HEADS), "heads")])
    four_d = b.op("Concat", [b.dim(x, 0), b.dim(x, 1), b.ints(HEADS),
                             b.op("Unsqueeze", [head_dim, b.ints(0)])], axis=0)
    heads = b.op("Transpose", [b.op("Reshape", [x, four_d])], perm=[0, 2, 1, 3])
    # Concat([Unsqueeze(Mul), CONST, Unsqueeze(Gather(Shape))])
    batch_heads = b.op("Mul", [b.scalar_dim(x, 0), b.const(np.int64(HEADS), "heads")])
    three_d = b.op("Concat", [b.op("Unsqueeze", [batch_heads, b.ints(0)]), b.ints(-1),
                              b.dim(heads, 3)], axis=0)
    return b.op("Reshape", [heads, three_d])


def _merge_heads(b, x, like):
    """[B*heads, S, hd] -> [B, S, D]; B and D are read from `like` ([B, S, D])."""
    four_d = b.op("Concat", [b.dim(like, 0), b.ints(HEADS), b.dim(x, 1), b.dim(x, 2)], axis=0)
    y = b.op("Transpose", [b.op("Reshape", [x, four_d])], perm=[0, 2, 1, 3])
    # Concat([Slice(Shape), CONST])
    return b.op("Reshape", [y, b.op("Concat", [b.shape_slice(y, 0, 2), b.ints(-1)], axis=0)])


def _attention(b, query, key, value):
    """Multi-head attention; returns (output [B, Sq, D], weights [B*heads, Sq, Sk])."""
    q = _split_heads(b, b.linear(query, HIDDEN, HIDDEN))
    k = _split_heads(b, b.linear(key, HIDDEN, HIDDEN))
    v = _split_heads(b, b.linear(value, HIDDEN, HIDDEN))
    scale = b.const(np.float32(1.0 / np.sqrt(HIDDEN // HEADS)), "scale")
    logits = b.op("Mul", [b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 2, 1])]), scale])
    weights = b.op("Softmax", [logits], axis=-1)
    out = _merge_heads(b, b.op("MatMul", [weights, v]), query)
    return b.linear(out, HIDDEN, HIDDEN), weights


def build_detr_patterns():
    """DETR-style encoder/decoder attention whose every reshape target is computed from shapes.

    pixel [batch, 16, height, width] -> AveragePool 2x2 -> flattened memory [B, hw, 16]
    plus a sine positional code (Range -> Cast -> Mul -> Sin, Expand over the batch);
    one self-attention over the memory and one cross-attention from 6 learned queries
    (Tile over the batch, ConstantOfShape for the target). Outputs the decoded queries and the
    cross-attention maps reshaped to [B, heads*queries, h, w] and resized (linear, sizes from
    Shape(pixel)[2:]) back to the input's height and width.
    """
    b = GraphBuilder(seed=4)
    down = b.op("AveragePool", ["pixel"], kernel_shape=[2, 2], strides=[2, 2])

    # Memory: Reshape to [B, C, -1] from Concat(Unsqueeze(Gather(Shape)) x2, CONST), then [B, hw, C].
    flat = b.op("Reshape", [down, b.op("Concat", [b.dim(down, 0), b.dim(down, 1), b.ints(-1)],
                                       axis=0)])
    memory = b.op("Transpose", [flat], perm=[0, 2, 1])

    # Positional code: sin(Cast(Range(0, S)) * 0.05 * freq), expanded to [B, S, D].
    seq = b.scalar_dim(memory, 1)
    positions = b.op("Cast", [b.op("Range", [b.const(np.int64(0), "start"), seq,
                                             b.const(np.int64(1), "delta")])],
                     to=TensorProto.FLOAT)
    column = b.op("Unsqueeze", [b.op("Mul", [positions, b.const(np.float32(0.05), "step")]),
                                b.ints(1)])
    freq = b.const(np.linspace(0.5, 4.0, HIDDEN, dtype=np.float32).reshape(1, HIDDEN), "freq")
    code = b.op("Sin", [b.op("Mul", [column, freq])])
    code = b.op("Expand", [code, b.op("Concat", [b.dim(memory, 0), b.ints(1, 1)], axis=0)])
    keyed = b.op("Add", [memory, code])

    # Encoder: self-attention over the memory (dynamic batch and sequence on both sides).
    encoded, _ = _attention(b, keyed, keyed, memory)
    encoded = b.op("Add", [memory, encoded])

    # Decoder: learned queries tiled over the batch, target = ConstantOfShape(Shape(queries)).
    query_embed = b.const((0.5 * b.rng.standard_normal((1, QUERIES, HIDDEN))).astype(np.float32),
                          "query_embed")
    queries = b.op("Tile", [query_embed, b.op("Concat", [b.dim(memory, 0), b.ints(1, 1)], axis=0)])
    target = b.op("ConstantOfShape", [b.op("Shape", [queries])],
                  value=numpy_helper.from_array(np.array([0.25], dtype=np.float32)))
    target = b.op("Add", [target, queries])
    decoded, weights = _attention(b, target, b.op("Add", [encoded, code]), encoded)
    b.nodes[-1].output[0] = "decoded"

    # Attention maps [B*heads, Q, hw] -> [B, heads*Q, h, w] -> resized to [height, width].
    maps = b.op("Reshape", [weights, b.op("Concat", [b.dim(down, 0), b.ints(HEADS * QUERIES),
                                                     b.dim(down, 2), b.dim(down, 3)], axis=0)])
    sizes = b.op("Concat", [b.shape_slice(maps, 0, 2), b.shape_slice("pixel", 2, 4)], axis=0)
    b.op("Resize", [maps, "", "", sizes], mode="linear",
         coordinate_transformation_mode="half_pixel")
    b.nodes[-1].output[0] = "attn_map"

    pixel = helper.make_tensor_value_info("pixel", TensorProto.FLOAT,
                                          ["batch", HIDDEN, "height", "width"])
    outputs = [
        helper.make_tensor_value_info("decoded", TensorProto.FLOAT, ["batch", QUERIES, HIDDEN]),
        helper.make_tensor_value_info("attn_map", TensorProto.FLOAT,
                                      ["batch", HEADS * QUERIES, "height", "width"]),
    ]
    graph = helper.make_graph(b.nodes, "detr_patterns", [pixel], outputs,
                              initializer=b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="webnx gen_shape_models.py")
    model.ir_version = 7
    return model


def build_two_inputs():
    """y = x + y2 where both inputs are [N, 4]: feeding different N must be a ShapeMismatch."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 4])
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"], name="add")],
                              "two_inputs", [x, y], [z])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="webnx gen_shape_models.py")
    model.ir_version = 7
    return model


MODELS = {
    "lraspp": build_lraspp,
    "transformer": build_transformer,
    "detr_patterns": build_detr_patterns,
    "two_inputs": build_two_inputs,
}


# ---------------------------------------------------------------------------------------------
# writing


def op_histogram(model):
    """Op types and their counts, those of subgraphs (If/Loop/Scan bodies) included."""
    counts = collections.Counter()
    graphs = [model.graph]
    while graphs:
        graph = graphs.pop()
        for node in graph.node:
            counts[node.op_type] += 1
            graphs.extend(a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH)
    return counts


def save_atomic(model, path):
    """Checks `model` and writes it to `path` through a temp file in the same directory."""
    onnx.checker.check_model(model)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(model.SerializeToString())
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp creates 0600
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def describe(name, model):
    counts = op_histogram(model)
    print(f"{name}.onnx: {sum(counts.values())} nodes")
    print("    " + ", ".join(f"{op} {n}" for op, n in sorted(counts.items())))


def parse_args(argv, models, default_out, doc):
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--out", default=default_out,
                   help=f"output directory (relative to the repo root; default {default_out})")
    p.add_argument("--only", nargs="+", choices=sorted(models), metavar="NAME",
                   help="write only these models (choices: %s)" % ", ".join(models))
    p.add_argument("--force", action="store_true", help="rewrite files that already exist")
    return p.parse_args(argv)


def write_models(argv, models, default_out, doc):
    """The generators' command line: builds each model of `models` (name -> builder) missing
    from --out (all with --force) and prints its op histogram."""
    args = parse_args(argv, models, default_out, doc)
    out_dir = Path(args.out)
    out_dir = out_dir if out_dir.is_absolute() else REPO_ROOT / out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in args.only or models:
        path = out_dir / f"{name}.onnx"
        if path.exists() and not args.force:
            model = onnx.load(str(path))
        else:
            model = models[name]()
            save_atomic(model, path)
        describe(name, model)
    return 0


def main(argv=None):
    return write_models(argv, MODELS, DEFAULT_OUT, __doc__)


if __name__ == "__main__":
    sys.exit(main())
