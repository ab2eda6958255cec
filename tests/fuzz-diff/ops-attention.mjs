// The opset-23 transformer ops: RMSNormalization (over the last 1-2 axes, scale shaped like
// them or broadcast), RotaryEmbedding (a 4-D value as [batch, heads, seq, head size]; its cos
// and sin caches made from the value itself, [batch, seq, rotary / 2]) and Attention (query,
// key and value made from one 4-D value; causal or not, an additive mask, a scale, a softcap).
import { allFixed, hasZero } from './ops-common.mjs';

const rmsNormalization = {
  name: 'RMSNormalization', since: 23, weight: 2,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || hasZero(dims)) return null;
    const normalized = b.rng.int(1, Math.min(2, dims.length - 1));
    const inner = dims.slice(dims.length - normalized);
    if (!allFixed(inner)) return null;
    const scaleDims = b.rng.chance(0.3) ? inner.map((d, i) => (i === inner.length - 1 ? d : 1)) : inner;
    const attrs = { axis: b.rng.chance(0.5) ? -normalized : dims.length - normalized };
    if (b.rng.chance(0.4)) attrs.epsilon = b.rng.pick([1e-3, 0.1]);
    if (b.rng.chance(0.3)) attrs.stash_type = 1;  // float32 statistics, the type a float32 input has
    return b.node('RMSNormalization', [x, b.floatConstant(scaleDims, 0.5, 1.5)], dims, attrs, ['epsilon']);
  },
};

// The last axis of x sliced to [start, end).
const sliceLast = (b, x, start, end) => {
  const dims = b.shapes.get(x);
  return b.node('Slice', [x, b.intConstant([start]), b.intConstant([end]), b.intConstant([-1])], [...dims.slice(0, -1), end - start]);
};

// RotaryEmbedding of a 3-D value [batch, seq, heads * head size] (num_heads given).
function rotary3d(b, x) {
  const dims = b.shapes.get(x);
  const [n, seq, hidden] = dims;
  const heads = b.rng.pick([1, 2, 3, 4].filter((h) => hidden % h === 0 && (hidden / h) % 2 === 0));
  if (!heads) return null;
  const head = hidden / heads;
  const rotary = b.rng.pick([head, ...(head % 4 === 0 ? [head / 2] : [])]);
  const angles = sliceLast(b, x, 0, rotary / 2);
  const cos = b.node('Cos', [angles], [n, seq, rotary / 2]), sin = b.node('Sin', [angles], [n, seq, rotary / 2]);
  const attrs = { num_heads: heads };
  if (b.rng.chance(0.6)) attrs.interleaved = b.rng.int(0, 1);
  if (rotary !== head || b.rng.chance(0.2)) attrs.rotary_embedding_dim = rotary;
  return b.node('RotaryEmbedding', [x, cos, sin], dims, attrs);
}

const rotaryEmbedding = {
  name: 'RotaryEmbedding', since: 23, weight: 6,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length === 3 && allFixed(dims.slice(1)) && !hasZero(dims)) return rotary3d(b, x);
    if (dims.length !== 4 || !allFixed(dims.slice(1)) || hasZero(dims) || dims[3] % 2 !== 0) return null;
    const [n, , seq, head] = dims;
    const rotary = b.rng.pick([head, ...(head % 4 === 0 ? [head / 2] : [])]);
    const angles = b.node('Slice', [b.node('ReduceMean', [x, b.intConstant([1])], [n, seq, head], { keepdims: 0 }),
      b.intConstant([0]), b.intConstant([rotary / 2]), b.intConstant([2])], [n, seq, rotary / 2]);
    const cos = b.node('Cos', [angles], [n, seq, rotary / 2]), sin = b.node('Sin', [angles], [n, seq, rotary / 2]);
    const attrs = {};
    if (b.rng.chance(0.6)) attrs.interleaved = b.rng.int(0, 1);
    if (rotary !== head) attrs.rotary_embedding_dim = rotary;
    return b.node('RotaryEmbedding', [x, cos, sin], dims, attrs);
  },
};

