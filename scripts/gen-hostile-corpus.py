#!/usr/bin/python3
"""Writes the hostile-input corpus: small bad ONNX models and JSON graph documents, each with
the error code loading it must produce (default limits), into tests/hostile/cases/ and the
manifest tests/hostile/expected.json ({file: code}). tests/unit/test_hostile.cc (native, also
under ASan) and tests/node/hostile.test.mjs (wasm) load every case and expect exactly that code.

usage: /usr/bin/python3 scripts/gen-hostile-corpus.py [--out tests/hostile]

Deterministic: the same files on every run. Every case is < 10 KB. Op-level cases use
initializers as inputs so that the bad node is evaluated (and rejected) at load.
"""
import argparse
import json
import pathlib
import random

import onnx
from onnx import TensorProto, helper

MALFORMED = "MalformedModel"
OOM = "OutOfMemory"
DTYPE = "UnsupportedDtype"
OPSET = "UnsupportedOpset"
OPERATOR = "UnsupportedOperator"
INVALID = "InvalidArgument"

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def model(nodes, inputs=(), outputs=(), inits=(), opset=13, **graph_fields):
    graph = helper.make_graph(list(nodes), "hostile", list(inputs), list(outputs), list(inits),
                              **graph_fields)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="gen-hostile-corpus")
    m.ir_version = 8
    return m


def vi(name, dims, elem=F):
    return helper.make_tensor_value_info(name, elem, dims)


def floats(name, dims, values=None):
    n = 1
    for d in dims:
        n *= d
    values = values if values is not None else [0.25 * (i % 7) for i in range(n)]
    return helper.make_tensor(name, F, dims, values)


def ints(name, values, dims=None):
    return helper.make_tensor(name, I64, [len(values)] if dims is None else dims, values)


def raw_tensor(name, dtype, dims, raw=b""):
    """A TensorProto built by hand: make_tensor refuses data that does not match the shape."""
    t = TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def base_model():
    """A small valid conv -> relu -> gemm model: the source of truncations and bit flips."""
    return model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("Flatten", ["r"], ["f"]),
         helper.make_node("Gemm", ["f", "fw"], ["y"], transB=1)],
        [vi("x", ["N", 2, 4, 4])], [vi("y", ["N", 3])],
        [floats("w", [2, 2, 3, 3]), floats("b", [2]), floats("fw", [3, 32])])


def const_input_model(node, inits, out="y"):
    """One node over initializers only: the session folds it at load, so its kernel validates
    it then."""
    return model([node], [], [vi(out, None)], inits)


def nested_if(depth):
    """An If whose then-branch holds an If ... `depth` levels of subgraphs."""
    leaf = helper.make_graph([helper.make_node("Identity", ["c"], ["o"])], "leaf", [],
                             [vi("o", None, TensorProto.BOOL)])
    body = leaf
    for level in range(depth):  # else is a leaf: two nested branches would double per level
        node = helper.make_node("If", ["c"], ["o"], then_branch=body, else_branch=leaf)
        body = helper.make_graph([node], f"level{level}", [], [vi("o", None, TensorProto.BOOL)])
    return model(list(body.node), [vi("c", [], TensorProto.BOOL)], [vi("o", None, TensorProto.BOOL)])


