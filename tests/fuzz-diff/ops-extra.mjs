// Ops the differential fuzzer's other builders do not reach: comparisons and logic (bool values
// cast back to float), bit operations and integer Mod (on graph inputs cast to integers),
// Shape, CastLike, Dropout, EyeLike, Einsum, Acosh, Gelu, IsNaN/IsInf and ReduceLogSum.
// Comparisons, Mod and the casts to integers jump at their input's last bits, so they read graph
// inputs only (exact multiples of 1/4096 in both runtimes).
import { broadcastShape, fixed, hasZero, isInput } from './ops-common.mjs';

const FLOAT = 1;
const INT32 = 6;
const INT64 = 7;
const DOUBLE = 11;
const BOOL = 9;
const numel = (dims) => dims.reduce((a, d) => a * d, 1);

// `value`, of ONNX type `dataType` (not float32: the localizer exposes it as such).
function typed(b, value, dataType) {
  b.types.set(value, dataType);
  return value;
}

const toFloat = (b, v) => b.node('Cast', [v], b.shapes.get(v), { to: FLOAT });

// A constant x broadcasts with, of quarters in [-2, 2]: comparisons find equal values too.
function operand(b, dims) {
  const shape = broadcastShape(b, dims);
  return b.constant(shape, Array.from({ length: numel(shape) }, () => b.rng.int(-8, 8) / 4));
}

const compare = (b, x, op) => typed(b, b.node(op, [x, operand(b, b.shapes.get(x))], b.shapes.get(x)), BOOL);

// On graph inputs only, with a value of non-empty shape.
const onInput = (name, since, build) => ({
  name, since,
  build: (b, x) => (isInput(b, x) && !hasZero(b.shapes.get(x)) ? build(b, x) : null),
});

const comparison = (op, since) => onInput(op, since, (b, x) => toFloat(b, compare(b, x, op)));

// And, Or, Xor of two comparisons; Not of one.
const logic = (op) => onInput(op, 7, (b, x) => {
  const cmp = () => compare(b, x, b.rng.pick(['Less', 'Greater']));
  const dims = b.shapes.get(x);
  return toFloat(b, typed(b, op === 'Not' ? b.node('Not', [cmp()], dims) : b.node(op, [cmp(), cmp()], dims), BOOL));
});

// x * 4096 as integers (exact: the inputs are multiples of 1/4096).
function asIntegers(b, x, to) {
  const dims = b.shapes.get(x);
  return typed(b, b.node('Cast', [b.node('Mul', [x, b.constant([], [4096])], dims)], dims, { to }), to);
}

const bitwise = (op) => onInput(op, 18, (b, x) => {
  const dims = b.shapes.get(x);
  const ints = asIntegers(b, x, INT32);
  if (op === 'BitwiseNot') return toFloat(b, typed(b, b.node(op, [ints], dims), INT32));
  const mask = b.typedConstant([], INT32, [b.rng.int(-4096, 4095)]);
  return toFloat(b, typed(b, b.node(op, b.rng.chance(0.5) ? [ints, mask] : [mask, ints], dims), INT32));
});

// Integer Mod (the sign of the divisor, or of the dividend with fmod=1) and float fmod.
const mod = onInput('Mod', 10, (b, x) => {
  const dims = b.shapes.get(x);
  if (b.rng.chance(0.3)) {
    return b.node('Mod', [x, b.constant([], [b.rng.pick([0.5, 0.75, -1.25])])], dims, { fmod: 1 });
  }
  const divisor = b.rng.pick([3, 7, -5, 4096]);
  const attrs = b.rng.chance(0.5) ? { fmod: 1 } : {};
  return toFloat(b, typed(b, b.node('Mod', [asIntegers(b, x, INT64), b.constant([], [divisor], 'int')], dims, attrs), INT64));
});

// Shape (with start and end from opset 15), as floats.
const shape = {
  name: 'Shape', since: 7,
  build(b, x) {
    const rank = b.shapes.get(x).length;
    let start = 0, end = rank;
    const attrs = {};
    if (b.opset >= 15 && b.rng.chance(0.5)) {
      start = b.rng.int(0, rank - 1);
      end = b.rng.int(start + 1, rank);
      attrs.start = start - (b.rng.chance(0.3) ? rank : 0);
      if (end < rank || b.rng.chance(0.3)) attrs.end = end;
    }
    return toFloat(b, typed(b, b.node('Shape', [x], [end - start], attrs), INT64));
  },
};