// Attention of a 4-D value [batch, heads, seq, head size] (query, key and value all made from
// it), or of a 3-D one [batch, seq, hidden] with q_num_heads and kv_num_heads (fewer key and
// value heads, grouped, made from the first columns); now and then its qk_matmul_output too.
const attention = {
  name: 'Attention', since: 23, weight: 4,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 3 || dims.length > 4 || !allFixed(dims.slice(1)) || hasZero(dims)) return null;
    const attrs = {};
    let key, value, seq, heads;
    if (dims.length === 4) {
      [, heads, seq] = dims;
      key = b.node('Tanh', [x], dims);
      value = b.node('Sigmoid', [x], dims);
    } else {
      const hidden = dims[2];
      seq = dims[1];
      heads = b.rng.pick([1, 2, 3, 4].filter((h) => hidden % h === 0));
      const kvHeads = b.rng.pick([1, 2, 3, 4].filter((h) => heads % h === 0));
      const columns = (hidden / heads) * kvHeads;
      const part = columns === hidden ? x : sliceLast(b, x, 0, columns);
      key = b.node('Tanh', [part], [...dims.slice(0, 2), columns]);
      value = b.node('Sigmoid', [part], [...dims.slice(0, 2), columns]);
      attrs.q_num_heads = heads;
      attrs.kv_num_heads = kvHeads;
    }
    const inputs = [x, key, value];
    if (b.rng.chance(0.3)) inputs.push(b.floatConstant([seq, seq], -2, 0));
    if (b.rng.chance(0.5)) attrs.is_causal = b.rng.chance(0.8) ? 1 : 0;
    if (b.rng.chance(0.3)) attrs.scale = b.rng.pick([0.25, 0.5, 2]);
    if (b.rng.chance(0.2)) attrs.softcap = b.rng.pick([1, 5]);
    // softmax_precision: the type the softmax is computed in (1, float32, the input's).
    if (b.rng.chance(0.2)) attrs.softmax_precision = 1;
    if (b.rng.chance(0.3)) {
      // qk_matmul_output: the scores after the product (0), the mask (1), the softcap (2) or the softmax (3).
      // With is_causal, the scores after the mask (1) or softcap (2) show the masked places:
      // minus infinity in webnx and the ONNX reference, the lowest float in onnxruntime 1.30
      // (fuzz-diff seed 23023535): only 0 and 3 there.
      attrs.qk_matmul_output_mode = attrs.is_causal ? b.rng.pick([0, 3]) : b.rng.int(0, 3);
      const scores = [dims[0], heads, seq, seq];
      const [y, , , qk] = b.nodeOutputs('Attention', inputs, [dims, [], [], scores], attrs, ['scale', 'softcap']);
      const node = b.nodes.at(-1);
      node.output = [y, '', '', qk];
      return b.rng.chance(0.5) ? qk : y;
    }
    return b.node('Attention', inputs, dims, attrs, ['scale', 'softcap']);
  },
};

// TensorScatter (opset 24), a key-value cache update: x as the cache [batch, ..., max seq, ...],
// the update a slice of x's negation along a fixed axis (not the batch), written at a position
// per batch entry (write_indices, built from x's shape as the batch varies), linearly (the
// update fits from there) or circularly (wrapping around the cache's end).
const tensorScatter = {
  name: 'TensorScatter', since: 24, weight: 8,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axes = dims.map((d, i) => i).filter((i) => i > 0 && typeof dims[i] === 'number' && dims[i] > 0);
    if (dims.length < 2 || hasZero(dims) || !axes.length) return null;
    const axis = b.rng.pick(axes);
    const max = dims[axis];
    const seq = b.rng.int(1, max);
    const mode = b.rng.pick(['linear', 'circular', '']);
    const attrs = {};
    if (mode) attrs.mode = mode;
    if (axis !== dims.length - 2 || b.rng.chance(0.3)) attrs.axis = b.rng.chance(0.5) ? axis - dims.length : axis;
    const start = b.rng.int(0, max - seq);
    const updateDims = dims.map((d, i) => (i === axis ? seq : d));
    const slice = b.node('Slice', [x, b.intConstant([start]), b.intConstant([start + seq]), b.intConstant([axis])], updateDims);
    const inputs = [x, b.node('Neg', [slice], updateDims)];
    if (b.rng.chance(0.7)) {
      // The same position for every batch entry: a ConstantOfShape of x's batch size.
      const at = mode === 'circular' ? b.rng.int(0, max - 1) : b.rng.int(0, max - seq);
      const batch = b.node('Shape', [x], [1], { end: 1 });
      b.types.set(batch, 7);
      const indices = b.node('ConstantOfShape', [batch], [dims[0]]);
      b.nodes.at(-1).attribute = [{ name: 'value', type: 'TENSOR', t: { dims: ['1'], dataType: 7, int64Data: [String(at)] } }];
      b.types.set(indices, 7);
      inputs.push(indices);
    }
    return b.node('TensorScatter', inputs, dims, attrs);
  },
};

export const ATTENTION_OPS = [rmsNormalization, rotaryEmbedding, attention, tensorScatter];
