// Ops the differential fuzzer's other builders do not reach: comparisons and logic (bool values
// cast back to float), bit operations and integer Mod (on graph inputs cast to integers),
// Shape, CastLike, Dropout, EyeLike, Einsum, Acosh, Gelu, IsNaN/IsInf and ReduceLogSum; Size,
// ConstantOfShape, Range, OneHot, Compress, LpPool and the scatters and GatherND (INDEX_OPS);
// the window functions, MelWeightMatrix, Det, CenterCropPad, Upsample and DFT (SIGNAL_OPS).
// Comparisons, Mod and the casts to integers jump at their input's last bits, so they read graph
// inputs only (exact multiples of 1/4096 in both runtimes).
import { broadcastShape, fixed, hasZero, is4d, isInput, noopWithEmptyAxes, numel, typed, windowAttrs } from './ops-common.mjs';

const FLOAT = 1;
const INT32 = 6;
const INT64 = 7;
const DOUBLE = 11;
const BOOL = 9;

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
  // saturate (opset 19) applies to float 8 targets only: written as 1 (the default), of no
  // effect, on these casts (onnxruntime 1.30 rejects 0, and 1 on a cast to float32).
  const attrs = b.opset >= 19 && b.rng.chance(0.2) ? { to, saturate: 1 } : { to };
  return typed(b, b.node('Cast', [b.node('Mul', [x, b.constant([], [4096])], dims)], dims, attrs), to);
}

const bitwise = (op) => ({ weight: 2, ...onInput(op, 18, (b, x) => {
  const dims = b.shapes.get(x);
  const ints = asIntegers(b, x, INT32);
  if (op === 'BitwiseNot') return toFloat(b, typed(b, b.node(op, [ints], dims), INT32));
  const mask = b.typedConstant([], INT32, [b.rng.int(-4096, 4095)]);
  return toFloat(b, typed(b, b.node(op, b.rng.chance(0.5) ? [ints, mask] : [mask, ints], dims), INT32));
}) });

// Integer Mod (the sign of the divisor, or of the dividend with fmod=1) and float fmod.
const mod = onInput('Mod', 10, (b, x) => {
  const dims = b.shapes.get(x);
  if (b.rng.chance(0.3)) {
    return b.node('Mod', [x, b.constant([], [b.rng.pick([0.5, 0.75, -1.25])])], dims, { fmod: 1 });
  }
  const divisor = b.rng.pick([3, 7, -5, 4096]);
  const attrs = b.rng.chance(0.5) ? { fmod: b.rng.int(0, 1) } : {};
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
    const attrs = b.opset >= 19 && b.rng.chance(0.3) ? { saturate: 1 } : {};  // as for Cast, above
    return b.node('CastLike', [typed(b, b.node('Cast', [x], dims, { to: DOUBLE }), DOUBLE), x], dims, attrs);
  },
};

// Dropout in inference: the input as it is (a mask output too now and then).
const dropout = {
  name: 'Dropout', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const inputs = b.opset >= 12 && b.rng.chance(0.5) ? [x, b.constant([], [b.rng.pick([0.1, 0.5])])] : [x];
    const attrs = b.opset < 12 && b.rng.chance(0.5) ? { ratio: b.rng.pick([0.3, 0.5]) } : {};
    // seed (from opset 12) seeds the mask in training; inference ignores it.
    if (b.opset >= 12 && b.rng.chance(0.3)) attrs.seed = b.rng.int(0, 1000);
    return b.node('Dropout', inputs, dims, attrs, ['ratio']);
  },
};

const eyeLike = {
  name: 'EyeLike', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length !== 2) return null;
    const attrs = b.rng.chance(0.5) ? { k: b.rng.int(-2, 2) } : {};
    // dtype: float32 written out, or an integer or double matrix cast back.
    if (b.rng.chance(0.4)) attrs.dtype = b.rng.pick([FLOAT, INT32, INT64, DOUBLE]);
    const eye = b.node('EyeLike', [x], dims, attrs);
    return attrs.dtype && attrs.dtype !== FLOAT ? toFloat(b, typed(b, eye, attrs.dtype)) : eye;
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
  build: (b, x) => b.node('Gelu', [x], b.shapes.get(x), b.rng.chance(0.6) ? { approximate: b.rng.pick(['tanh', 'none']) } : {}),
};

