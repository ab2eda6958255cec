"""Writes the small hand-built ONNX models the error-handling tests load.

usage: /usr/bin/python3 scripts/gen_test_models.py --out build/models/testdata
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tiny_conv_model(opset=13, extra_nodes=(), extra_outputs=()):
    """x[1,2,5,5] -> Conv(3x3, 4 out) -> Relu -> y, plus optional extra nodes."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 2, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"], name="relu"),
        *extra_nodes,
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, 5, 5])
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 5, 5]), *extra_outputs]
    graph = helper.make_graph(nodes, "tiny", [x], outputs, initializer=[w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    return model


def unknown_ops_model():
    """Three unsupported operators (two kinds, one in a custom domain) beside supported ones."""
    extra = [
        helper.make_node("FancyOp", ["y"], ["f1"], name="fancy_a"),
        helper.make_node("FancyOp", ["f1"], ["f2"], name="fancy_b"),
        helper.make_node("Magic", ["f2"], ["z"], name="magic", domain="com.example"),
    ]
    model = tiny_conv_model(extra_nodes=extra,
                            extra_outputs=[helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    models = {
        "tiny_conv.onnx": tiny_conv_model(),
        "unknown_ops.onnx": unknown_ops_model(),
        "opset6.onnx": tiny_conv_model(opset=6),
        # Add's oldest implemented version is 7: opset 6 has broadcasting by attribute.
        "opset6_add.onnx": tiny_conv_model(
            opset=6,
            extra_nodes=[helper.make_node("Add", ["y", "y"], ["z"], name="add")],
            extra_outputs=[helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 4, 5, 5])]),
    }
    for name, model in models.items():
        onnx.save(model, os.path.join(args.out, name))
    print(f"wrote {len(models)} test models to {args.out}")


if __name__ == "__main__":
    main()
