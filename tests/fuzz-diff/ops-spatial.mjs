// Ops the other builders do not reach, that move or gather values in space or score them:
// GridSample (a value sampled at a grid made of its own tanh), AffineGrid (constant theta),
// Col2Im (a 3-D value's columns folded into images), MaxUnpool (of MaxPool's values and
// indices), ReverseSequence (over two fixed axes moved to the front), and the two losses
// (labels: the ArgMin of the scores over classes).
import { allFixed, hasZero, is4d, isInput, typed } from './ops-common.mjs';

const INT64 = 7;

const divisors = (n) => Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);

const gridSample = {
  name: 'GridSample', since: 16,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!is4d(dims) || (dims[2] * dims[3]) % 2 !== 0) return null;
    const [n, c, h, w] = dims;
    const tanh = b.node('Tanh', [x], dims);
    const grid = b.node('Reshape', [tanh, b.intConstant([0, c, -1, 2])], [n, c, (h * w) / 2, 2]);
    const linear = b.opset >= 20 ? 'linear' : 'bilinear', cubic = b.opset >= 20 ? 'cubic' : 'bicubic';
    const attrs = { mode: b.rng.pick([linear, linear, cubic]), padding_mode: b.rng.pick(['zeros', 'border', 'reflection']) };
    if (b.rng.chance(0.6)) attrs.align_corners = b.rng.chance(0.8) ? 1 : 0;
    return b.node('GridSample', [x, grid], [n, c, c, (h * w) / 2], attrs);
  },
};

const affineGrid = {
  name: 'AffineGrid', since: 20,
  build(b) {
    const n = b.rng.int(1, 2), c = b.rng.int(1, 3);
    const spatial = b.rng.chance(0.7) ? [b.rng.int(1, 6), b.rng.int(1, 6)] : [b.rng.int(1, 4), b.rng.int(1, 4), b.rng.int(1, 4)];
    const rank = spatial.length;
    const theta = b.floatConstant([n, rank, rank + 1], -1.5, 1.5);
    // onnxruntime puts an aligned axis of size 1 at +1, the spec at -1 (tests/regressions/
    // spec-affinegrid-align-corners-size-1).
    const attrs = b.rng.chance(0.5) && spatial.every((d) => d > 1) ? { align_corners: 1 } : b.rng.chance(0.2) ? { align_corners: 0 } : {};
    return b.node('AffineGrid', [theta, b.intConstant([n, c, ...spatial])], [n, ...spatial, rank], attrs);
  },
};

// [N, C * bh * bw, Lh * Lw] columns into [N, C, H, W] images.
const col2Im = {
  name: 'Col2Im', since: 18, weight: 5,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length !== 3 || !allFixed(dims.slice(1)) || hasZero(dims)) return null;
    const [n, rows, columns] = dims;
    const bh = b.rng.pick(divisors(rows)), bw = b.rng.pick(divisors(rows / bh));
    const channels = rows / (bh * bw);
    const lh = b.rng.pick(divisors(columns)), lw = columns / lh;
    const stride = [b.rng.int(1, 2), b.rng.int(1, 2)], dilation = [b.rng.int(1, 2), b.rng.int(1, 2)];
    const pads = [b.rng.int(0, 1), b.rng.int(0, 1), b.rng.int(0, 1), b.rng.int(0, 1)];
    const image = [[lh, bh], [lw, bw]].map(([l, k], i) =>
      (l - 1) * stride[i] + dilation[i] * (k - 1) + 1 - pads[i] - pads[i + 2]);
    if (image.some((d) => d < 1)) return null;
    return b.node('Col2Im', [x, b.intConstant(image), b.intConstant([bh, bw])], [n, channels, ...image],
      { strides: stride, dilations: dilation, pads });
  },
};

