// The opset-23 transformer ops: RMSNormalization (over the last 1-2 axes, scale shaped like
// them or broadcast), RotaryEmbedding (a 4-D value as [batch, heads, seq, head size]; its cos
// and sin caches made from the value itself, [batch, seq, rotary / 2]) and Attention (query,
// key and value made from one 4-D value; causal or not, an additive mask, a scale, a softcap).
import { allFixed, hasZero } from './ops-common.mjs';

const rmsNormalization = {
  name: 'RMSNormalization', since: 23,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || hasZero(dims)) return null;
    const normalized = b.rng.int(1, Math.min(2, dims.length - 1));
    const inner = dims.slice(dims.length - normalized);
    if (!allFixed(inner)) return null;
    const scaleDims = b.rng.chance(0.3) ? inner.map((d, i) => (i === inner.length - 1 ? d : 1)) : inner;
    const attrs = { axis: b.rng.chance(0.5) ? -normalized : dims.length - normalized };
    if (b.rng.chance(0.4)) attrs.epsilon = b.rng.pick([1e-3, 0.1]);
    return b.node('RMSNormalization', [x, b.floatConstant(scaleDims, 0.5, 1.5)], dims, attrs, ['epsilon']);
  },
};

const rotaryEmbedding = {
  name: 'RotaryEmbedding', since: 23,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length !== 4 || !allFixed(dims.slice(1)) || hasZero(dims) || dims[3] % 2 !== 0) return null;
    const [n, , seq, head] = dims;
    const rotary = b.rng.pick([head, ...(head % 4 === 0 ? [head / 2] : [])]);
    const angles = b.node('Slice', [b.node('ReduceMean', [x, b.intConstant([1])], [n, seq, head], { keepdims: 0 }),
      b.intConstant([0]), b.intConstant([rotary / 2]), b.intConstant([2])], [n, seq, rotary / 2]);
    const cos = b.node('Cos', [angles], [n, seq, rotary / 2]), sin = b.node('Sin', [angles], [n, seq, rotary / 2]);
    const attrs = {};
    if (b.rng.chance(0.5)) attrs.interleaved = 1;
    if (rotary !== head) attrs.rotary_embedding_dim = rotary;
    return b.node('RotaryEmbedding', [x, cos, sin], dims, attrs);
  },
};

const attention = {
  name: 'Attention', since: 23,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length !== 4 || !allFixed(dims.slice(1)) || hasZero(dims)) return null;
    const seq = dims[2];
    const key = b.node('Tanh', [x], dims), value = b.node('Sigmoid', [x], dims);
    const inputs = [x, key, value];
    if (b.rng.chance(0.3)) inputs.push(b.floatConstant([seq, seq], -2, 0));
    const attrs = {};
    if (b.rng.chance(0.4)) attrs.is_causal = 1;
    if (b.rng.chance(0.3)) attrs.scale = b.rng.pick([0.25, 0.5, 2]);
    if (b.rng.chance(0.2)) attrs.softcap = b.rng.pick([1, 5]);
    return b.node('Attention', inputs, dims, attrs, ['scale', 'softcap']);
  },
};

export const ATTENTION_OPS = [rmsNormalization, rotaryEmbedding, attention];
