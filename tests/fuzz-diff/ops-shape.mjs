// Data-movement and resampling ops for the differential fuzzer (tests/fuzz-diff/ops.mjs): the
// batch axis (0) is never sliced, padded or tiled, so it stays the symbolic 'N'.
import { fixed, is4d } from './ops-common.mjs';

// A random fixed axis other than the batch, or -1.
function fixedAxis(b, dims) {
  const axes = dims.map((d, i) => i).filter((i) => i > 0 && fixed(dims[i]));
  return axes.length ? b.rng.pick(axes) : -1;
}

const negative = (b, axis, rank) => (b.opset >= 11 && b.rng.chance(0.3) ? axis - rank : axis);

// The spec's Slice length of one axis (starts/ends clamped, steps of either sign).
function sliceLength(dim, start, end, step) {
  const norm = (v) => (v < 0 ? v + dim : v);
  if (step > 0) {
    const s = Math.min(Math.max(norm(start), 0), dim), e = Math.min(Math.max(norm(end), 0), dim);
    return Math.max(0, Math.ceil((e - s) / step));
  }
  const s = Math.min(Math.max(norm(start), 0), dim - 1), e = Math.min(Math.max(norm(end), -1), dim - 1);
  return Math.max(0, Math.ceil((s - e) / -step));
}

const slice = {
  name: 'Slice', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axis = fixedAxis(b, dims);
    if (axis < 0) return null;
    const dim = dims[axis];
    const step = b.opset >= 10 && b.rng.chance(0.4) ? b.rng.pick([-1, -2, 2, 3]) : 1;
    const start = b.rng.int(-dim - 2, dim + 2), end = b.rng.chance(0.1) ? (step > 0 ? 2 ** 31 - 1 : -(2 ** 31)) : b.rng.int(-dim - 2, dim + 2);
    const length = sliceLength(dim, start, end, step);
    if (length === 0 && b.rng.chance(0.8)) return null;  // size-0 results now and then
    const out = dims.map((d, i) => (i === axis ? length : d));
    const written = negative(b, axis, dims.length);
    if (b.opset < 10) return b.node('Slice', [x], out, { starts: [start], ends: [end], axes: [written] });
    const inputs = [x, b.intConstant([start]), b.intConstant([end]), b.intConstant([written])];
    if (step !== 1 || b.rng.chance(0.3)) inputs.push(b.intConstant([step]));
    return b.node('Slice', inputs, out);
  },
};

const pad = {
  name: 'Pad', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.slice(1).some((d) => !fixed(d)) || dims.length < 2) return null;
    const mode = b.rng.pick(['constant', 'constant', 'reflect', 'edge']);
    if (mode !== 'constant' && dims.includes(0)) return null;
    // Reflect pads stay below the dim; constant ones may be negative (cropping).
    const one = (d) => (mode === 'reflect' ? b.rng.int(0, d - 1) : b.rng.int(mode === 'constant' && d > 1 ? -1 : 0, 2));
    const begins = dims.map((d, i) => (i === 0 ? 0 : one(d))), ends = dims.map((d, i) => (i === 0 ? 0 : one(d)));
    const out = dims.map((d, i) => (i === 0 ? d : d + begins[i] + ends[i]));
    if (out.slice(1).some((d) => d <= 0)) return null;
    const pads = [...begins, ...ends];
    const value = b.rng.pick([0, 1.5, -2]);
    if (b.opset < 11) return b.node('Pad', [x], out, { mode, pads, ...(mode === 'constant' ? { value } : {}) }, ['value']);
    const inputs = [x, b.intConstant(pads)];
    if (mode === 'constant' && b.rng.chance(0.5)) inputs.push(b.constant([], [value]));
    return b.node('Pad', inputs, out, { mode });
  },
};

const gather = {
  name: 'Gather', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axis = fixedAxis(b, dims);
    if (axis < 0 || dims[axis] === 0) return null;
    const dim = dims[axis];
    const scalar = b.rng.chance(0.25);
    const count = scalar ? 1 : b.rng.int(1, 5);
    const indices = Array.from({ length: count }, () => b.rng.int(-dim, dim - 1));
    const name = b.constant(scalar ? [] : [count], indices, 'int');
    const out = [...dims.slice(0, axis), ...(scalar ? [] : [count]), ...dims.slice(axis + 1)];
    return b.node('Gather', [x, name], out, { axis: negative(b, axis, dims.length) });
  },
};

const split = {
  name: 'Split', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const axis = fixedAxis(b, dims);
    if (axis < 0 || dims[axis] < 2) return null;
    const first = b.rng.int(1, dims[axis] - 1);
    const sizes = [first, dims[axis] - first];
    const outs = sizes.map((s) => dims.map((d, i) => (i === axis ? s : d)));
    const attrs = { axis: negative(b, axis, dims.length) };
    let inputs = [x];
    if (b.opset >= 13) inputs = [x, b.intConstant(sizes)]; else attrs.split = sizes;
    const names = b.nodeOutputs('Split', inputs, outs, attrs);
    return b.rng.pick(names);
  },
};