def onnx_cases():
    cases = {}
    base = base_model().SerializeToString()

    # Truncated at every 1/16 of a valid file. Each cut ends inside a length-delimited field
    # (checked below), so the protobuf cannot parse.
    for k in range(1, 16):
        cut = base[: len(base) * k // 16]
        assert not parses(cut), k
        cases[f"truncated_{k:02d}_of_16.onnx"] = (cut, MALFORMED)
    cases["empty.onnx"] = (b"", MALFORMED)
    rng = random.Random(7)
    cases["garbage.onnx"] = (bytes(rng.getrandbits(8) for _ in range(512)), MALFORMED)
    cases["text_not_protobuf.onnx"] = (b"this is not an onnx model\n" * 8, MALFORMED)

    # Single bit flips of the valid file that break its protobuf framing (flips that still
    # parse change only values, which is not an error).
    flips = 0
    for offset in rng.sample(range(len(base)), len(base)):
        flipped = bytearray(base)
        flipped[offset] ^= 1 << rng.randrange(8)
        if not parses(bytes(flipped)):
            cases[f"bitflip_{offset:04d}.onnx"] = (bytes(flipped), MALFORMED)
            flips += 1
            if flips == 6:
                break

    # Graph structure.
    relu = lambda i, o, name="": helper.make_node("Relu", [i], [o], name=name)
    cases["cycle.onnx"] = (model([relu("b", "a", "n1"), relu("a", "b", "n2"), relu("a", "y")],
                                 [vi("x", [1])], [vi("y", [1])]), MALFORMED)
    cases["self_reference.onnx"] = (model([helper.make_node("Add", ["x", "s"], ["s"])],
                                          [vi("x", [1])], [vi("s", [1])]), MALFORMED)
    cases["dangling_input.onnx"] = (model([relu("nowhere", "y")], [vi("x", [1])], [vi("y", [1])]),
                                    MALFORMED)
    cases["duplicate_node_output.onnx"] = (
        model([relu("x", "y"), relu("x", "y")], [vi("x", [1])], [vi("y", [1])]), MALFORMED)
    cases["output_shadows_input.onnx"] = (model([relu("x", "x")], [vi("x", [1])], [vi("x", [1])]),
                                          MALFORMED)
    cases["duplicate_graph_input.onnx"] = (
        model([relu("x", "y")], [vi("x", [1]), vi("x", [1])], [vi("y", [1])]), MALFORMED)
    cases["duplicate_initializer.onnx"] = (
        model([relu("w", "y")], [], [vi("y", [1])], [floats("w", [1]), floats("w", [1])]),
        MALFORMED)
    cases["output_never_produced.onnx"] = (model([relu("x", "y")], [vi("x", [1])], [vi("z", [1])]),
                                           MALFORMED)
    cases["unnamed_input.onnx"] = (model([relu("", "y")], [vi("", [1])], [vi("y", [1])]),
                                   MALFORMED)
    cases["unnamed_initializer.onnx"] = (
        model([relu("x", "y")], [vi("x", [1])], [vi("y", [1])], [floats("", [1])]), MALFORMED)
    no_graph = onnx.ModelProto()
    no_graph.ir_version = 8
    no_graph.opset_import.add().version = 13
    cases["no_graph.onnx"] = (no_graph, MALFORMED)
    cases["empty_op_type.onnx"] = (
        model([helper.make_node("", ["x"], ["y"])], [vi("x", [1])], [vi("y", [1])]), MALFORMED)
    dup_attr = helper.make_node("Softmax", ["x"], ["y"], axis=1)
    dup_attr.attribute.extend([helper.make_attribute("axis", 0)])
    cases["duplicate_attribute.onnx"] = (model([dup_attr], [vi("x", [1, 2])], [vi("y", [1, 2])]),
                                         MALFORMED)
    cases["nested_subgraphs_20.onnx"] = (nested_if(20), MALFORMED)  # limits.maxSubgraphDepth 16
    cases["nested_subgraphs_60.onnx"] = (nested_if(60), MALFORMED)  # past protobuf's recursion cap

    # Opsets and operators.
    no_opset = model([relu("x", "y")], [vi("x", [1])], [vi("y", [1])])
    del no_opset.opset_import[:]
    cases["no_opset.onnx"] = (no_opset, OPSET)
    cases["opset_99.onnx"] = (model([relu("x", "y")], [vi("x", [1])], [vi("y", [1])], opset=99),
                              OPSET)
    cases["opset_negative.onnx"] = (model([relu("x", "y")], [vi("x", [1])], [vi("y", [1])],
                                          opset=-5), OPSET)
    cases["unknown_op.onnx"] = (model([helper.make_node("Frobnicate", ["x"], ["y"])],
                                      [vi("x", [1])], [vi("y", [1])]), OPERATOR)
    cases["unimported_domain.onnx"] = (
        model([helper.make_node("Relu", ["x"], ["y"], domain="com.example")], [vi("x", [1])],
              [vi("y", [1])]), OPERATOR)
    cases["relu_two_inputs.onnx"] = (
        model([helper.make_node("Relu", ["x", "x"], ["y"])], [vi("x", [1])], [vi("y", [1])]),
        MALFORMED)
    cases["add_one_input.onnx"] = (
        model([helper.make_node("Add", ["x"], ["y"])], [vi("x", [1])], [vi("y", [1])]), MALFORMED)
    cases["relu_three_outputs.onnx"] = (
        model([helper.make_node("Relu", ["x"], ["y", "y2", "y3"])], [vi("x", [1])],
              [vi("y", [1])]), MALFORMED)
    cases["conv_no_inputs.onnx"] = (
        model([helper.make_node("Conv", [], ["y"])], [], [vi("y", [1])]), MALFORMED)

    # Declared shapes and dtypes.
    def one_input(dims, elem=F, name="x"):
        return model([relu(name, "y")], [vi(name, dims, elem)], [vi("y", None, elem)])

    cases["input_negative_dim.onnx"] = (one_input([1, -3]), MALFORMED)
    cases["input_dim_2pow40.onnx"] = (one_input([1 << 40]), MALFORMED)  # limits.maxDimension
    cases["input_2pow60_elements.onnx"] = (one_input([1 << 20, 1 << 20, 1 << 20]), OOM)
    cases["input_rank_40.onnx"] = (one_input([1] * 40), MALFORMED)  # limits.maxRank
    cases["input_dtype_string.onnx"] = (one_input([1], TensorProto.STRING), DTYPE)
    cases["input_dtype_undefined.onnx"] = (one_input([1], TensorProto.UNDEFINED), DTYPE)
    cases["input_dtype_99.onnx"] = (one_input([1], 99), DTYPE)
    seq = model([relu("x", "y")], [helper.make_tensor_sequence_value_info("x", F, [1])],
                [vi("y", [1])])
    cases["input_is_a_sequence.onnx"] = (seq, DTYPE)

    # Initializers.
    def init_model(tensor):
        return model([relu("w", "y")], [], [vi("y", None)], [tensor])

    cases["init_2pow40_elements_no_data.onnx"] = (
        init_model(raw_tensor("w", F, [1 << 20, 1 << 20])), MALFORMED)
    cases["init_dims_overflow_int64.onnx"] = (
        init_model(raw_tensor("w", F, [1 << 62, 4, 4])), MALFORMED)
    cases["init_negative_dim.onnx"] = (
        init_model(raw_tensor("w", F, [-3])), MALFORMED)
    cases["init_raw_short.onnx"] = (
        init_model(raw_tensor("w", F, [4], b"\0" * 12)), MALFORMED)
    cases["init_raw_long.onnx"] = (
        init_model(raw_tensor("w", F, [4], b"\0" * 20)), MALFORMED)
    cases["init_raw_ragged.onnx"] = (
        init_model(raw_tensor("w", F, [4], b"\0" * 15)), MALFORMED)
    short = raw_tensor("w", F, [2, 3])
    short.ClearField("raw_data")
    short.float_data.extend([1.0] * 5)
    cases["init_float_data_short.onnx"] = (init_model(short), MALFORMED)
    long = raw_tensor("w", I64, [2])
    long.ClearField("raw_data")
    long.int64_data.extend([1, 2, 3])
    cases["init_int64_data_long.onnx"] = (init_model(long), MALFORMED)
    bad_dtype = helper.make_tensor("w", F, [1], [1.0])
    bad_dtype.data_type = 99
    cases["init_dtype_99.onnx"] = (init_model(bad_dtype), DTYPE)
    cases["init_dtype_double.onnx"] = (
        init_model(helper.make_tensor("w", TensorProto.DOUBLE, [2], [1.0, 2.0])), DTYPE)
    external = raw_tensor("w", F, [4])
    external.data_location = TensorProto.EXTERNAL
    entry = external.external_data.add()
    entry.key, entry.value = "location", "../../../etc/passwd"
    # External data comes only from the files the caller gives: a location is never a path read.
    cases["init_external_data.onnx"] = (init_model(external), INVALID)
    sparse = model([relu("x", "y")], [vi("x", [1])], [vi("y", [1])])
    sp = sparse.graph.sparse_initializer.add()
    sp.values.CopyFrom(helper.make_tensor("s", F, [1], [1.0]))
    sp.indices.CopyFrom(helper.make_tensor("si", I64, [1], [0]))
    sp.dims.extend([4])
    cases["sparse_initializer.onnx"] = (sparse, MALFORMED)

    # Ops whose inputs are all constant, so the bad node is planned (and rejected) at load.
    x4 = floats("x", [1, 1, 4, 4])
    w3 = floats("w", [1, 1, 3, 3])
    conv = lambda **attrs: helper.make_node("Conv", ["x", "w"], ["y"], **attrs)
    cases["conv_negative_strides.onnx"] = (const_input_model(conv(strides=[-1, -1]), [x4, w3]),
                                           MALFORMED)
    cases["conv_zero_kernel_shape.onnx"] = (
        const_input_model(conv(kernel_shape=[0, 0]), [x4, w3]), MALFORMED)
    cases["conv_zero_dilation.onnx"] = (const_input_model(conv(dilations=[0, 0]), [x4, w3]),
                                        MALFORMED)
    cases["conv_negative_pads.onnx"] = (
        const_input_model(conv(pads=[-9, -9, -9, -9]), [x4, w3]), MALFORMED)
    cases["conv_group_zero.onnx"] = (const_input_model(conv(group=0), [x4, w3]), MALFORMED)
    cases["conv_missing_weight.onnx"] = (
        const_input_model(helper.make_node("Conv", ["x", ""], ["y"]), [x4]), MALFORMED)
    cases["softmax_axis_out_of_range.onnx"] = (
        const_input_model(helper.make_node("Softmax", ["x"], ["y"], axis=7), [x4]), MALFORMED)
    cases["concat_axis_out_of_range.onnx"] = (
        const_input_model(helper.make_node("Concat", ["x", "x"], ["y"], axis=-9), [x4]),
        MALFORMED)
    cases["transpose_bad_perm.onnx"] = (
        const_input_model(helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0, 1, 2]), [x4]),
        MALFORMED)
    wrong_type = helper.make_node("Softmax", ["x"], ["y"])
    wrong_type.attribute.extend([helper.make_attribute("axis", 1.5)])
    cases["attribute_wrong_type.onnx"] = (const_input_model(wrong_type, [x4]), MALFORMED)
    cases["reshape_does_not_divide.onnx"] = (
        const_input_model(helper.make_node("Reshape", ["x", "s"], ["y"]),
                          [x4, ints("s", [3, -1])]), "ShapeMismatch")
    cases["reshape_two_minus_ones.onnx"] = (
        const_input_model(helper.make_node("Reshape", ["x", "s"], ["y"]),
                          [x4, ints("s", [-1, -1])]), MALFORMED)
    cases["gather_index_out_of_range.onnx"] = (
        const_input_model(helper.make_node("Gather", ["x", "i"], ["y"]),
                          [x4, ints("i", [5])]), "InvalidInput")
    cases["constant_of_shape_2pow40.onnx"] = (
        const_input_model(helper.make_node("ConstantOfShape", ["s"], ["y"]),
                          [ints("s", [1 << 20, 1 << 20])]), OOM)
    cases["constant_of_shape_negative.onnx"] = (
        const_input_model(helper.make_node("ConstantOfShape", ["s"], ["y"]),
                          [ints("s", [4, -2])]), MALFORMED)
    cases["range_1e12_elements.onnx"] = (
        const_input_model(helper.make_node("Range", ["a", "b", "d"], ["y"]),
                          [helper.make_tensor("a", F, [], [0.0]),
                           helper.make_tensor("b", F, [], [1e12]),
                           helper.make_tensor("d", F, [], [1.0])]), OOM)
    cases["expand_2pow40.onnx"] = (
        const_input_model(helper.make_node("Expand", ["x", "s"], ["y"]),
                          [floats("x", [1]), ints("s", [1 << 20, 1 << 20])]), OOM)
    cases["tile_2pow40.onnx"] = (
        const_input_model(helper.make_node("Tile", ["x", "r"], ["y"]),
                          [floats("x", [1, 1]), ints("r", [1 << 20, 1 << 20])]), OOM)
    return cases


