// More ops for the differential fuzzer (tests/fuzz-diff/ops.mjs): trigonometric and hyperbolic
// functions on bounded arguments, softmax variants, normalizations, index-valued and
// index-reading ops. Ops whose result jumps with its input's last bits (Sign, Hardmax, TopK's
// order) read graph inputs only.
import { fixed, groupCounts, hasZero, is4d, isInput, onBounded, onInputs, tanhOf, unary } from './ops-common.mjs';

// 0.9 * tanh(x): inside (-1, 1) for Asin, Acos and Atanh.
const inside = (b, x) => b.node('Mul', [tanhOf(b, x), b.constant([], [0.9])], b.shapes.get(x));

function axisOf(b, dims) {
  const axis = b.rng.int(0, dims.length - 1);
  return b.opset >= 11 && b.rng.chance(0.3) ? axis - dims.length : axis;
}

// LogSoftmax and Hardmax: coerced to 2-D at `axis` before opset 13, one axis from 13.
function softmaxLike(name, { inputsOnly = false } = {}) {
  return {
    name, since: 7,
    build(b, x) {
      const dims = b.shapes.get(x);
      if (dims.length < 2 || hasZero(dims) || (inputsOnly && !isInput(b, x))) return null;
      const axis = b.rng.int(b.opset >= 13 ? 0 : 1, dims.length - 1);
      return b.node(name, [x], dims, { axis: b.opset >= 11 && b.rng.chance(0.3) ? axis - dims.length : axis });
    },
  };
}

const shrink = {
  name: 'Shrink', since: 9,
  build: (b, x) => b.node('Shrink', [x], b.shapes.get(x), { lambd: b.rng.pick([0.5, 1]), bias: b.rng.pick([0, 0.25]) },
    ['lambd', 'bias']),
};

const lpNorm = {
  name: 'LpNormalization', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length === 0 || hasZero(dims)) return null;
    return b.node('LpNormalization', [x], dims, { axis: axisOf(b, dims), p: b.rng.pick([1, 2]) });
  },
};

const mvn = {
  name: 'MeanVarianceNormalization', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    return b.node('MeanVarianceNormalization', [x], dims, b.rng.chance(0.5) ? { axes: [0, 2, 3] } : { axes: [2, 3] });
  },
};

const trilu = {
  name: 'Trilu', since: 14,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || !fixed(dims.at(-1)) || !fixed(dims.at(-2))) return null;
    const inputs = b.rng.chance(0.6) ? [x, b.constant([], [b.rng.int(-2, 2)], 'int')] : [x];
    return b.node('Trilu', inputs, dims, b.rng.chance(0.5) ? { upper: 0 } : b.rng.chance(0.3) ? { upper: 1 } : {});
  },
};

const topk = {
  name: 'TopK', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axis = dims.length - 1;
    if (!isInput(b, x) || !fixed(dims[axis]) || dims[axis] === 0) return null;
    const k = b.rng.int(1, dims[axis]);
    const attrs = { axis: b.opset >= 11 && b.rng.chance(0.3) ? -1 : axis };
    if (b.opset >= 11 && b.rng.chance(0.4)) attrs.largest = b.rng.chance(0.75) ? 0 : 1;
    // sorted = 0 leaves the order open (onnxruntime keeps its sorted one): written as 1 only.
    if (b.opset >= 11 && b.rng.chance(0.2)) attrs.sorted = 1;
    const out = dims.map((d, i) => (i === axis ? k : d));
    // Before opset 10, k is an attribute.
    if (b.opset < 10) return b.nodeOutputs('TopK', [x], [out, out], { ...attrs, k })[0];
    const [values] = b.nodeOutputs('TopK', [x, b.intConstant([k])], [out, out], attrs);
    return values;
  },
};

const gatherElements = {
  name: 'GatherElements', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axis = dims.length - 1;
    // The indices are a constant, so every dim but the gathered one must be fixed.
    if (dims.length < 1 || !dims.every(fixed) || dims[axis] === 0) return null;
    const count = b.rng.int(1, 4);
    const shape = [...dims.slice(0, -1), count];
    const n = shape.reduce((a, d) => a * d, 1);
    const indices = b.constant(shape, Array.from({ length: n }, () => b.rng.int(-dims[axis], dims[axis] - 1)), 'int');
    return b.node('GatherElements', [x, indices], shape, { axis: b.rng.chance(0.3) ? -1 : axis });
  },
};

const groupNorm = {
  name: 'GroupNormalization', since: 18, weight: 3,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    const c = dims[1];
    const groups = b.rng.pick(groupCounts(c));
    // Scale and bias per group at opset 18 (GroupNormalization-18), per channel from 21.
    const per = b.opset >= 21 ? c : groups;
    const inputs = [x, b.floatConstant([per], 0.5, 1.5), b.floatConstant([per])];
    const attrs = { num_groups: groups };
    if (b.rng.chance(0.5)) attrs.epsilon = b.rng.pick([1e-5, 1e-3, 0.1]);
    // stash_type (opset 21): the statistics in float32 (1), the only type a float32 input takes.
    if (b.opset >= 21 && b.rng.chance(0.3)) attrs.stash_type = 1;
    return b.node('GroupNormalization', inputs, dims, attrs, ['epsilon']);
  },
};

export const MORE_OPS = [
  onBounded('Tan', 7), onBounded('Sinh', 9), onBounded('Cosh', 9), onBounded('Atan', 7), onBounded('Asinh', 9),
  onBounded('Asin', 7, inside), onBounded('Acos', 7, inside), onBounded('Atanh', 9, inside),
  onBounded('Mish', 18), onInputs('Sign', 9),
  // Swish (opset 24): x * sigmoid(alpha * x).
  { ...unary('Swish', 24, (b) => (b.rng.chance(0.6) ? { alpha: b.rng.pick([0.5, 1, 1.702]) } : {}), ['alpha']), weight: 5 },
  softmaxLike('LogSoftmax'), softmaxLike('Hardmax', { inputsOnly: true }), shrink, lpNorm, mvn, trilu, topk,
  gatherElements, groupNorm,
];