const expand = {
  name: 'Expand', since: 8,
  build(b, x) {
    const dims = b.shapes.get(x);
    const ones = dims.map((d, i) => i).filter((i) => dims[i] === 1);
    const lead = b.rng.chance(0.3) ? [b.rng.int(1, 3)] : [];
    if (ones.length === 0 && lead.length === 0) return null;
    const target = dims.map((d, i) => (ones.includes(i) && b.rng.chance(0.7) ? b.rng.int(2, 4) : fixed(d) && b.rng.chance(0.2) ? 1 : d));
    const shape = [...lead, ...target.map((d) => (fixed(d) ? d : 1))];
    const out = [...lead, ...dims.map((d, i) => (fixed(d) && d === 1 ? target[i] : d))];
    return b.node('Expand', [x, b.intConstant(shape)], out);
  },
};

const tile = {
  name: 'Tile', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    const repeats = dims.map((d, i) => (i === 0 || !fixed(d) ? 1 : b.rng.int(1, 3)));
    return b.node('Tile', [x, b.intConstant(repeats)], dims.map((d, i) => (fixed(d) ? d * repeats[i] : d)));
  },
};

function depthSpace(name) {
  return {
    name, since: 7,
    build(b, x) {
      const dims = b.shapes.get(x);
      if (!is4d(dims)) return null;
      const [, c, h, w] = dims;
      const block = b.rng.pick([2, 3]);
      const attrs = { blocksize: block };
      if (name === 'DepthToSpace') {
        if (c % (block * block) !== 0) return null;
        if (b.opset >= 11 && b.rng.chance(0.5)) attrs.mode = b.rng.pick(['DCR', 'CRD']);
        return b.node(name, [x], ['N', c / (block * block), h * block, w * block], attrs);
      }
      if (h % block !== 0 || w % block !== 0) return null;
      return b.node(name, [x], ['N', c * block * block, h / block, w / block], attrs);
    },
  };
}

const convTranspose = {
  name: 'ConvTranspose', since: 7,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    const c = dims[1];
    const group = b.rng.pick([1, 1, ...(c % 2 === 0 ? [2] : []), c]);
    const m = group * b.rng.int(1, 2);
    const k = [b.rng.int(1, 3), b.rng.int(1, 3)], s = [b.rng.int(1, 3), b.rng.int(1, 3)];
    const d = b.rng.chance(0.3) ? [b.rng.int(1, 2), b.rng.int(1, 2)] : [1, 1];
    const pads = [b.rng.int(0, k[0] - 1), b.rng.int(0, k[1] - 1), b.rng.int(0, k[0] - 1), b.rng.int(0, k[1] - 1)];
    const outPad = [b.rng.int(0, Math.max(s[0], d[0]) - 1), b.rng.int(0, Math.max(s[1], d[1]) - 1)];
    const size = (i) => (dims[2 + i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 + outPad[i] - pads[i] - pads[i + 2];
    if (size(0) <= 0 || size(1) <= 0) return null;
    const inputs = [x, b.floatConstant([c, m / group, k[0], k[1]], -0.5, 0.5)];
    if (b.rng.chance(0.5)) inputs.push(b.floatConstant([m]));
    const attrs = { kernel_shape: k, strides: s, pads };
    if (d[0] !== 1 || d[1] !== 1) attrs.dilations = d;
    if (outPad[0] || outPad[1]) attrs.output_padding = outPad;
    if (group > 1) attrs.group = group;
    return b.node('ConvTranspose', inputs, ['N', m, size(0), size(1)], attrs);
  },
};

const resize = {
  name: 'Resize', since: 11, until: 17,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    const scales = [1, 1, b.rng.pick([0.5, 0.75, 1, 1.5, 2, 3]), b.rng.pick([0.5, 1, 2, 2.5])];
    const out = dims.map((d, i) => (i < 2 ? d : Math.floor(d * scales[i])));
    if (out[2] < 1 || out[3] < 1) return null;
    const mode = b.rng.pick(['nearest', 'linear', 'cubic']);
    // align_corners divides by the resized length less one: onnxruntime takes the rounded
    // length, the ONNX reference scale * in (tests/regressions/spec-resize-*); both agree when
    // that is an integer.
    const integral = Number.isInteger(dims[2] * scales[2]) && Number.isInteger(dims[3] * scales[3]);
    const coords = ['half_pixel', 'asymmetric', 'pytorch_half_pixel', ...(integral ? ['align_corners'] : [])];
    const attrs = { mode, coordinate_transformation_mode: b.rng.pick(coords) };
    if (mode === 'nearest') attrs.nearest_mode = b.rng.pick(['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil']);
    if (mode === 'cubic' && b.rng.chance(0.5)) attrs.exclude_outside = 1;
    const roi = b.opset >= 13 && b.rng.chance(0.5) ? '' : b.constant([0], []);
    return b.node('Resize', [x, roi, b.constant([4], scales)], out, attrs);
  },
};

const cumsum = {
  name: 'CumSum', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length === 0) return null;
    const axis = b.rng.int(0, dims.length - 1);
    const attrs = {};
    if (b.rng.chance(0.4)) attrs.exclusive = 1;
    if (b.rng.chance(0.4)) attrs.reverse = 1;
    return b.node('CumSum', [x, b.constant([], [negative(b, axis, dims.length)], 'int')], dims, attrs);
  },
};

export const SHAPE_OPS = [slice, pad, gather, split, expand, tile, depthSpace('DepthToSpace'), depthSpace('SpaceToDepth'),
  convTranspose, resize, cumsum];
