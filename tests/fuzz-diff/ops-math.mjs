// Elementwise math, normalizations, comparisons and index-valued ops for the differential
// fuzzer (tests/fuzz-diff/ops.mjs). Ops whose results jump (Floor, Ceil, Round, ArgMax, ArgMin)
// read only graph inputs, which are exact multiples of 1/4096, so both runtimes see the same
// values; ops with domain limits get their inputs made positive first.
import { broadcastShape, fixed, hasZero, is4d, isInput, noopWithEmptyAxes, onBounded, onInputs, tanhOf, unary } from './ops-common.mjs';

// x made positive: Abs(x) + c.
function positive(b, x, c = 0.25) {
  const abs = b.node('Abs', [x], b.shapes.get(x));
  return b.node('Add', [abs, b.constant([], [c])], b.shapes.get(x));
}

const onPositive = (name, since) => ({
  name, since, build: (b, x) => b.node(name, [positive(b, x)], b.shapes.get(x)),
});

const prelu = {
  name: 'PRelu', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    // The slope broadcasts to x (unidirectionally).
    const slope = dims.length >= 2 && fixed(dims[1]) && b.rng.chance(0.5)
      ? [dims[1], ...dims.slice(2).map(() => 1)] : broadcastShape(b, dims);
    if (slope.some((d) => !fixed(d))) return null;
    return b.node('PRelu', [x, b.floatConstant(slope, -0.5, 0.5)], dims);
  },
};

// Pow and Exp read Tanh(x): a chain of them overflows to infinities, where inf - inf in a later
// filter makes NaN in one runtime and -inf in another. Sin and Cos too: at large arguments the
// last-bit differences of two runtimes' inputs become large differences of their outputs.
// Integer exponents of any base; fractional and negative ones of a positive base.
const pow = {
  name: 'Pow', since: 7,
  build(b, x) {
    const exponent = b.rng.pick([2, 3, 0.5, -1, 1.5]);
    const t = tanhOf(b, x);
    const base = Number.isInteger(exponent) && exponent > 0 ? t : positive(b, t);
    return b.node('Pow', [base, b.constant([], [exponent])], b.shapes.get(x));
  },
};

function variadic(name) {
  return {
    name, since: 8,
    build(b, x, values) {
      const dims = b.shapes.get(x);
      const same = values.filter((v) => b.shapes.get(v).join() === dims.join());
      const inputs = [x, b.rng.pick(same)];
      if (b.rng.chance(0.5)) {
        const shape = broadcastShape(b, dims);
        if (shape.every(fixed)) inputs.push(b.floatConstant(shape));
      }
      return b.node(name, inputs, dims);
    },
  };
}

// The condition compares a graph input (exact values: a computed one would flip at its last
// bits, as Floor would) and picks between x and a value of x's shape.
const where = {
  name: 'Where', since: 9,
  build(b, x, values) {
    const dims = b.shapes.get(x);
    const same = values.filter((v) => b.shapes.get(v).join() === dims.join());
    const inputs = same.filter((v) => isInput(b, v));
    if (inputs.length === 0) return null;
    const cmp = b.rng.pick(['Greater', 'Less']);
    const cond = b.node(cmp, [b.rng.pick(inputs), b.constant([], [b.rng.pick([0, 0.5, -0.25])])], dims);
    return b.node('Where', [cond, x, b.rng.pick(same)], dims);
  },
};

function argExtreme(name) {
  return {
    name, since: 7,
    build(b, x) {
      const dims = b.shapes.get(x);
      // Graph inputs only: computed values differ in their last bits, which decide near-ties.
      if (dims.length === 0 || hasZero(dims) || !isInput(b, x)) return null;
      const axis = b.rng.int(0, dims.length - 1);
      const keep = b.rng.int(0, 1);
      const attrs = { axis: b.opset >= 11 && b.rng.chance(0.3) ? axis - dims.length : axis, keepdims: keep };
      if (b.opset >= 12 && b.rng.chance(0.5)) attrs.select_last_index = b.rng.chance(0.8) ? 1 : 0;
      const out = keep ? dims.map((d, i) => (i === axis ? 1 : d)) : dims.filter((d, i) => i !== axis);
      const index = b.node(name, [x], out, attrs);
      return b.node('Cast', [index], out, { to: 1 });  // float32 again: the chain goes on
    },
  };
}

