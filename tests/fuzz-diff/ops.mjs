// The operators the differential fuzzer draws (tests/fuzz-diff/generator.mjs): for each, the
// opsets it exists in and a builder that adds it over value x with attributes drawn from what
// the spec allows there, or returns null when x does not fit. Dims are numbers or 'N' (the
// symbolic batch); an op that needs a dim's value requires a number there.
import { allFixed, alpha, binary, fixed, groupCounts, hasZero, is4d, noopWithEmptyAxes, unary, windowAttrs } from './ops-common.mjs';
import { SHAPE_OPS } from './ops-shape.mjs';
import { MATH_OPS } from './ops-math.mjs';
import { MORE_OPS } from './ops-more.mjs';
import { FLOAT64_OPS } from './ops-float64.mjs';
import { QUANT_OPS } from './ops-quant.mjs';
import { EXTRA_OPS, INDEX_OPS, SIGNAL_OPS } from './ops-extra.mjs';
import { RECURRENT_OPS } from './ops-recurrent.mjs';
import { SPATIAL_OPS } from './ops-spatial.mjs';
import { SELECT_OPS } from './ops-select.mjs';
import { CONTROL_OPS } from './ops-control.mjs';
import { ATTENTION_OPS } from './ops-attention.mjs';

const conv = {
  name: 'Conv', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    const c = dims[1];
    const groups = groupCounts(c);
    const group = b.rng.pick(groups);
    const m = group * b.rng.int(1, 3);
    const window = windowAttrs(b, dims, { maxKernel: 3 });
    // onnxruntime runs no dilated Conv with SAME padding.
    if (!window || (window.attrs.dilations && window.attrs.auto_pad?.startsWith('SAME'))) return null;
    const [kh, kw] = window.attrs.kernel_shape;
    const weight = b.floatConstant([m, c / group, kh, kw], -1 / Math.sqrt(c * kh * kw / group), 1 / Math.sqrt(c * kh * kw / group));
    const inputs = [x, weight];
    if (b.rng.chance(0.6)) inputs.push(b.floatConstant([m]));
    const attrs = { ...window.attrs };
    if (group > 1 || b.rng.chance(0.2)) attrs.group = group;
    return b.node('Conv', inputs, [dims[0], m, ...window.out], attrs);
  },
};

function pool(name) {
  return {
    name, since: 7,
    build(b, x) {
      const dims = b.shapes.get(x);
      if (!is4d(dims)) return null;
      const ceil = b.opset >= 10 && b.rng.chance(0.3);
      const dilations = name === 'MaxPool' ? b.opset >= 10 : b.opset >= 19;
      const window = windowAttrs(b, dims, { maxKernel: 3, dilations, ceil, padBelowKernel: true });
      // onnxruntime pads SAME pooling windows as if they were not dilated (the spec dilates
      // them): tests/regressions/ holds a case with the spec's answer.
      if (!window || (window.attrs.dilations && window.attrs.auto_pad?.startsWith('SAME'))) return null;
      const attrs = { ...window.attrs };
      if (ceil) attrs.ceil_mode = 1; else if (b.opset >= 10 && b.rng.chance(0.15)) attrs.ceil_mode = 0;
      // storage_order orders the Indices output, which this single-output node does not have.
      if (name === 'MaxPool' && b.opset >= 8 && b.rng.chance(0.2)) attrs.storage_order = b.rng.int(0, 1);
      if (name === 'AveragePool' && b.rng.chance(0.5)) attrs.count_include_pad = b.rng.int(0, 1);
      return b.node(name, [x], [dims[0], dims[1], ...window.out], attrs);
    },
  };
}

const globalPool = (name) => ({
  name, since: 7,
  build: (b, x) => (is4d(b.shapes.get(x)) ? b.node(name, [x], [...b.shapes.get(x).slice(0, 2), 1, 1]) : null),
});

const matmul = {
  name: 'MatMul', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const k = dims.at(-1);
    // An empty inner dim makes onnxruntime 1.30 drop Gemm's beta (tests/regressions/spec-gemm-*).
    if (!fixed(k) || k === 0 || dims.length < 2) return null;
    const m = b.rng.int(1, 12);
    return b.node('MatMul', [x, b.floatConstant([k, m], -1 / Math.sqrt(k), 1 / Math.sqrt(k))], [...dims.slice(0, -1), m]);
  },
};