// IsNaN and IsInf, as floats; of graph inputs Log made infinite now and then (a computed value
// at exactly 0 in one runtime may be a last bit above it in the other).
const isSpecial = (op, since) => ({
  name: op, since,
  build(b, x) {
    const dims = b.shapes.get(x);
    const input = isInput(b, x) && b.rng.chance(0.5) ? b.node('Log', [b.node('Relu', [x], dims)], dims) : x;
    const attrs = {};
    if (op === 'IsInf' && b.rng.chance(0.5)) attrs.detect_negative = b.rng.int(0, 1);
    if (op === 'IsInf' && b.rng.chance(0.5)) attrs.detect_positive = b.rng.int(0, 1);
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
    if (b.opset >= 18) {
      const noop = noopWithEmptyAxes(b, dims, keep);
      if (noop) return b.node('ReduceLogSum', [positive], noop.out, { keepdims: keep, ...noop.attrs });
      const attrs = b.rng.chance(0.15) ? { noop_with_empty_axes: b.rng.int(0, 1) } : {};
      return b.node('ReduceLogSum', [positive, b.intConstant([axis])], out, { keepdims: keep, ...attrs });
    }
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

// ---- Index and shape ops with constant operands. The batch dim varies from run to run, so
// indices into it are 0 and index tensors span 1 there.

const size = {
  name: 'Size', since: 7,
  build: (b, x) => toFloat(b, typed(b, b.node('Size', [x], []), INT64)),
};

// ConstantOfShape(Shape(x)): x's shape filled with one value.
const constantOfShape = {
  name: 'ConstantOfShape', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    const shapeOf = typed(b, b.node('Shape', [x], [dims.length]), INT64);
    if (!b.rng.chance(0.7)) return b.node('ConstantOfShape', [shapeOf], dims);
    // value: a float32 one, or an int64 one cast back.
    const int = b.rng.chance(0.3);
    const value = int ? b.rng.pick([-3, 0, 7]) : b.rng.pick([0.5, -2, 3.25]);
    const y = b.node('ConstantOfShape', [shapeOf], dims, { value: `${int ? 'int64' : 'float'} ${value}` });
    b.nodes.at(-1).attribute = [{ name: 'value', type: 'TENSOR',
      t: int ? { dims: ['1'], dataType: INT64, int64Data: [String(value)] } : { dims: ['1'], dataType: FLOAT, floatData: [value] } }];
    return int ? toFloat(b, typed(b, y, INT64)) : y;
  },
};

// Range of float constants: a value of its own, added to x's last axis when it fits.
const range = {
  name: 'Range', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    const start = b.rng.int(-8, 8) / 4, delta = b.rng.pick([0.25, 0.5, 1, -0.5]);
    const count = fixed(dims.at(-1)) && dims.at(-1) > 0 && b.rng.chance(0.7) ? dims.at(-1) : b.rng.int(1, 9);
    const limit = start + delta * (count - 0.5);  // the count, away from a rounding boundary
    const r = b.node('Range', [b.constant([], [start]), b.constant([], [limit]), b.constant([], [delta])], [count]);
    return count === dims.at(-1) ? b.node('Add', [x, r], dims) : r;
  },
};

// OneHot of graph inputs made integers (4x, truncated), some outside [-depth, depth).
const oneHot = onInput('OneHot', 11, (b, x) => {
  const dims = b.shapes.get(x);
  const depth = b.rng.int(2, 6);
  const indices = typed(b, b.node('Cast', [b.node('Mul', [x, b.constant([], [4])], dims)], dims, { to: INT64 }), INT64);
  const axis = b.rng.int(-1, dims.length);
  const out = [...dims];
  out.splice(axis < 0 ? dims.length + 1 + axis : axis, 0, depth);
  return b.node('OneHot', [indices, b.constant([], [depth], 'int'), b.constant([2], [0, 1])], out,
    axis === -1 && b.rng.chance(0.5) ? {} : { axis });
});

// Compress along a fixed axis by a constant condition.
const compress = {
  name: 'Compress', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axes = dims.map((d, i) => i).filter((i) => fixed(dims[i]) && dims[i] > 0);
    if (!axes.length) return null;
    const axis = b.rng.pick(axes);
    const keep = Array.from({ length: b.rng.int(1, dims[axis]) }, () => b.rng.int(0, 1));
    const condition = b.typedConstant([keep.length], BOOL, keep);
    const out = dims.map((d, i) => (i === axis ? keep.filter(Boolean).length : d));
    return b.node('Compress', [x, condition], out, { axis: axis - (b.rng.chance(0.3) ? dims.length : 0) });
  },
};