const instanceNorm = {
  name: 'InstanceNormalization', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    // onnxruntime 1.30 dies (SIGSEGV) normalizing an empty tensor (fuzz-diff seed 14368).
    if (dims.length < 3 || !fixed(dims[1]) || hasZero(dims)) return null;
    const c = dims[1];
    const attrs = b.rng.chance(0.5) ? { epsilon: b.rng.pick([1e-5, 1e-2]) } : {};
    return b.node('InstanceNormalization', [x, b.floatConstant([c], 0.5, 1.5), b.floatConstant([c])], dims, attrs, ['epsilon']);
  },
};

const layerNorm = {
  name: 'LayerNormalization', since: 17,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axes = dims.map((d, i) => i).filter((i) => dims.slice(i).every(fixed));
    if (axes.length === 0 || hasZero(dims)) return null;
    const axis = b.rng.pick(axes);
    const norm = dims.slice(axis);
    const inputs = [x, b.floatConstant(norm, 0.5, 1.5)];
    if (b.rng.chance(0.5)) inputs.push(b.floatConstant(norm));
    const attrs = { axis: b.rng.chance(0.5) ? axis - dims.length : axis };
    if (b.rng.chance(0.5)) attrs.epsilon = b.rng.pick([1e-5, 1e-3]);
    // stash_type: the type of the mean and variance (1, float32, the one a float32 input has).
    if (b.rng.chance(0.3)) attrs.stash_type = 1;
    return b.node('LayerNormalization', inputs, dims, attrs, ['epsilon']);
  },
};

const lrn = {
  name: 'LRN', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    const attrs = { size: b.rng.pick([1, 3, 5]) };
    if (b.rng.chance(0.5)) attrs.alpha = b.rng.pick([1e-4, 0.01]);
    if (b.rng.chance(0.5)) attrs.beta = b.rng.pick([0.75, 0.5]);
    if (b.rng.chance(0.5)) attrs.bias = b.rng.pick([1, 2]);
    return b.node('LRN', [x], dims, attrs, ['alpha', 'beta', 'bias']);
  },
};

function reduceMore(name, since, axesInputSince = 18) {
  return {
    name, since,
    build(b, x) {
      const dims = b.shapes.get(x);
      if (dims.length === 0 || hasZero(dims)) return null;
      const axes = [b.rng.int(0, dims.length - 1)];
      const keep = b.rng.int(0, 1);
      const out = keep ? dims.map((d, i) => (axes.includes(i) ? 1 : d)) : dims.filter((d, i) => !axes.includes(i));
      const attrs = { keepdims: keep };
      const input = name === 'ReduceProd' ? b.node('Tanh', [x], dims) : x;  // products stay small
      if (b.opset >= axesInputSince) {
        const noop = noopWithEmptyAxes(b, dims, keep);
        if (noop) return b.node(name, [input], noop.out, { ...attrs, ...noop.attrs });
        // With axes given, noop_with_empty_axes does not apply.
        if (b.rng.chance(0.15)) attrs.noop_with_empty_axes = b.rng.int(0, 1);
        return b.node(name, [input, b.intConstant(axes)], out, attrs);
      }
      return b.node(name, [input], out, { ...attrs, axes });
    },
  };
}

export const MATH_OPS = [
  prelu, pow, onBounded('Exp', 7), { ...unary('Erf', 9), since: 9 }, onPositive('Sqrt', 7), onPositive('Log', 7),
  onPositive('Reciprocal', 7), onInputs('Floor', 7), onInputs('Ceil', 7), { ...onInputs('Round', 11), since: 11 },
  onBounded('Sin', 7), onBounded('Cos', 7), unary('Selu', 7, (b) => (b.rng.chance(0.5) ? {} : { alpha: b.rng.pick([1.5, 1.67326]), gamma: b.rng.pick([1.0507, 2]) }), ['alpha', 'gamma']),
  unary('ThresholdedRelu', 10, (b) => (b.rng.chance(0.5) ? {} : { alpha: b.rng.pick([0.5, 1, 1.5]) }), ['alpha']),
  unary('Celu', 12, (b) => (b.rng.chance(0.5) ? {} : { alpha: b.rng.pick([0.5, 1, 2]) }), ['alpha']),
  variadic('Sum'), variadic('Mean'), where,
  argExtreme('ArgMax'), argExtreme('ArgMin'), instanceNorm, layerNorm, lrn,
  reduceMore('ReduceMin', 7), reduceMore('ReduceProd', 7), reduceMore('ReduceL1', 7), reduceMore('ReduceL2', 7),
  reduceMore('ReduceLogSumExp', 7), reduceMore('ReduceSumSquare', 7),
];
