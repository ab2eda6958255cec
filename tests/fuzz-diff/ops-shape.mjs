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
    const mode = b.rng.pick(['constant', 'constant', 'reflect', 'edge', ...(b.opset >= 19 ? ['wrap'] : [])]);
    if (mode !== 'constant' && dims.includes(0)) return null;
    // Reflect pads stay below the dim; constant ones may be negative (cropping).
    // Wrap pads (opset 19) stay within the dim too.
    const one = (d) => (mode === 'reflect' || mode === 'wrap' ? b.rng.int(0, d - 1) : b.rng.int(mode === 'constant' && d > 1 ? -1 : 0, 2));
    const begins = dims.map((d, i) => (i === 0 ? 0 : one(d))), ends = dims.map((d, i) => (i === 0 ? 0 : one(d)));
    const out = dims.map((d, i) => (i === 0 ? d : d + begins[i] + ends[i]));
    if (out.slice(1).some((d) => d <= 0)) return null;
    const pads = [...begins, ...ends];
    const value = b.rng.pick([0, 1.5, -2]);
    if (b.opset < 11) return b.node('Pad', [x], out, { mode, pads, ...(mode === 'constant' ? { value } : {}) }, ['value']);
    // From opset 18, the pads of some axes only (the axes input, negative now and then).
    if (b.opset >= 18 && b.rng.chance(0.3)) {
      const axes = dims.map((d, i) => i).filter((i) => i > 0 && b.rng.chance(0.6));
      if (!axes.length) axes.push(dims.length - 1);
      const inputs = [x, b.intConstant([...axes.map((a) => begins[a]), ...axes.map((a) => ends[a])]),
        mode === 'constant' && b.rng.chance(0.5) ? b.constant([], [value]) : '',
        b.intConstant(axes.map((a) => (b.rng.chance(0.3) ? a - dims.length : a)))];
      const partial = dims.map((d, i) => (axes.includes(i) ? out[i] : d));
      if (partial.slice(1).some((d) => d <= 0)) return null;
      return b.node('Pad', inputs, partial, { mode });
    }
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
    let sizes = [first, dims[axis] - first];
    const attrs = { axis: negative(b, axis, dims.length) };
    let inputs = [x];
    if (b.opset >= 18 && b.rng.chance(0.4)) {
      // num_outputs: parts of ceil(d / n), the last smaller (n such that it is not empty).
      const counts = [2, 3, 4].filter((n) => (n - 1) * Math.ceil(dims[axis] / n) < dims[axis]);
      const n = b.rng.pick(counts);
      const part = Math.ceil(dims[axis] / n);
      sizes = Array.from({ length: n }, (_, i) => Math.min(part, dims[axis] - i * part));
      attrs.num_outputs = n;
    } else if (b.opset >= 13) {
      inputs = [x, b.intConstant(sizes)];
    } else {
      attrs.split = sizes;
    }
    const outs = sizes.map((s) => dims.map((d, i) => (i === axis ? s : d)));
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
    name, since: 7, weight: 4,
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
    // output_padding below the stride (the spec allows below the dilation too, onnxruntime not:
    // "output_padding (1) may be too large for stride (1)").
    const outPad = [b.rng.int(0, s[0] - 1), b.rng.int(0, s[1] - 1)];
    const full = (i) => (dims[2 + i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 + outPad[i];
    let size = (i) => full(i) - pads[i] - pads[i + 2];
    const attrs = { kernel_shape: k, strides: s };
    // Padding as pads, auto_pad (SAME: the input's size times the stride; VALID: none) or an
    // output_shape the spec derives the padding from.
    const way = b.rng.pick(['pads', 'pads', 'pads', 'auto_pad', 'output_shape']);
    if (way === 'auto_pad') {
      const mode = b.rng.pick(['SAME_UPPER', 'SAME_LOWER', 'VALID', 'NOTSET']);
      if (mode.startsWith('SAME') && [0, 1].some((i) => full(i) < dims[2 + i] * s[i])) return null;
      attrs.auto_pad = mode;
      if (mode === 'NOTSET') attrs.pads = pads;
      else size = (i) => (mode === 'VALID' ? full(i) : dims[2 + i] * s[i]);
    } else if (way === 'output_shape') {
      outPad.fill(0);  // onnxruntime checks output_padding against output_shape: left out
      const shape = [0, 1].map((i) => full(i) - b.rng.int(0, Math.min(full(i) - 1, (k[i] - 1) * d[i])));
      attrs.output_shape = shape;
      size = (i) => shape[i];
    } else {
      attrs.pads = pads;
    }
    if (size(0) <= 0 || size(1) <= 0) return null;
    const inputs = [x, b.floatConstant([c, m / group, k[0], k[1]], -0.5, 0.5)];
    if (b.rng.chance(0.5)) inputs.push(b.floatConstant([m]));
    if (d[0] !== 1 || d[1] !== 1) attrs.dilations = d;
    if (outPad[0] || outPad[1]) attrs.output_padding = outPad;
    if (group > 1) attrs.group = group;
    return b.node('ConvTranspose', inputs, ['N', m, size(0), size(1)], attrs);
  },
};