// MaxPool's values and indices of a graph input, unpooled, over non-overlapping windows: a
// computed value's near-ties (equal but for the last bit, from summation order) would be indexed
// apart by the two runtimes (fuzz-diff seed 22238840).
const maxUnpool = {
  name: 'MaxUnpool', since: 11, weight: 3,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (!isInput(b, x) || !is4d(dims)) return null;
    const k = [b.rng.int(1, 3), b.rng.int(1, 3)];
    if (dims[2] < k[0] || dims[3] < k[1]) return null;
    const window = { kernel_shape: k, strides: k };
    // Where the kernel does not divide H or W, the pool drops the last rows or columns and the
    // unpooled size, (out - 1) * stride + kernel - pads, falls short of the pool's input, which
    // the indices address: then pads (the same for the pool and the unpool) make the padded axes
    // multiples of the kernel. (An output_shape of x's shape instead is read two ways: the ONNX
    // node test test_maxunpool_export_with_output_shape places indices of the inferred shape at
    // their coordinates, which webnx follows; onnxruntime 1.30, which fails that test, indexes
    // the output directly. So output_shape is given only where it is the inferred shape.)
    let padded = [dims[2], dims[3]];
    const divides = dims[2] % k[0] === 0 && dims[3] % k[1] === 0;
    const padding = !divides;
    if (padding) {
      const pads = [0, 0, 0, 0];
      for (const i of [0, 1]) {
        const total = (k[i] - (dims[2 + i] % k[i])) % k[i];
        pads[i] = b.rng.int(0, total);
        pads[i + 2] = total - pads[i];
      }
      window.pads = pads;
      padded = [dims[2] + pads[0] + pads[2], dims[3] + pads[1] + pads[3]];
    }
    const out = [dims[0], dims[1], Math.floor(padded[0] / k[0]), Math.floor(padded[1] / k[1])];
    const [values, indices] = b.nodeOutputs('MaxPool', [x], [out, out], window);
    typed(b, indices, INT64);
    if (divides && b.rng.chance(0.4)) {
      const shape = typed(b, b.node('Shape', [x], [4]), INT64);
      return b.node('MaxUnpool', [values, indices, shape], dims, window);
    }
    const unpooled = [0, 1].map((i) => out[2 + i] * k[i] - (window.pads ? window.pads[i] + window.pads[i + 2] : 0));
    return b.node('MaxUnpool', [values, indices], [out[0], out[1], ...unpooled], window);
  },
};

// Two fixed axes of x moved to the front, one reversed per index of the other.
const reverseSequence = {
  name: 'ReverseSequence', since: 10,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 3 || !allFixed(dims.slice(1, 3)) || hasZero(dims)) return null;
    const perm = [1, 2, 0, ...dims.slice(3).map((_, i) => i + 3)];
    const moved = b.node('Transpose', [x], perm.map((p) => dims[p]), { perm });
    const timeAxis = b.rng.int(0, 1), batch = dims[1 + (1 - timeAxis)], time = dims[1 + timeAxis];
    const lens = b.constant([batch], Array.from({ length: batch }, () => b.rng.int(1, time)), 'int');
    return b.node('ReverseSequence', [moved, lens], perm.map((p) => dims[p]),
      { time_axis: timeAxis, batch_axis: 1 - timeAxis });
  },
};

// Scores [N, C, ...] (a graph input) against labels ArgMin over C; reduction none, sum or mean
// (weights and ignore_index now and then; never mean with ignore_index, which can leave nothing
// to average).
function loss(name) {
  return {
    name, since: 12,
    build(b, x) {
      const dims = b.shapes.get(x);
      // Graph inputs only: labels from computed scores flip where two classes tie to the last bit.
      if (!isInput(b, x) || dims.length < 2 || !allFixed(dims.slice(1)) || hasZero(dims)) return null;
      const classes = dims[1];
      const labels = typed(b, b.node('ArgMin', [x], [dims[0], ...dims.slice(2)], { axis: 1, keepdims: 0 }), INT64);
      const reduction = b.rng.pick(['none', 'sum', 'mean']);
      const attrs = { reduction };
      if (reduction !== 'mean' && b.rng.chance(0.3)) attrs.ignore_index = b.rng.int(0, classes - 1);
      const inputs = [x, labels];
      if (b.rng.chance(0.4)) inputs.push(b.floatConstant([classes], 0.25, 2));
      const out = reduction === 'none' ? [dims[0], ...dims.slice(2)] : [];
      return b.node(name, inputs, out, attrs);
    },
  };
}

export const SPATIAL_OPS = [gridSample, affineGrid, col2Im, maxUnpool, reverseSequence,
  loss('SoftmaxCrossEntropyLoss'), loss('NegativeLogLikelihoodLoss')];