const gemm = {
  name: 'Gemm', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length !== 2 || !fixed(dims[1]) || dims[1] === 0) return null;
    const k = dims[1], m = b.rng.int(1, 12);
    const attrs = {};
    const transB = b.rng.chance(0.5);
    if (transB || b.rng.chance(0.2)) attrs.transB = transB ? 1 : 0;
    // transA: A given as x transposed ([k, N]), Gemm transposing it back.
    let a = x;
    if (b.rng.chance(0.25)) {
      a = b.node('Transpose', [x], [k, dims[0]], { perm: [1, 0] });
      attrs.transA = 1;
    } else if (b.rng.chance(0.1)) {
      attrs.transA = 0;
    }
    const inputs = [a, b.floatConstant(transB ? [m, k] : [k, m], -1 / Math.sqrt(k), 1 / Math.sqrt(k))];
    if (b.opset < 11 || b.rng.chance(0.7)) inputs.push(b.floatConstant(b.rng.pick([[m], [1, m], [1]])));
    if (b.rng.chance(0.3)) attrs.alpha = b.rng.pick([0.5, 2]);
    if (b.rng.chance(0.3)) attrs.beta = b.rng.pick([0.5, 2]);
    return b.node('Gemm', inputs, [dims[0], m], attrs, ['alpha', 'beta']);
  },
};

const batchNorm = {
  name: 'BatchNormalization', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || !fixed(dims[1])) return null;
    const c = dims[1];
    const inputs = [x, b.floatConstant([c], 0.5, 1.5), b.floatConstant([c]), b.floatConstant([c]), b.floatConstant([c], 0.5, 2)];
    const attrs = b.rng.chance(0.5) ? { epsilon: b.rng.pick([1e-5, 1e-3, 0.1]) } : {};
    // momentum only updates the running statistics in training: inference ignores it.
    if (b.rng.chance(0.3)) attrs.momentum = b.rng.pick([0.9, 0.99]);
    // BatchNormalization-7 (opsets 7 and 8): spatial = 1, statistics per channel.
    if (b.opset < 9 && b.rng.chance(0.5)) attrs.spatial = 1;
    if (b.opset >= 14 && b.rng.chance(0.3)) attrs.training_mode = 0;
    return b.node('BatchNormalization', inputs, dims, attrs, ['epsilon', 'momentum']);
  },
};

const reshape = {
  name: 'Reshape', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const rest = dims.slice(1);
    if (dims[0] !== 'N' || !allFixed(rest)) return null;
    let p = rest.reduce((a, d) => a * d, 1);
    const target = [0];
    for (let parts = b.rng.int(0, 2); parts > 0 && p > 1; parts--) {
      const divisors = Array.from({ length: p }, (_, i) => i + 1).filter((d) => p % d === 0);
      const d = b.rng.pick(divisors);
      target.push(d);
      p /= d;
    }
    target.push(p);
    const out = ['N', ...target.slice(1)];
    const written = [...target];
    if (written.length > 1 && b.rng.chance(0.4)) written[b.rng.int(1, written.length - 1)] = -1;
    const attrs = {};
    // allowzero = 1: a 0 is a dim of 0, not a copy; the batch dim is then written -1 (where no
    // other dim is, and the rest is not empty).
    if (b.opset >= 14 && b.rng.chance(0.3)) {
      const canInfer = !written.includes(-1) && !written.slice(1).includes(0) && p > 0 && !hasZero(rest);
      attrs.allowzero = canInfer && b.rng.chance(0.7) ? 1 : 0;
      if (attrs.allowzero) written[0] = -1;
    }
    return b.node('Reshape', [x, b.intConstant(written)], out, attrs);
  },
};

const flatten = {
  name: 'Flatten', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims[0] !== 'N' || !allFixed(dims.slice(1))) return null;
    // Axes that keep N alone in the first dim (later ops find the batch there).
    const axes = Array.from({ length: dims.length }, (_, i) => i + 1)
      .filter((a) => dims.slice(1, a).every((d) => d === 1));
    const axis = b.rng.pick(axes);
    const written = b.opset >= 11 && axis < dims.length && b.rng.chance(0.3) ? axis - dims.length : axis;
    return b.node('Flatten', [x], ['N', dims.slice(axis).reduce((a, d) => a * d, 1)], { axis: written });
  },
};

const transpose = {
  name: 'Transpose', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    // N stays first: later ops find the batch where they expect it.
    const rest = Array.from({ length: dims.length - 1 }, (_, i) => i + 1);
    for (let i = rest.length - 1; i > 0; i--) {
      const j = b.rng.int(0, i);
      [rest[i], rest[j]] = [rest[j], rest[i]];
    }
    const perm = [0, ...rest];
    return b.node('Transpose', [x], perm.map((p) => dims[p]), { perm });
  },
};

const concat = {
  name: 'Concat', since: 7,
  build(b, x, values) {
    const dims = b.shapes.get(x);
    const axes = dims.map((d, i) => i).filter((i) => fixed(dims[i]));
    if (axes.length === 0) return null;
    const axis = b.rng.pick(axes);
    const same = values.filter((v) => b.shapes.get(v).join() === dims.join());
    const other = b.rng.pick(same);
    const out = dims.map((d, i) => (i === axis ? d * 2 : d));
    const written = b.opset >= 11 && b.rng.chance(0.3) ? axis - dims.length : axis;
    return b.node('Concat', b.rng.chance(0.5) ? [x, other] : [other, x], out, { axis: written });
  },
};