def json_cases():
    def doc(inputs, outputs, tensors, nodes):
        return {"format": "webnx-graph", "version": 1, "inputs": inputs, "outputs": outputs,
                "tensors": tensors, "nodes": nodes}

    good = doc([{"name": "x", "shape": [1, 4]}], ["y"], {}, [{"id": "y", "op": "Relu",
                                                            "inputs": ["x"]}])
    text = json.dumps(good)
    cases = {
        "json_truncated.json": (text[: len(text) // 2], MALFORMED),
        "json_not_an_object.json": ("[1, 2, 3]", MALFORMED),
        "json_syntax_error.json": ('{"format": "webnx-graph", "nodes": [}', MALFORMED),
        "json_nested_1000.json": ("[" * 1000 + "]" * 1000, MALFORMED),
        "json_cycle.json": (doc([{"name": "x", "shape": [1]}], ["b"], {},
                                [{"id": "a", "op": "Add", "inputs": ["x", "b"]},
                                 {"id": "b", "op": "Relu", "inputs": ["a"]}]), MALFORMED),
        "json_self_reference.json": (doc([{"name": "x", "shape": [1]}], ["a"], {},
                                         [{"id": "a", "op": "Add", "inputs": ["x", "a"]}]),
                                     MALFORMED),
        "json_dangling.json": (doc([{"name": "x", "shape": [1]}], ["y"], {},
                                   [{"id": "y", "op": "Relu", "inputs": ["nope"]}]), MALFORMED),
        "json_duplicate_id.json": (doc([{"name": "x", "shape": [1]}], ["y"], {},
                                       [{"id": "y", "op": "Relu", "inputs": ["x"]},
                                        {"id": "y", "op": "Relu", "inputs": ["x"]}]), MALFORMED),
        "json_tensor_2pow40_no_data.json": (
            doc([{"name": "x", "shape": [1]}], ["y"],
                {"w": {"dtype": "float32", "shape": [1 << 20, 1 << 20], "data": [1]}},
                [{"id": "y", "op": "Add", "inputs": ["x", "w"]}]), MALFORMED),
        "json_input_dim_2pow40.json": (
            doc([{"name": "x", "shape": [1 << 40]}], ["y"], {},
                [{"id": "y", "op": "Relu", "inputs": ["x"]}]), MALFORMED),
        "json_unknown_dtype.json": (
            doc([{"name": "x", "shape": [1]}], ["y"],
                {"w": {"dtype": "float64", "shape": [1], "data": [1]}},
                [{"id": "y", "op": "Add", "inputs": ["x", "w"]}]), DTYPE),
        "json_unknown_op.json": (doc([{"name": "x", "shape": [1]}], ["y"], {},
                                     [{"id": "y", "op": "Frobnicate", "inputs": ["x"]}]),
                                 OPERATOR),
    }
    return cases


def parses(data):
    m = onnx.ModelProto()
    try:
        m.ParseFromString(data)
        return True
    except Exception:  # google.protobuf.message.DecodeError
        return False


def main():
    parser = argparse.ArgumentParser()
    root = pathlib.Path(__file__).resolve().parent.parent
    parser.add_argument("--out", type=pathlib.Path, default=root / "tests" / "hostile")
    args = parser.parse_args()
    cases_dir = args.out / "cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    for old in cases_dir.iterdir():
        old.unlink()
    expected = {}
    for name, (content, code) in {**onnx_cases(), **json_cases()}.items():
        if isinstance(content, onnx.ModelProto):
            content = content.SerializeToString()
        elif isinstance(content, dict):
            content = json.dumps(content, indent=1)
        if isinstance(content, str):
            content = content.encode()
        assert len(content) < 10 * 1024, name
        (cases_dir / name).write_bytes(content)
        expected[name] = code
    (args.out / "expected.json").write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n")
    print(f"wrote {len(expected)} cases to {cases_dir}")


if __name__ == "__main__":
    main()