const lpPool = {
  name: 'LpPool', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    // ceil_mode and dilations from opset 18 (dilated SAME windows left out, as for MaxPool).
    const ceil = b.opset >= 18 && b.rng.chance(0.4);
    // onnxruntime wants pads below the kernel ("Pad should be smaller than kernel").
    const window = windowAttrs(b, dims, { maxKernel: 3, dilations: b.opset >= 18, ceil, padBelowKernel: true });
    if (!window || (window.attrs.dilations && window.attrs.auto_pad?.startsWith('SAME'))) return null;
    const attrs = { ...window.attrs, p: b.rng.pick([1, 2, 3]) };
    if (b.opset >= 18 && (ceil || b.rng.chance(0.3))) attrs.ceil_mode = ceil ? 1 : 0;
    return b.node('LpPool', [x], [dims[0], dims[1], ...window.out], attrs);
  },
};

// Distinct positions < n, `count` of them (a scatter without reduction writes each once).
function distinct(b, n, count) {
  const all = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = b.rng.int(0, i);
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, count);
}

// ScatterElements (and Scatter, its name in opsets 9 and 10) along a fixed axis other than the
// batch one, indices spanning 1 on every other axis.
const scatterElements = (name, since, until) => ({
  name, since, until,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axes = dims.map((d, i) => i).filter((i) => i > 0 && fixed(dims[i]) && dims[i] > 0);
    if (dims.length < 2 || !axes.length || hasZero(dims)) return null;
    const axis = b.rng.chance(0.5) ? dims.length - 1 : b.rng.pick(axes);
    const n = dims[axis];
    if (!fixed(n) || n === 0) return null;
    const count = b.rng.int(1, n);
    const shape = dims.map((d, i) => (i === axis ? count : 1));
    // Negative indices from opset 11.
    const positions = distinct(b, n, count).map((i) => (b.opset >= 11 && b.rng.chance(0.3) ? i - n : i));
    const attrs = { axis: b.opset >= 11 && b.rng.chance(0.5) ? axis - dims.length : axis };
    if (b.opset >= 16 && b.rng.chance(0.5)) attrs.reduction = b.rng.pick(['add', 'mul', ...(b.opset >= 18 ? ['max', 'min'] : [])]);
    if (b.opset >= 16 && b.rng.chance(0.1)) attrs.reduction = 'none';
    return b.node(name, [x, b.constant(shape, positions, 'int'), b.floatConstant(shape)], dims, attrs);
  },
});

// GatherND and ScatterND addressing (0, i) of x's first two axes (the batch index 0).
function firstRows(b, dims) {
  if (dims.length < 2 || !fixed(dims[1]) || dims[1] === 0 || !dims.slice(2).every(fixed)) return null;
  const count = b.rng.int(1, Math.min(4, dims[1]));
  return distinct(b, dims[1], count).flatMap((i) => [0, b.rng.chance(0.3) ? i - dims[1] : i]);
}