const castLike = {
  name: 'CastLike', since: 15,
  build(b, x) {
    const dims = b.shapes.get(x);
    return b.node('CastLike', [typed(b, b.node('Cast', [x], dims, { to: DOUBLE }), DOUBLE), x], dims);
  },
};

// Dropout in inference: the input as it is (a mask output too now and then).
const dropout = {
  name: 'Dropout', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const inputs = b.opset >= 12 && b.rng.chance(0.5) ? [x, b.constant([], [b.rng.pick([0.1, 0.5])])] : [x];
    return b.node('Dropout', inputs, dims, b.opset < 12 && b.rng.chance(0.5) ? { ratio: 0.3 } : {}, ['ratio']);
  },
};

const eyeLike = {
  name: 'EyeLike', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length !== 2) return null;
    return b.node('EyeLike', [x], dims, b.rng.chance(0.5) ? { k: b.rng.int(-2, 2) } : {});
  },
};

// A product with a constant ("ni,im->nm" and its batched form), or a transpose.
const einsum = {
  name: 'Einsum', since: 12,
  build(b, x) {
    const dims = b.shapes.get(x);
    const last = dims.at(-1);
    if (dims.length < 2 || dims.length > 3 || !fixed(last) || hasZero(dims)) return null;
    if (dims.length === 3 && b.rng.chance(0.4)) {
      return b.node('Einsum', [x], [dims[0], dims[2], dims[1]], { equation: 'nij->nji' });
    }
    const m = b.rng.int(1, 6);
    const w = b.floatConstant([last, m]);
    const equation = dims.length === 2 ? 'ni,im->nm' : 'nji,im->njm';
    return b.node('Einsum', [x, w], [...dims.slice(0, -1), m], { equation });
  },
};

const acosh = {
  name: 'Acosh', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    const atLeastOne = b.node('Add', [b.node('Abs', [x], dims), b.constant([], [1.25])], dims);
    return b.node('Acosh', [atLeastOne], dims);
  },
};

const gelu = {
  name: 'Gelu', since: 20,
  build: (b, x) => b.node('Gelu', [x], b.shapes.get(x), b.rng.chance(0.5) ? { approximate: 'tanh' } : {}),
};

// IsNaN and IsInf (of values Log made infinite now and then), as floats.
const isSpecial = (op, since) => ({
  name: op, since,
  build(b, x) {
    const dims = b.shapes.get(x);
    const input = b.rng.chance(0.5) ? b.node('Log', [b.node('Relu', [x], dims)], dims) : x;
    const attrs = op === 'IsInf' && b.rng.chance(0.5) ? { detect_negative: 0 } : {};
    return toFloat(b, typed(b, b.node(op, [input], dims, attrs), BOOL));
  },
});

const reduceLogSum = {
  name: 'ReduceLogSum', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length === 0 || hasZero(dims)) return null;
    const axis = b.rng.int(0, dims.length - 1);
    const keep = b.rng.int(0, 1);
    const out = keep ? dims.map((d, i) => (i === axis ? 1 : d)) : dims.filter((d, i) => i !== axis);
    const positive = b.node('Add', [b.node('Abs', [x], dims), b.constant([], [0.5])], dims);
    if (b.opset >= 18) return b.node('ReduceLogSum', [positive, b.intConstant([axis])], out, { keepdims: keep });
    return b.node('ReduceLogSum', [positive], out, { keepdims: keep, axes: [axis] });
  },
};

export const EXTRA_OPS = [
  comparison('Equal', 11), comparison('GreaterOrEqual', 12), comparison('LessOrEqual', 12),
  logic('And'), logic('Or'), logic('Xor'), logic('Not'),
  bitwise('BitwiseAnd'), bitwise('BitwiseOr'), bitwise('BitwiseXor'), bitwise('BitwiseNot'),
  mod, shape, castLike, dropout, eyeLike, einsum, acosh, gelu, isSpecial('IsNaN', 9), isSpecial('IsInf', 10),
  reduceLogSum,
];