const resize = {
  name: 'Resize', since: 11, weight: 2,
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
    // half_pixel_symmetric (opset 19) with linear and cubic only: with nearest, where a source
    // coordinate is exactly an integer in real arithmetic (9 -> 13 rows: 2x / 3), the ONNX
    // reference implementation's float64 arithmetic, as webnx's, leaves a residue of 1e-17 that
    // ceil sees, and onnxruntime 1.30 does not (fuzz-diff seed 24000254): webnx follows the
    // reference.
    if (b.opset >= 19 && mode !== 'nearest' && b.rng.chance(0.25)) attrs.coordinate_transformation_mode = 'half_pixel_symmetric';
    if (mode === 'cubic' && b.rng.chance(0.5)) attrs.exclude_outside = b.rng.chance(0.8) ? 1 : 0;
    if (mode === 'cubic' && b.rng.chance(0.4)) attrs.cubic_coeff_a = b.rng.pick([-0.5, -0.75]);
    // antialias (opset 18) widens a linear or cubic filter where it shrinks.
    if (b.opset >= 18 && mode !== 'nearest' && b.rng.chance(0.3)) attrs.antialias = b.rng.int(0, 1);
    let roi = b.opset >= 13 && b.rng.chance(0.5) ? '' : b.constant([0], []);
    // tf_crop_and_resize: a region of interest, outside of which the output is extrapolation_value.
    // onnxruntime 1.30 leaves an axis of scale 1 as it is, roi and all (the spec crops it too:
    // tests/regressions/spec-resize-tf-crop-and-resize-scale-1),
    // and divides by the rounded output length less one where the ONNX reference takes
    // scale * in - 1 (as for align_corners): both scales differ from 1 here, and scale * in is an
    // integer.
    if (integral && scales[2] !== 1 && scales[3] !== 1 && b.rng.chance(0.2)) {
      attrs.coordinate_transformation_mode = 'tf_crop_and_resize';
      roi = b.constant([8], [0, 0, b.rng.pick([-0.25, 0, 0.25]), b.rng.pick([0, 0.5]), 1, 1, b.rng.pick([0.75, 1, 1.25]), 1]);
      if (b.rng.chance(0.6)) attrs.extrapolation_value = b.rng.pick([0, -1, 2.5]);
    }
    // From opset 18, axes: the scales (or sizes) of H and W alone.
    const spatialOnly = b.opset >= 18 && attrs.coordinate_transformation_mode !== 'tf_crop_and_resize' && b.rng.chance(0.4);
    if (spatialOnly) {
      attrs.axes = b.rng.chance(0.5) ? [2, 3] : [-2, -1];
      // keep_aspect_ratio_policy: sizes for H and W, one scale for both that fits them. Axes
      // written positive: onnxruntime 1.30 resizes nothing under not_larger or not_smaller with
      // negative axes (tests/regressions/spec-resize-keep-aspect-ratio-negative-axes).
      if (b.rng.chance(0.5)) {
        attrs.axes = [2, 3];
        const sizes = [out[2], b.rng.int(1, 2 * dims[3])];
        const policy = b.rng.pick(['stretch', 'not_larger', 'not_smaller']);
        attrs.keep_aspect_ratio_policy = policy;
        const ratio = [sizes[0] / dims[2], sizes[1] / dims[3]];
        const scale = policy === 'not_larger' ? Math.min(...ratio) : Math.max(...ratio);
        const resized = policy === 'stretch' ? sizes : [dims[2], dims[3]].map((d) => Math.round(d * scale));
        if (resized.some((d) => d < 1) || (policy !== 'stretch' && (attrs.coordinate_transformation_mode === 'align_corners'))) return null;
        // Where scale * in is not an integer, the ONNX reference (and webnx) maps coordinates by
        // the policy's one scale, onnxruntime 1.30 by out / in per axis (fuzz-diff seed 24456531):
        // the policies only where both agree.
        if (policy !== 'stretch' && [dims[2], dims[3]].some((d, i) => resized[i] !== d * scale)) return null;
        return b.node('Resize', [x, roi, '', b.intConstant(sizes)], [dims[0], dims[1], ...resized], attrs, ['cubic_coeff_a', 'extrapolation_value']);
      }
      return b.node('Resize', [x, roi, b.constant([2], scales.slice(2))], out, attrs, ['cubic_coeff_a', 'extrapolation_value']);
    }
    return b.node('Resize', [x, roi, b.constant([4], scales)], out, attrs, ['cubic_coeff_a', 'extrapolation_value']);
  },
};

const cumsum = {
  name: 'CumSum', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length === 0) return null;
    const axis = b.rng.int(0, dims.length - 1);
    const attrs = {};
    if (b.rng.chance(0.5)) attrs.exclusive = b.rng.chance(0.8) ? 1 : 0;
    if (b.rng.chance(0.5)) attrs.reverse = b.rng.chance(0.8) ? 1 : 0;
    return b.node('CumSum', [x, b.constant([], [negative(b, axis, dims.length)], 'int')], dims, attrs);
  },
};

export const SHAPE_OPS = [slice, pad, gather, split, expand, tile, depthSpace('DepthToSpace'), depthSpace('SpaceToDepth'),
  convTranspose, resize, cumsum];