const softmax = {
  name: 'Softmax', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    // Before opset 13 Softmax works on the input coerced to 2-D at `axis`.
    if (dims.length < 2) return null;
    const axis = b.rng.int(b.opset >= 13 ? 0 : 1, dims.length - 1);
    const written = b.opset >= 11 && b.rng.chance(0.3) ? axis - dims.length : axis;
    return b.node('Softmax', [x], dims, b.rng.chance(0.2) && written === (b.opset >= 13 ? -1 : 1) ? {} : { axis: written });
  },
};

function reduce(name, axesInputSince) {
  return {
    name, since: 7,
    build(b, x) {
      const dims = b.shapes.get(x);
      if (hasZero(dims)) return null;
      const axes = dims.map((d, i) => i).filter(() => b.rng.chance(0.5));
      if (axes.length === 0) axes.push(b.rng.int(0, dims.length - 1));
      const keep = b.rng.int(0, 1);
      const out = keep ? dims.map((d, i) => (axes.includes(i) ? 1 : d)) : dims.filter((d, i) => !axes.includes(i));
      const written = axes.map((a) => (b.rng.chance(0.3) && b.opset >= 11 ? a - dims.length : a));
      const attrs = { keepdims: keep };
      const inputs = [x];
      if (b.opset >= axesInputSince) {
        const noop = noopWithEmptyAxes(b, dims, keep);
        if (noop) return b.node(name, inputs, noop.out, { ...attrs, ...noop.attrs });
        inputs.push(b.intConstant(written));
        if (b.rng.chance(0.15)) attrs.noop_with_empty_axes = b.rng.int(0, 1);  // axes given: no effect
      } else {
        attrs.axes = written;
      }
      return b.node(name, inputs, out, attrs);
    },
  };
}

const unsqueeze = {
  name: 'Unsqueeze', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length >= 5) return null;
    const axis = b.rng.int(1, dims.length);
    const out = [...dims.slice(0, axis), 1, ...dims.slice(axis)];
    return b.opset >= 13 ? b.node('Unsqueeze', [x, b.intConstant([axis])], out) : b.node('Unsqueeze', [x], out, { axes: [axis] });
  },
};

const squeeze = {
  name: 'Squeeze', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const ones = dims.map((d, i) => i).filter((i) => dims[i] === 1);
    if (ones.length === 0) return null;
    const axes = ones.filter(() => b.rng.chance(0.6));
    if (axes.length === 0) axes.push(ones[0]);
    const out = dims.filter((d, i) => !axes.includes(i));
    return b.opset >= 13 ? b.node('Squeeze', [x, b.intConstant(axes)], out) : b.node('Squeeze', [x], out, { axes });
  },
};

const clip = {
  name: 'Clip', since: 7,
  build(b, x) {
    const lo = b.rng.pick([-1, -0.5, 0]), hi = b.rng.pick([0.5, 1, 6]);
    if (b.opset < 11) return b.node('Clip', [x], b.shapes.get(x), { min: lo, max: hi }, ['min', 'max']);
    const inputs = [x, b.rng.chance(0.8) ? b.constant([], [lo]) : ''];
    if (b.rng.chance(0.8)) inputs.push(b.constant([], [hi]));
    return b.node('Clip', inputs, b.shapes.get(x));
  },
};

export const OPS = [
  unary('Relu', 7), unary('Sigmoid', 7), unary('Tanh', 7), unary('Abs', 7), unary('Neg', 7), unary('Identity', 7),
  unary('Softsign', 7), unary('Softplus', 7),
  unary('LeakyRelu', 7, alpha, ['alpha']), unary('Elu', 7, alpha, ['alpha']),
  unary('HardSigmoid', 7, (b) => ({ alpha: b.rng.pick([0.2, 0.5]), beta: b.rng.pick([0.5, 0.1]) }), ['alpha', 'beta']),
  { ...unary('HardSwish', 14), since: 14 },
  binary('Add', 7), binary('Sub', 7), binary('Mul', 7), binary('Div', 7, { positive: true }),
  { ...binary('Max', 8), since: 8 }, { ...binary('Min', 8), since: 8 },
  conv, pool('MaxPool'), pool('AveragePool'), globalPool('GlobalAveragePool'), globalPool('GlobalMaxPool'),
  matmul, gemm, batchNorm, reshape, flatten, transpose, concat, softmax,
  reduce('ReduceMean', 18), reduce('ReduceSum', 13), reduce('ReduceMax', 18),
  unsqueeze, squeeze, clip,
  ...SHAPE_OPS, ...MATH_OPS, ...MORE_OPS, ...FLOAT64_OPS, ...QUANT_OPS, ...EXTRA_OPS, ...INDEX_OPS, ...SIGNAL_OPS,
  ...RECURRENT_OPS, ...SPATIAL_OPS, ...SELECT_OPS, ...CONTROL_OPS, ...ATTENTION_OPS,
];
