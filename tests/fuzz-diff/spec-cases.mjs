// Writes the regression cases whose expected values come from the ONNX spec rather than from
// onnxruntime, where onnxruntime departs from it (found by the differential fuzzer):
//   node tests/fuzz-diff/spec-cases.mjs
// onnxruntime 1.30 pads SAME_UPPER/SAME_LOWER pooling windows as if they were not dilated;
// the spec pads them for the dilated extent (tests/fuzz-diff/spec-reference.mjs).
import ort from 'onnxruntime-node';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { Rng } from './generator.mjs';
import { float64InstanceNorm, float64Mvn, specPool2d, specResizeLinearAlignCorners } from './spec-reference.mjs';
import { writeRegression } from './regressions.mjs';

const DILATED_SAME = 'onnxruntime 1.30 pads SAME pooling windows as if they were not dilated; the spec pads them ' +
  'for the dilated extent. Expected values from tests/fuzz-diff/spec-reference.mjs.';
const pool = (op, attrs) => (data, dims) => specPool2d(op, data, dims, attrs);
const empty = (dims) => ({ type: 'float32', dims, data: new Float32Array(0) });

const CASES = [
  // From fuzz-diff seed 1226 (minimized): the window rows start 2 rows up per the spec, 1 per onnxruntime.
  { name: 'spec-maxpool-same-lower-dilated', op: 'MaxPool', opset: 20, dims: ['N', 6, 8, 4], note: DILATED_SAME,
    attrs: { kernel_shape: [3, 2], strides: [3, 2], dilations: [2, 1], auto_pad: 'SAME_LOWER' } },
  { name: 'spec-maxpool-same-upper-dilated', op: 'MaxPool', opset: 12, dims: ['N', 3, 7, 6], note: DILATED_SAME,
    attrs: { kernel_shape: [2, 3], strides: [2, 1], dilations: [3, 2], auto_pad: 'SAME_UPPER' } },
  // From fuzz-diff seed 1023: AveragePool has dilations from opset 19.
  { name: 'spec-averagepool-same-lower-dilated', op: 'AveragePool', opset: 19, dims: ['N', 2, 5, 7], note: DILATED_SAME,
    attrs: { kernel_shape: [2, 2], strides: [2, 3], dilations: [1, 2], auto_pad: 'SAME_LOWER', count_include_pad: 0 } },
  // From fuzz-diff seed 1852: 5 rows resized by 1.5 to 7.
  { name: 'spec-resize-linear-align-corners-fractional', op: 'Resize', opset: 13, dims: ['N', 2, 5, 4],
    attrs: { mode: 'linear', coordinate_transformation_mode: 'align_corners' },
    constants: [{ name: 'roi', dims: [0], dataType: 1, floatData: [] }, { name: 'scales', dims: [4], dataType: 1, floatData: [1, 1, 1.5, 2] }],
    note: 'Resize linear align_corners with scale * in not an integer (5 * 1.5): onnxruntime 1.30 divides by the rounded ' +
      'output length - 1, the ONNX reference implementation (which makes the node tests) by scale * in - 1.',
    expect: (data, dims) => specResizeLinearAlignCorners(data, dims, [1, 1, 1.5, 2]) },
  // From fuzz-diff seed 571.
  { name: 'spec-argmax-empty-keepdims-0', op: 'ArgMax', opset: 13, dims: ['N', 0, 3], attrs: { axis: 0, keepdims: 0 }, outType: 7,
    note: 'ArgMax over axis 0 of an [N, 0, 3] tensor with keepdims 0 is [0, 3]. onnxruntime 1.30 agrees for a graph input ' +
      'but keeps the axis ([1, 0, 3]) when a Slice made the tensor empty (fuzz-diff seed 571).',
    expect: () => ({ type: 'int64', dims: [0, 3], data: [] }) },
  // From fuzz-diff seed 477.
  { name: 'spec-reducemax-of-an-empty-tensor', op: 'ReduceMax', opset: 13, dims: ['N', 0, 8], attrs: { axes: [-1], keepdims: 0 },
    note: 'ReduceMax over the last axis of an [N, 0, 8] tensor is [N, 0]; onnxruntime 1.30 returns [N, 0, 8].',
    expect: (data, dims) => empty([dims[0], 0]) },
  // From fuzz-diff seed 1194.
  { name: 'spec-reducemax-over-an-empty-axis', op: 'ReduceMax', opset: 18, dims: ['N', 0, 4], attrs: { keepdims: 1 },
    constants: [{ name: 'axes', dims: [1], dataType: 7, int64Data: ['1'] }],
    note: 'ReduceMax over an empty axis: the spec (opset 18) gives minus infinity, in shape [N, 1, 4]. onnxruntime 1.30 ' +
      'agrees for a graph input but returns an empty tensor when Slice and Concat made the axis empty (fuzz-diff seed 1194).',
    expect: (data, dims) => ({ type: 'float32', dims: [dims[0], 1, 4], data: new Float32Array(dims[0] * 4).fill(-Infinity) }) },
  // From fuzz-diff seed 10223: a Slice left A with no columns.
  { name: 'spec-gemm-empty-inner-dim', op: 'Gemm', opset: 13, dims: ['N', 0], attrs: { transB: 1 },
    floatAttrs: { alpha: 2, beta: 0.5 },
    constants: [{ name: 'B', dims: [5, 0], dataType: 1, floatData: [] }, { name: 'C', dims: [1], dataType: 1, floatData: [-0.671875] }],
    note: 'Gemm with an empty inner dimension: alpha * A * B is zeros, so Y is beta * C = -0.3359375 everywhere; ' +
      'onnxruntime 1.30 returns C without beta.',
    expect: (data, dims) => ({ type: 'float32', dims: [dims[0], 5], data: new Float32Array(dims[0] * 5).fill(-0.3359375) }) },
  // From fuzz-diff seed 300215: planes of one repeated value.
  { name: 'spec-mvn-constant-planes', op: 'MeanVarianceNormalization', opset: 13, dims: ['N', 2, 2, 3], attrs: { axes: [2, 3] },
    data: (dims) => Float32Array.from({ length: dims.reduce((a, b) => a * b) }, (_, i) => 0.1 * (1 + Math.floor(i / 6))),
    note: 'MeanVarianceNormalization of constant planes: (x - mean) / (sqrt(0) + 1e-9) = 0 (float64, variance about the ' +
      "mean); onnxruntime 1.30 follows the spec's E[x^2] - E[x]^2, which goes negative in float32: NaN.",
    expect: (data, dims) => ({ type: 'float32', dims, data: Float32Array.from(float64Mvn([Array.from(data)], dims, { axes: [2, 3] })) }) },
  // From fuzz-diff seed 26248739: planes of one value with a few values one unit in the last
  // place above it (a linear Resize's output), where E[x^2] - E[x]^2 cancels even in double.
  { name: 'spec-mvn-nearly-constant-planes', op: 'MeanVarianceNormalization', opset: 13, dims: ['N', 2, 3, 4],
    attrs: { axes: [2, 3] },
    data: (dims) => {
      const values = new Float32Array(dims.reduce((a, b) => a * b)).fill(0.8958064);
      const bits = new Uint32Array(values.buffer);
      for (let i = 0; i < bits.length; i += 5) bits[i] += 1;
      return values;
    },
    note: 'MeanVarianceNormalization of planes of one value and a few one ulp above it: float64 statistics about the ' +
      'mean give the deviations over a standard deviation of about 3e-8; E[x^2] - E[x]^2 loses that variance to ' +
      'cancellation (onnxruntime 1.30 in float32, webnx before in double).',
    expect: (data, dims) => ({ type: 'float32', dims, data: Float32Array.from(float64Mvn([Array.from(data)], dims, { axes: [2, 3] })) }) },
  // From fuzz-diff seed 21002055 (minimized): one row of 3 points, corners aligned.
  { name: 'spec-affinegrid-align-corners-size-1', op: 'AffineGrid', opset: 20, dims: [2, 2, 3], attrs: { align_corners: 1 },
    constants: [{ name: 'size', dims: [4], dataType: 7, int64Data: ['2', '1', '1', '3'] }],
    note: 'AffineGrid with align_corners 1 over an axis of size 1: the ONNX reference implementation (arange from -1 by ' +
      '2 / 0) puts its one point at -1; onnxruntime 1.30 at +1.',
    expect: (theta) => ({ type: 'float32', dims: [2, 1, 3, 2], data: specAffineGrid2d(theta, [2, 1, 1, 3]) }) },
  // From the fuzz-diff run of seeds 24000000..: sizes for H and W, one scale that fits them.
  { name: 'spec-resize-keep-aspect-ratio-negative-axes', op: 'Resize', opset: 19, dims: ['N', 2, 6, 9],
    attrs: { mode: 'linear', axes: [-2, -1], keep_aspect_ratio_policy: 'not_larger' },
    constants: [{ name: '' }, { name: '' }, { name: 'sizes', dims: [2], dataType: 7, int64Data: ['4', '14'] }],
    note: 'Resize by sizes [4, 14] of axes [-2, -1] under keep_aspect_ratio_policy not_larger: H and W both scaled by ' +
      'min(4/6, 14/9), to [4, 6]. onnxruntime 1.30 resizes nothing with the axes written negative (with [2, 3] it gives ' +
      'the expected values, which are its answer for those).',
    expect: async (data, dims) => {
      const positive = onnxJsonToOnnx(doc({ ...CASES_BY_NAME['spec-resize-keep-aspect-ratio-negative-axes'], attrs: { mode: 'linear', axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' } }));
      const y = (await (await ort.InferenceSession.create(positive, { logSeverityLevel: 4 })).run({ x: new ort.Tensor('float32', data, dims) })).y;
      return { type: 'float32', dims: [...y.dims], data: Float32Array.from(y.data) };
    } },
  // From the fuzz-diff run of seeds 23000000..: the rows of a 5-row input from 0.25 to 1.25 of its height, scale 1.
  { name: 'spec-resize-tf-crop-and-resize-scale-1', op: 'Resize', opset: 13, dims: ['N', 1, 5, 2],
    attrs: { mode: 'nearest', coordinate_transformation_mode: 'tf_crop_and_resize', nearest_mode: 'floor' },
    floatAttrs: { extrapolation_value: -9 },
    constants: [{ name: 'roi', dims: [8], dataType: 1, floatData: [0, 0, 0.25, 0, 1, 1, 1.25, 1] },
      { name: 'scales', dims: [4], dataType: 1, floatData: [1, 1, 1, 1] }],
    note: 'Resize tf_crop_and_resize with every scale 1 and a region of interest from 0.25 to 1.25 of H: row i is read ' +
      'at 0.25 * 4 + i = 1 + i (floor), the last one outside the input: the extrapolation value. onnxruntime 1.30 ' +
      'returns the input as it is, leaving axes of scale 1 uncropped.',
    expect: (data, [n, c, h, w]) => {
      const y = new Float32Array(n * c * h * w);
      for (let p = 0; p < n * c; p++) {
        for (let i = 0; i < h; i++) {
          const from = 0.25 * (h - 1) + i * (h - 1) / (h - 1);
          for (let j = 0; j < w; j++) y[(p * h + i) * w + j] = from > h - 1 ? -9 : data[(p * h + Math.floor(from)) * w + j];
        }
      }
      return { type: 'float32', dims: [n, c, h, w], data: y };
    } },
  // From fuzz-diff seed 24456531: one scale for H and W, 1.4 (max(7/5, 3/12)), W resized to round(12 * 1.4) = 17.
  { name: 'spec-resize-keep-aspect-ratio-fractional-scale', op: 'Resize', opset: 18, dims: ['N', 1, 5, 12],
    attrs: { mode: 'nearest', nearest_mode: 'ceil', axes: [2, 3], keep_aspect_ratio_policy: 'not_smaller' },
    constants: [{ name: '' }, { name: '' }, { name: 'sizes', dims: [2], dataType: 7, int64Data: ['7', '3'] }],
    note: 'Resize by sizes [7, 3] under keep_aspect_ratio_policy not_smaller: one scale, 1.4, for H and W, W resized to ' +
      '17. The ONNX reference implementation maps output coordinates back by that scale; onnxruntime 1.30 by 17 / 12 ' +
      'for W, which moves some nearest (ceil) pixels by one. Expected values as the reference computes them.',
    expect: (data, [n, c, h, w]) => {
      const scale = 1.4, out = [7, 17];
      const from = (x, size) => Math.min(size - 1, Math.max(0, Math.ceil((x + 0.5) / scale - 0.5)));
      const y = new Float32Array(n * c * out[0] * out[1]);
      for (let p = 0; p < n * c; p++) {
        for (let i = 0; i < out[0]; i++) {
          for (let j = 0; j < out[1]; j++) y[(p * out[0] + i) * out[1] + j] = data[(p * h + from(i, h)) * w + from(j, w)];
        }
      }
      return { type: 'float32', dims: [n, c, ...out], data: y };
    } },
  // From fuzz-diff seeds 23803654 and 24443188 (a GRU and an LSTM where clipped products met alpha).
  { name: 'spec-rnn-thresholdedrelu-at-alpha', op: 'RNN', opset: 14, dims: [1, 'N', 1], attrs: { hidden_size: 1 },
    floatAttrs: { clip: 0.5 },
    rawAttrs: [{ name: 'activations', type: 'STRINGS', strings: [Buffer.from('ThresholdedRelu').toString('base64')] },
      { name: 'activation_alpha', type: 'FLOATS', floats: [0.5] }],
    constants: [{ name: 'W', dims: [1, 1, 1], dataType: 1, floatData: [1] }, { name: 'R', dims: [1, 1, 1], dataType: 1, floatData: [0] }],
    data: (dims) => Float32Array.from({ length: dims[1] }, (_, i) => [0.75, -1, 0.5, 0.25, 2][i % 5]),
    note: 'RNN with f = ThresholdedRelu (alpha 0.5) and clip 0.5: H = f(clip(x)). The RNN, GRU and LSTM operators define ' +
      'ThresholdedRelu(x) as x if x >= alpha, so every x >= 0.5 (clipped to 0.5) gives 0.5; onnxruntime 1.30 takes the ' +
      'ThresholdedRelu operator\'s x > alpha and gives 0.',
    expect: (data, dims) => ({ type: 'float32', dims: [1, 1, dims[1], 1],
      data: Float32Array.from(data, (x) => (Math.min(0.5, Math.max(-0.5, x)) >= 0.5 ? 0.5 : 0)) }) },
].map((c) => ({ expect: pool(c.op, c.attrs), ...c }));
const CASES_BY_NAME = Object.fromEntries(CASES.map((c) => [c.name, c]));

// AffineGrid in 2-D with align_corners 1, as the ONNX reference builds the base grid: an axis of
// size n is -1 + 2 i / (n - 1), and -1 alone when n is 1.
function specAffineGrid2d(theta, [n, , h, w]) {
  const at = (size, i) => (size > 1 ? -1 + (2 * i) / (size - 1) : -1);
  const out = new Float32Array(n * h * w * 2);
  for (let b = 0; b < n; b++) {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        for (let j = 0; j < 2; j++) {
          const t = (k) => theta[b * 6 + j * 3 + k];
          out[((b * h + y) * w + x) * 2 + j] = t(0) * at(w, x) + t(1) * at(h, y) + t(2);
        }
      }
    }
  }
  return out;
}

function doc({ op, opset, dims, attrs, floatAttrs = {}, rawAttrs = [], constants = [], outType = 1 }) {
  const shape = (ds) => ({ dim: ds.map((d) => (d === 'N' ? { dimParam: 'N' } : { dimValue: String(d) })) });
  const attribute = Object.entries(attrs).map(([name, v]) => (typeof v === 'string'
    ? { name, type: 'STRING', s: Buffer.from(v).toString('base64') }
    : Array.isArray(v) ? { name, type: 'INTS', ints: v.map(String) } : { name, type: 'INT', i: String(v) }))
    .concat(Object.entries(floatAttrs).map(([name, f]) => ({ name, type: 'FLOAT', f })), rawAttrs);
  return {
    irVersion: '8', opsetImport: [{ domain: '', version: String(opset) }],
    graph: {
      name: op, node: [{ opType: op, input: ['x', ...constants.map((c) => c.name)], output: ['y'], name: 'op', attribute }],
      initializer: constants.filter((c) => c.name),
      input: [{ name: 'x', type: { tensorType: { elemType: 1, shape: shape(dims) } } }],
      output: [{ name: 'y', type: { tensorType: { elemType: outType } } }],
    },
  };
}

for (const c of CASES) {
  const bytes = onnxJsonToOnnx(doc(c));
  const ortSession = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
  const runs = [];
  for (const n of [3, 1]) {
    const dims = c.dims.map((d) => (d === 'N' ? n : d));
    const data = c.data ? c.data(dims) : Float32Array.from(new Rng(n * 101).floats(dims.reduce((a, b) => a * b, 1), -2, 2));
    const expected = await c.expect(data, dims);
    const fromOrt = (await ortSession.run({ x: new ort.Tensor('float32', data, dims) })).y;
    if (expected.type === undefined) expected.type = 'float32';
    const differs = fromOrt.dims.join() !== expected.dims.join() || Array.from(fromOrt.data).some((v, i) => Number(v) !== Number(expected.data[i]));
    console.log(`${c.name} batch ${n}: onnxruntime ${differs ? 'departs from' : 'agrees with'} the spec`);
    runs.push({ inputs: { x: { dims, data } }, expected: { y: expected } });
  }
  await writeRegression(c.name, bytes, {
    note: c.note,
    source: 'spec', threads: [1, 2], runs,
  });
}

// InstanceNormalization on the kind of values the fuzzer found it failing on (seeds 5606 and
// 2581 of the first generator): planes of one value far from zero, and planes of eleven nearly
// equal values. Expected values in float64: onnxruntime 1.30 folds the mean into the bias and
// loses bits there, as webnx did until these cases.
const INSTANCE_NORM_CASES = [
  ['spec-instancenorm-one-value-planes', [2, 3, 1], (rng) => rng.float(-400, 400)],
  ['spec-instancenorm-nearly-constant-planes', [2, 5, 11], (rng) => 0.6062 + rng.float(-7e-4, 7e-4)],
];
for (const [name, dims, draw] of INSTANCE_NORM_CASES) {
  const rng = new Rng(dims.reduce((a, b) => a * b));
  const c = dims[1];
  const scale = rng.floats(c, 0.5, 1.5), bias = rng.floats(c, -1, 1);
  const x = { name: 'x', dims, data: Float32Array.from({ length: dims.reduce((a, b) => a * b) }, () => draw(rng)) };
  const model = doc({ op: 'InstanceNormalization', opset: 13, dims, attrs: {},
    constants: [{ name: 'scale', dims: [c], dataType: 1, floatData: scale }, { name: 'B', dims: [c], dataType: 1, floatData: bias }] });
  const bytes = onnxJsonToOnnx(model);
  const expected = Float32Array.from(float64InstanceNorm([Array.from(x.data), scale, bias], dims, {}));
  const fromOrt = (await (await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 })).run({ x: new ort.Tensor('float32', x.data, dims) })).y;
  const worst = Array.from(fromOrt.data).reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i])), 0);
  console.log(`${name}: onnxruntime is ${worst.toExponential(2)} from float64 at most`);
  await writeRegression(name, bytes, {
    note: 'InstanceNormalization of planes whose mean is far from zero next to their spread: expected values in float64; ' +
      'onnxruntime 1.30 folds the mean into the bias and loses bits there, as webnx did until this case.',
    source: 'float64', threads: [1, 2],
    runs: [{ inputs: { x }, expected: { y: { type: 'float32', dims, data: expected } } }],
  });
}