// GatherND (the rows) or ScatterND (new values into them).
const indexND = (name) => ({
  name, since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    const pairs = firstRows(b, dims);
    if (!pairs) return null;
    const rows = [pairs.length / 2, ...dims.slice(2)];
    const indices = b.constant([rows[0], 2], pairs, 'int');
    // GatherND with batch_dims = 1 (opset 12): x's first axis is the batch; the indices (of x's
    // second axis, per batch entry) span N there, so they are gathered from a Shape-built tensor.
    if (name === 'GatherND' && b.opset >= 12 && b.rng.chance(0.3)) {
      const rowIndex = b.rng.int(-dims[1], dims[1] - 1);
      const shapeOf = typed(b, b.node('Shape', [x], [dims.length]), INT64);
      const batchShape = typed(b, b.node('Slice', [shapeOf, b.intConstant([0]), b.intConstant([1])], [1]), INT64);
      const perBatch = typed(b, b.node('ConstantOfShape', [batchShape], [dims[0]]), INT64);
      b.nodes.at(-1).attribute = [{ name: 'value', type: 'TENSOR', t: { dims: ['1'], dataType: INT64, int64Data: [String(rowIndex)] } }];
      const index = typed(b, b.opset >= 13 ? b.node('Unsqueeze', [perBatch, b.intConstant([1])], [dims[0], 1])
        : b.node('Unsqueeze', [perBatch], [dims[0], 1], { axes: [1] }), INT64);
      return b.node(name, [x, index], [dims[0], ...dims.slice(2)], { batch_dims: 1 });
    }
    if (name === 'GatherND') return b.node(name, [x, indices], rows, b.opset >= 12 && b.rng.chance(0.2) ? { batch_dims: 0 } : {});
    const attrs = b.opset >= 16 && b.rng.chance(0.4) ? { reduction: b.rng.pick(['add', 'mul', ...(b.opset >= 18 ? ['max', 'min'] : []), 'none']) } : {};
    return b.node(name, [x, indices, b.floatConstant(rows)], dims, attrs);
  },
});

export const INDEX_OPS = [size, constantOfShape, range, oneHot, compress, lpPool, scatterElements('ScatterElements', 11),
  { ...scatterElements('Scatter', 9, 10), weight: 2 }, indexND('GatherND'), indexND('ScatterND')];

// ---- Signal and linear-algebra ops: window functions and mel weights as values of their own
// (added to x's last axis where the length fits), Det, CenterCropPad, Upsample, DFT.

const windowFunction = (name) => ({
  name, since: 17,
  build(b, x) {
    const dims = b.shapes.get(x);
    const fits = fixed(dims.at(-1)) && dims.at(-1) > 0 && b.rng.chance(0.7);
    const size = fits ? dims.at(-1) : b.rng.int(1, 12);
    // A symmetric window of one value divides by size - 1 = 0: NaN in both runtimes, and the
    // ops after it part on NaN (GlobalMaxPool skips it in webnx, onnxruntime propagates it).
    const symmetric = size > 1 && b.rng.chance(0.5);
    const attrs = symmetric ? { periodic: 0 } : b.rng.chance(0.3) ? { periodic: 1 } : {};
    // output_datatype: float32 written out (webnx computes windows in float32, int32 and int64
    // only; an integer window truncates values that differ in their last bits between runtimes).
    if (b.rng.chance(0.3)) attrs.output_datatype = FLOAT;
    let w = b.node(name, [b.constant([], [size], 'int')], [size], attrs);
    if (attrs.output_datatype === DOUBLE) w = toFloat(b, typed(b, w, DOUBLE));
    return fits ? b.node('Add', [x, w], dims) : w;
  },
});

const melWeightMatrix = {
  name: 'MelWeightMatrix', since: 17,
  build(b) {
    const bins = b.rng.int(1, 8), dft = b.rng.pick([8, 16, 31, 64]), rate = b.rng.pick([8000, 16000]);
    // An odd DFT length with the upper edge at the Nyquist rate puts the last triangle past the
    // last bin: onnxruntime rejects it ("upper_edge_hertz produces a mel triangle filter bank
    // that is out of range").
    const lower = b.rng.pick([0, 20, 100]), upper = dft % 2 ? rate / 3 : b.rng.pick([rate / 2, rate / 3]);
    const int = (v) => b.constant([], [v], 'int');
    const attrs = b.rng.chance(0.3) ? { output_datatype: FLOAT } : {};  // float32 only, as the windows
    const out = [Math.floor(dft / 2) + 1, bins];
    const w = b.node('MelWeightMatrix', [int(bins), int(dft), int(rate), b.constant([], [lower]), b.constant([], [upper])], out, attrs);
    return attrs.output_datatype === DOUBLE ? toFloat(b, typed(b, w, DOUBLE)) : w;
  },
};

