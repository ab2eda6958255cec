// Ops whose outputs are selected positions or sampled at computed ones: NonZero (of a graph
// input through Relu, exact zeros; its indices summed per dimension), NonMaxSuppression (of
// constant boxes and scores; the selected triples summed), DeformConv (offsets and mask made by
// convolutions of the input, as deformable networks make them) and STFT (frames of power-of-two
// length: onnxruntime's float32 transform strays at other lengths, see DFT).
import { allFixed, hasZero, is4d, isInput, typed } from './ops-common.mjs';

const FLOAT = 1;
const INT64 = 7;

const toFloat = (b, v, dims) => b.node('Cast', [v], dims, { to: FLOAT });
// ReduceSum over one axis: the axes an input from opset 13, an attribute before.
const sumOver = (b, v, axis, out) => (b.opset >= 13 ? b.node('ReduceSum', [v, b.intConstant([axis])], out)
  : b.node('ReduceSum', [v], out, { axes: [axis] }));

const nonZero = {
  name: 'NonZero', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!isInput(b, x) || hasZero(dims)) return null;
    const positions = typed(b, b.node('NonZero', [b.node('Relu', [x], dims)], [dims.length, 'nonzero']), INT64);
    const sums = sumOver(b, toFloat(b, positions, [dims.length, 'nonzero']), 1, [dims.length, 1]);
    return sums;
  },
};

const nonMaxSuppression = {
  name: 'NonMaxSuppression', since: 10,
  build(b) {
    const batches = b.rng.int(1, 2), classes = b.rng.int(1, 3), boxes = b.rng.int(1, 12);
    const corners = Array.from({ length: batches * boxes }, () => {
      const [y, x] = [b.rng.int(0, 40), b.rng.int(0, 40)].map((v) => v / 4);
      const [h, w] = [b.rng.int(1, 40), b.rng.int(1, 40)].map((v) => v / 4);
      return b.rng.chance(0.2) ? [y + h, x + w, y, x] : [y, x, y + h, x + w];  // flipped corners too
    }).flat();
    const centered = b.rng.chance(0.3);
    const inputs = [
      b.constant([batches, boxes, 4], corners),
      b.constant([batches, classes, boxes], Array.from({ length: batches * classes * boxes }, (_, i) => (i * 37 % 101 + 1) / 128)),
      b.constant([], [b.rng.int(0, boxes)], 'int'),
      b.constant([], [b.rng.pick([0, 0.3, 0.5, 0.7])]),
      b.constant([], [b.rng.pick([0, 0.2, 0.5])]),
    ];
    const selected = typed(b, b.node('NonMaxSuppression', inputs.slice(0, b.rng.int(3, 5)), ['selected', 3],
      centered ? { center_point_box: 1 } : b.rng.chance(0.3) ? { center_point_box: 0 } : {}), INT64);
    return sumOver(b, toFloat(b, selected, ['selected', 3]), 0, [1, 3]);
  },
};

// Output size of one axis of a window.
const windowOut = (size, kernel, stride, pad, dilation) => Math.floor((size + 2 * pad - dilation * (kernel - 1) - 1) / stride) + 1;

const deformConv = {
  name: 'DeformConv', since: 19,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims)) return null;
    const [n, c, h, w] = dims;
    const kernel = [b.rng.int(1, 3), b.rng.int(1, 3)];
    const stride = b.rng.int(1, 2), pad = b.rng.int(0, 1), dilation = b.rng.int(1, 2);
    const out = [windowOut(h, kernel[0], stride, pad, dilation), windowOut(w, kernel[1], stride, pad, dilation)];
    if (out.some((d) => d < 1)) return null;
    const group = b.rng.pick([1, c].filter((g) => c % g === 0)), offsetGroup = b.rng.pick([1, c]);
    const taps = kernel[0] * kernel[1], outChannels = group * b.rng.int(1, 3);
    const geometry = { kernel_shape: kernel, strides: [stride, stride], pads: [pad, pad, pad, pad], dilations: [dilation, dilation] };
    const conv = (channels) => b.node('Conv', [x, b.floatConstant([channels, c, ...kernel], -0.5, 0.5)], [n, channels, ...out], geometry);
    const offsets = b.node('Mul', [b.node('Tanh', [conv(2 * offsetGroup * taps)], [n, 2 * offsetGroup * taps, ...out]), b.constant([], [1.5])],
      [n, 2 * offsetGroup * taps, ...out]);
    const inputs = [x, b.floatConstant([outChannels, c / group, ...kernel], -0.6, 0.6), offsets];
    if (b.rng.chance(0.5)) inputs.push(b.floatConstant([outChannels], -0.5, 0.5));
    if (b.rng.chance(0.5)) {
      if (inputs.length === 3) inputs.push('');
      inputs.push(b.node('Sigmoid', [conv(offsetGroup * taps)], [n, offsetGroup * taps, ...out]));
    }
    return b.node('DeformConv', inputs, [n, outChannels, ...out], { ...geometry, group, offset_group: offsetGroup });
  },
};