// A QDQ Gemm whose int32 bias is dequantized by a scale other than x_scale * w_scale (quantizers
// write that product; the spec allows any). Expected values by hand, the float chain in float64:
// onnxruntime 1.30's fused QDQ Gemm ignores the bias's own scale (its output is the same for any).
{
  const K = 7, N = 5;
  const rng = new Rng(7 * 5);
  const xs = 0.025, xz = 100;
  const wq = Array.from({ length: N * K }, () => rng.int(-127, 127));
  const ws = rng.floats(N, 0.002, 0.03).map(Math.fround);
  const bq = Array.from({ length: N }, (_, i) => 37 * i - 60);
  const bs = [0.5, 0.001, 2, 0.25, 0.0004].map(Math.fround);
  const init = (name, dataType, dims, data) => ({ name, dataType, dims: dims.map(String),
    ...(dataType === 1 ? { floatData: data } : { int32Data: data }) });
  const model = {
    irVersion: '8', opsetImport: [{ domain: '', version: '13' }],
    graph: {
      name: 'qdq_gemm',
      node: [
        { opType: 'QuantizeLinear', input: ['x', 'xs', 'xz'], output: ['xq'], name: 'q' },
        { opType: 'DequantizeLinear', input: ['xq', 'xs', 'xz'], output: ['xd'], name: 'dq_x' },
        { opType: 'DequantizeLinear', input: ['wq', 'ws', 'wz'], output: ['wd'], name: 'dq_w', attribute: [{ name: 'axis', type: 'INT', i: '0' }] },
        { opType: 'DequantizeLinear', input: ['bq', 'bs'], output: ['bd'], name: 'dq_b', attribute: [{ name: 'axis', type: 'INT', i: '0' }] },
        { opType: 'Gemm', input: ['xd', 'wd', 'bd'], output: ['y'], name: 'gemm', attribute: [{ name: 'transB', type: 'INT', i: '1' }] },
      ],
      initializer: [init('xs', 1, [], [xs]), init('xz', 2, [], [xz]), init('wq', 3, [N, K], wq), init('ws', 1, [N], ws),
        init('wz', 3, [N], new Array(N).fill(0)),
        init('bq', 6, [N], bq), init('bs', 1, [N], bs)],
      input: [{ name: 'x', type: { tensorType: { elemType: 1, shape: { dim: [{ dimParam: 'N' }, { dimValue: String(K) }] } } } }],
      output: [{ name: 'y', type: { tensorType: { elemType: 1 } } }],
    },
  };
  const bytes = onnxJsonToOnnx(model);
  const quantize = (v) => {  // QuantizeLinear: round half to even, saturate to uint8
    const q = v / Math.fround(xs), r = Math.round(q);
    const even = Math.abs(q - Math.trunc(q)) === 0.5 ? 2 * Math.round(q / 2) : r;
    return Math.min(255, Math.max(0, even + xz));
  };
  const runs = [];
  for (const batch of [3, 1]) {
    const x = Float32Array.from(rng.floats(batch * K, -3, 3));
    const y = new Float32Array(batch * N);
    for (let m = 0; m < batch; m++) {
      for (let n = 0; n < N; n++) {
        let sum = 0;
        for (let k = 0; k < K; k++) sum += (quantize(x[m * K + k]) - xz) * Math.fround(xs) * wq[n * K + k] * ws[n];
        y[m * N + n] = sum + bq[n] * bs[n];
      }
    }
    const fromOrt = (await (await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 })).run({ x: new ort.Tensor('float32', x, [batch, K]) })).y;
    const worst = Array.from(fromOrt.data).reduce((w, v, i) => Math.max(w, Math.abs(v - y[i])), 0);
    console.log(`spec-qdq-gemm-bias-scale (batch ${batch}): onnxruntime is ${worst.toExponential(2)} from the spec at most`);
    runs.push({ inputs: { x: { dims: [batch, K], data: x } }, expected: { y: { type: 'float32', dims: [batch, N], data: y } } });
  }
  await writeRegression('spec-qdq-gemm-bias-scale', bytes, {
    note: 'A QDQ Gemm whose int32 bias is dequantized by its own scale (not x_scale * w_scale): the spec dequantizes it ' +
      'by that scale; onnxruntime 1.30\'s fused QDQ Gemm ignores it. Expected values by hand (float64).',
    source: 'spec', threads: [1, 2], runs,
  });
}