// Det of x's last two axes when they are fixed and equal (bounded entries: Tanh).
const det = {
  name: 'Det', since: 11, weight: 2,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || !fixed(dims.at(-1)) || dims.at(-1) !== dims.at(-2) || dims.at(-1) === 0) return null;
    return b.node('Det', [b.node('Tanh', [x], dims)], dims.slice(0, -2));
  },
};

const centerCropPad = {
  name: 'CenterCropPad', since: 18,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axes = dims.map((d, i) => i).filter((i) => fixed(dims[i]));
    if (!axes.length) return null;
    const chosen = axes.filter(() => b.rng.chance(0.6));
    if (!chosen.length) chosen.push(axes[0]);
    const sizes = chosen.map((i) => b.rng.int(1, dims[i] + 3));
    const out = dims.map((d, i) => (chosen.includes(i) ? sizes[chosen.indexOf(i)] : d));
    const attrs = chosen.length === dims.length && b.rng.chance(0.5) ? {} : { axes: chosen };
    if (!attrs.axes && chosen.length !== dims.length) return null;
    return b.node('CenterCropPad', [x, b.intConstant(sizes)], out, attrs);
  },
};

// Upsample (nearest, integer scales of H and W), deprecated after opset 9.
const upsample = {
  name: 'Upsample', since: 7, until: 9, weight: 4,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    const scales = [1, 1, b.rng.int(1, 3), b.rng.int(1, 3)];
    const out = [dims[0], dims[1], dims[2] * scales[2], dims[3] * scales[3]];
    // mode nearest (the default, written or not) or linear (bilinear over H and W).
    const mode = b.rng.pick(['nearest', 'linear', '']);
    const attrs = mode ? { mode } : {};
    if (b.opset >= 9) return b.node('Upsample', [x, b.constant([4], scales)], out, attrs);
    const y = b.node('Upsample', [x], out, { ...attrs, scales });
    // Opsets 7 and 8: scales a list of floats (node() writes lists as ints).
    Object.assign(b.nodes.at(-1).attribute.find((a) => a.name === 'scales'), { type: 'FLOATS', floats: scales, ints: undefined });
    return y;
  },
};

// DFT of x's fixed trailing dims flattened into one real signal along axis 1.
const dft = {
  name: 'DFT', since: 17, weight: 2,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || !dims.slice(1).every(fixed) || hasZero(dims)) return null;
    const n = numel(dims.slice(1));
    // Powers of two only: onnxruntime's float32 transform of other lengths strays by ~1e-5 of the
    // largest output (the float64 arbiter settles DFT alone), and an op after it, a Log of an
    // exact 0 say, can grow that into a mismatch no node alone shows (fuzz-diff seed 22331449).
    if (n > 64 || (n & (n - 1)) !== 0) return null;
    const signal = b.node('Reshape', [x, b.intConstant([0, n, 1])], [dims[0], n, 1]);
    const onesided = b.rng.chance(0.3);
    const inverse = !onesided && b.rng.chance(0.3);
    const attrs = {};
    if (onesided || b.rng.chance(0.2)) attrs.onesided = onesided ? 1 : 0;
    if (inverse || b.rng.chance(0.2)) attrs.inverse = inverse ? 1 : 0;
    const out = [dims[0], onesided ? Math.floor(n / 2) + 1 : n, 2];
    if (b.opset >= 20) return b.node('DFT', [signal, '', b.constant([], [b.rng.chance(0.5) ? 1 : -2], 'int')], out, attrs);
    // Before opset 20 the axis is an attribute (1, the default, or -2 from opset 17's spec).
    if (b.rng.chance(0.5)) attrs.axis = 1;
    return b.node('DFT', [signal], out, attrs);
  },
};

export const SIGNAL_OPS = [windowFunction('HannWindow'), windowFunction('HammingWindow'), windowFunction('BlackmanWindow'),
  melWeightMatrix, det, centerCropPad, upsample, dft];