const stft = {
  name: 'STFT', since: 17,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length !== 2 || !allFixed(dims.slice(1)) || dims[1] < 2) return null;
    const length = dims[1];
    const frame = b.rng.pick([2, 4, 8, 16].filter((f) => f <= length)), step = b.rng.int(1, 3);
    const signal = b.node('Reshape', [x, b.intConstant([0, length, 1])], [dims[0], length, 1]);
    const onesided = b.rng.chance(0.7);
    const inputs = [signal, b.constant([], [step], 'int')];
    const windowed = b.rng.chance(0.5);
    inputs.push(windowed ? b.floatConstant([frame], 0, 1) : '');
    if (!windowed || b.rng.chance(0.5)) inputs.push(b.constant([], [frame], 'int'));
    const frames = Math.floor((length - frame) / step) + 1, bins = onesided ? frame / 2 + 1 : frame;
    return b.node('STFT', inputs, [dims[0], frames, bins, 2], onesided ? (b.rng.chance(0.3) ? { onesided: 1 } : {}) : { onesided: 0 });
  },
};

// Unique of a graph input floored to halves (so values repeat), flattened or (axis) of the
// slices along a fixed axis, sorted or in order of first occurrence. Its outputs have
// data-dependent lengths; what goes on has x's shape: the unique values, first indices or counts
// gathered back by the inverse indices.
const unique = {
  name: 'Unique', since: 11, weight: 2,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!isInput(b, x) || hasZero(dims)) return null;
    const halves = b.node('Floor', [b.node('Mul', [x, b.constant([], [2])], dims)], dims);
    const axes = dims.map((d, i) => i).filter((i) => i > 0 && typeof dims[i] === 'number');
    const alongAxis = axes.length && b.rng.chance(0.4);
    if (!alongAxis && !allFixed(dims.slice(1))) return null;
    const attrs = {};
    if (b.rng.chance(0.6)) attrs.sorted = b.rng.int(0, 1);
    const n = dims.reduce((a, d) => (typeof d === 'number' ? a * d : a), 1);
    const axis = alongAxis ? b.rng.pick(axes) : null;
    if (alongAxis) attrs.axis = b.rng.chance(0.3) ? axis - dims.length : axis;
    const uniqueDims = alongAxis ? dims.map((d, i) => (i === axis ? 'unique' : d)) : ['unique'];
    const inverseDims = alongAxis ? [dims[axis]] : ['N*' + n];
    const [y, first, inverse, counts] = b.nodeOutputs('Unique', [halves], [uniqueDims, ['unique'], inverseDims, ['unique']], attrs);
    for (const v of [first, inverse, counts]) typed(b, v, INT64);
    const what = b.rng.pick(['values', 'first', 'counts']);
    if (alongAxis) {
      if (what === 'values') return b.node('Gather', [y, inverse], dims, { axis });
      return toFloat(b, typed(b, b.node('Gather', [what === 'first' ? first : counts, inverse], [dims[axis]]), INT64), [dims[axis]]);
    }
    const flat = what === 'values' ? b.node('Gather', [y, inverse], inverseDims)
      : toFloat(b, typed(b, b.node('Gather', [what === 'first' ? first : counts, inverse], inverseDims), INT64), inverseDims);
    return b.node('Reshape', [flat, b.intConstant([-1, ...dims.slice(1)])], dims);
  },
};

export const SELECT_OPS = [nonZero, nonMaxSuppression, deformConv, stft, unique];
