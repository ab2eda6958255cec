// The dynamically quantized chains webnx runs as one int8 kernel (kernels/quant_fusion.h), and
// the int8 depthwise path: each against onnxruntime-node on the same model and input (float
// outputs within 1e-4 relative, integer outputs exact), and each fused graph against the same
// graph left unfused (one of the chain's values also a graph output) — bitwise, over batch
// 3 -> 1 -> 3 with 1 and 2 threads, each run bitwise a fresh session's run of that batch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import {
  compare, exact, floats, initializer, int, ints, ints8, modelOf, relative, withinOne,
} from './quant-models.mjs';
import { Rng } from '../fuzz-diff/generator.mjs';

const C = 6, H = 9, W = 10;
const feedsOf = (x, dims, [h, w] = [H, W]) => (b, T) => ({ x: new T('float32', Float32Array.from(x.slice(0, b * dims)), [b, C, h, w]) });

// DynamicQuantizeLinear -> ConvInteger -> Cast -> Mul(Mul(x_scale, W_scale)) -> Add(bias), then
// a residual sum and a Relu; `expose` adds the Cast's output to the graph outputs.
function dynamicConv(rng, { group, strides, pads, expose }) {
  const M = C, wDims = [M, C / group, 3, 3];
  const count = wDims.reduce((a, d) => a * d, 1);
  const oh = (H + pads[0] + pads[2] - 3) / strides[0] + 1, ow = (W + pads[1] + pads[3] - 3) / strides[1] + 1;
  const attrs = [int('group', group), ints('pads', pads), ints('strides', strides)];
  const outDims = ['N', M, oh, ow];
  return modelOf({
    nodes: [
      ['DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xz']],
      ['ConvInteger', ['xq', 'w', 'xz', 'wz'], ['acc'], attrs],
      ['Cast', ['acc'], ['accf'], [int('to', 1)]],
      ['Mul', ['xs', 'ws'], ['scale']],
      ['Mul', ['scale', 'accf'], ['yf']],
      ['Add', ['bias', 'yf'], ['yb']],
      ['Add', ['yb', 'skip'], ['ys']],
      ['Relu', ['ys'], ['y']],
    ],
    inputs: [['x', 'float32', ['N', C, H, W]], ['skip', 'float32', outDims]],
    outputs: [['y', 'float32', outDims], ...(expose ? [['accf', 'float32', outDims]] : [])],
    initializers: [
      initializer('w', 'int8', wDims, ints8(rng, 'int8', count)),
      initializer('wz', 'int8', [], [0]),
      initializer('ws', 'float32', [M, 1, 1], floats(rng, M, 0.002, 0.02)),
      initializer('bias', 'float32', [1, M, 1, 1], floats(rng, M)),
    ],
    opset: 13,
  });
}

// Output y of one session over the feeds in order, and its graph's node count; each run is
// checked bitwise against a fresh session's run of the same feeds.
async function outputsOf(bytes, feeds, numThreads) {
  const session = await InferenceSession.create(bytes, { numThreads });
  const out = [];
  for (const f of feeds) out.push((await session.run(f)).y.data);
  const nodes = session.stats.graphNodes;
  await session.release();
  for (let k = 0; k < feeds.length; k++) {
    const fresh = await InferenceSession.create(bytes, { numThreads });
    exact(out[k], (await fresh.run(feeds[k])).y.data, `run ${k} against a fresh session, ${numThreads} threads`);
    await fresh.release();
  }
  return { out, nodes };
}

for (const [name, options] of [
  ['a 3x3 convolution', { group: 1, strides: [1, 1], pads: [1, 1, 1, 1] }],
  ['a depthwise convolution, stride 2', { group: C, strides: [2, 2], pads: [1, 0, 1, 1] }],
]) {
  test(`the dynamically quantized chain of ${name} runs fused, as onnxruntime and the unfused chain compute it`, async () => {
    const rng = new Rng(21);
    const fused = dynamicConv(rng, options);
    const unfused = dynamicConv(new Rng(21), { ...options, expose: true });
    const x = floats(rng, 3 * C * H * W, -2, 4);
    const [oh, ow] = [(H + options.pads[0] + options.pads[2] - 3) / options.strides[0] + 1,
      (W + options.pads[1] + options.pads[3] - 3) / options.strides[1] + 1];
    const skip = floats(rng, 3 * C * oh * ow);
    const feedsFor = (b, T) => ({
      ...feedsOf(x, C * H * W)(b, T),
      skip: new T('float32', Float32Array.from(skip.slice(0, b * C * oh * ow)), [b, C, oh, ow]),
    });
    await compare(fused, feedsFor, [3, 1, 3], relative(1e-4));
    const feeds = [3, 1, 3].map((b) => feedsFor(b, Tensor));
    for (const threads of [1, 2]) {
      const a = await outputsOf(fused, feeds, threads);
      const b = await outputsOf(unfused, feeds, threads);
      assert.ok(a.nodes < b.nodes, `fused: ${a.nodes} nodes, unfused: ${b.nodes}`);
      for (let k = 0; k < feeds.length; k++) exact(a.out[k], b.out[k], `run ${k}, ${threads} threads`);
    }
  });
}

test('the dynamically quantized chain of a MatMul runs fused, as the unfused chain computes it', async () => {
  const rng = new Rng(23);
  const K = 21, N = 11;
  const model = (expose) => modelOf({
    nodes: [
      ['DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xz']],
      ['MatMulInteger', ['xq', 'w', 'xz'], ['acc']],
      ['Cast', ['acc'], ['accf'], [int('to', 1)]],
      ['Mul', ['ws', 'xs'], ['scale']],
      ['Mul', ['accf', 'scale'], ['y']],
    ],
    inputs: [['x', 'float32', ['N', 3, K]]],
    outputs: [['y', 'float32', ['N', 3, N]], ...(expose ? [['accf', 'float32', ['N', 3, N]]] : [])],
    initializers: [
      initializer('w', 'uint8', [K, N], ints8(new Rng(5), 'uint8', K * N)),
      initializer('ws', 'float32', [N], floats(new Rng(6), N, 0.001, 0.01)),
    ],
    opset: 13,
  });
  const x = floats(rng, 3 * 3 * K, -1, 3);
  const feedsFor = (b, T) => ({ x: new T('float32', Float32Array.from(x.slice(0, b * 3 * K)), [b, 3, K]) });
  await compare(model(false), feedsFor, [3, 1, 3], relative(1e-4));
  const feeds = [3, 1, 3].map((b) => feedsFor(b, Tensor));
  for (const threads of [1, 2]) {
    const a = await outputsOf(model(false), feeds, threads);
    const b = await outputsOf(model(true), feeds, threads);
    assert.ok(a.nodes < b.nodes, `fused: ${a.nodes} nodes, unfused: ${b.nodes}`);
    for (let k = 0; k < feeds.length; k++) exact(a.out[k], b.out[k], `run ${k}, ${threads} threads`);
  }
});

test('depthwise ConvInteger (exact) and QLinearConv (within 1) match onnxruntime: strides, dilations, pads', async () => {
  const rng = new Rng(25);
  for (const [strides, dilations, pads] of [[[1, 1], [1, 1], [1, 1, 1, 1]], [[2, 2], [1, 1], [0, 1, 1, 0]],
    [[1, 2], [2, 1], [2, 2, 2, 2]]]) {
    const attrs = [int('group', C), ints('strides', strides), ints('dilations', dilations), ints('pads', pads)];
    const oh = Math.floor((H + pads[0] + pads[2] - 2 * dilations[0] - 1) / strides[0]) + 1;
    const ow = Math.floor((W + pads[1] + pads[3] - 2 * dilations[1] - 1) / strides[1]) + 1;
    const bytes = modelOf({
      nodes: [
        ['ConvInteger', ['x', 'w', 'xz', 'wz'], ['acc'], attrs],
        ['QLinearConv', ['x', 'xs', 'xz', 'w', 'ws', 'wz', 'ys', 'yz', 'bias'], ['y'], attrs],
      ],
      inputs: [['x', 'uint8', ['N', C, H, W]]],
      outputs: [['acc', 'int32', ['N', C, oh, ow]], ['y', 'uint8', ['N', C, oh, ow]]],
      initializers: [
        initializer('w', 'uint8', [C, 1, 3, 3], ints8(rng, 'uint8', C * 9)),
        initializer('xz', 'uint8', [], [117]), initializer('wz', 'uint8', [], [125]),
        initializer('xs', 'float32', [], [0.02]), initializer('ws', 'float32', [C], floats(rng, C, 0.005, 0.02)),
        initializer('ys', 'float32', [], [0.1]), initializer('yz', 'uint8', [], [130]),
        initializer('bias', 'int32', [C], Array.from({ length: C }, () => rng.int(-500, 500))),
      ],
      opset: 13,
    });
    const x = ints8(rng, 'uint8', 3 * C * H * W);
    await compare(bytes, (b, T) => ({ x: new T('uint8', Uint8Array.from(x.slice(0, b * C * H * W)), [b, C, H, W]) }),
      [3, 1, 3], (got, want, what) => (got instanceof Int32Array ? exact(got, want, what) : withinOne(got, want, what)));
  }
});

test('a QDQ convolution runs fused, each run bitwise a fresh session\'s, batch 3 -> 1 -> 3', async () => {
  const rng = new Rng(27);
  const model = (expose) => modelOf({
    nodes: [
      ['QuantizeLinear', ['x', 'xs', 'xz'], ['xq']],
      ['DequantizeLinear', ['xq', 'xs', 'xz'], ['xd']],
      ['DequantizeLinear', ['wq', 'ws', 'wz'], ['wd'], [int('axis', 0)]],
      ['DequantizeLinear', ['bq', 'bs'], ['bd'], [int('axis', 0)]],
      ['Conv', ['xd', 'wd', 'bd'], ['c'], [ints('pads', [1, 1, 1, 1])]],
      ['Relu', ['c'], ['y']],
    ],
    inputs: [['x', 'float32', ['N', C, H, W]]],
    outputs: [['y', 'float32', ['N', 5, H, W]], ...(expose ? [['wd', 'float32', [5, C, 3, 3]]] : [])],
    initializers: [
      initializer('xs', 'float32', [], [0.03]), initializer('xz', 'uint8', [], [120]),
      initializer('wq', 'int8', [5, C, 3, 3], ints8(new Rng(7), 'int8', 5 * C * 9)),
      initializer('ws', 'float32', [5], [0.01, 0.02, 0.005, 0.015, 0.03]),
      initializer('wz', 'int8', [5], [0, 0, 0, 0, 0]),
      initializer('bq', 'int32', [5], [100, -200, 0, 50, 7]),
      initializer('bs', 'float32', [5], [0.0003, 0.0006, 0.00015, 0.00045, 0.0009]),
    ],
    opset: 13,
  });
  const x = floats(rng, 3 * C * H * W, -2, 2);
  const feeds = [3, 1, 3].map((b) => feedsOf(x, C * H * W)(b, Tensor));
  for (const threads of [1, 2]) {
    const a = await outputsOf(model(false), feeds, threads);
    const b = await outputsOf(model(true), feeds, threads);
    assert.ok(a.nodes < b.nodes, `fused: ${a.nodes} nodes, unfused: ${b.nodes}`);
  }
});

// QDQ products: A through QuantizeLinear -> DequantizeLinear, B DequantizeLinear of int8
// constants per output column, Gemm's C DequantizeLinear of int32 (or float).
const K = 19, N = 13;
function qdqProduct({ op, transB = 0, floatBias = false, ownBiasScale = false, expose = false }) {
  const wDims = transB ? [N, K] : [K, N];
  const gemmBias = op === 'Gemm' ? (floatBias ? ['bf'] : ['bd']) : [];
  const aDims = op === 'Gemm' ? ['N', K] : ['N', 3, K];
  const yDims = op === 'Gemm' ? ['N', N] : ['N', 3, N];
  return modelOf({
    nodes: [
      ['QuantizeLinear', ['x', 'xs', 'xz'], ['xq']],
      ['DequantizeLinear', ['xq', 'xs', 'xz'], ['xd']],
      ['DequantizeLinear', ['wq', 'ws', 'wz'], ['wd'], [int('axis', transB ? 0 : 1)]],
      ...(op === 'Gemm' && !floatBias ? [['DequantizeLinear', ['bq', 'bs'], ['bd'], [int('axis', 0)]]] : []),
      [op, ['xd', 'wd', ...gemmBias], ['p'], op === 'Gemm' ? [int('transB', transB)] : []],
      ['Add', ['p', 'skip'], ['ps']],  // a residual sum and a clamp: the fused kernel's epilogue
      ['Relu', ['ps'], ['y']],
    ],
    inputs: [['x', 'float32', aDims], ['skip', 'float32', yDims]],
    outputs: [['y', 'float32', yDims], ...(expose ? [['wd', 'float32', wDims]] : [])],
    initializers: [
      initializer('xs', 'float32', [], [0.025]), initializer('xz', 'uint8', [], [100]),
      initializer('wq', 'int8', wDims, ints8(new Rng(8), 'int8', K * N)),
      initializer('ws', 'float32', [N], floats(new Rng(9), N, 0.002, 0.03)),
      initializer('wz', 'int8', [N], new Array(N).fill(0)),
      initializer('bq', 'int32', [N], Array.from({ length: N }, (_, i) => 37 * i - 200)),
      // x_scale * w_scale, as quantizers write it (onnxruntime's fused kernel assumes it), or not.
      initializer('bs', 'float32', [N], ownBiasScale ? floats(new Rng(10), N, 0.0001, 0.0005)
        : floats(new Rng(9), N, 0.002, 0.03).map((v) => Math.fround(v) * 0.025)),
      initializer('bf', 'float32', [N], floats(new Rng(11), N, -1, 1)),
    ],
    opset: 13,
  });
}

// A bias scale other than x_scale * w_scale is the spec's DequantizeLinear still: onnxruntime's
// fused kernel ignores it, so the unfused graph is the oracle there.
for (const options of [{ op: 'MatMul' }, { op: 'Gemm', transB: 1 }, { op: 'Gemm', transB: 0, floatBias: true },
  { op: 'Gemm', transB: 1, ownBiasScale: true }]) {
  test(`a QDQ ${options.op} (${JSON.stringify(options)}) runs fused, as onnxruntime and the unfused graph compute it, each run bitwise a fresh session's`, async () => {
    const rows = options.op === 'Gemm' ? 1 : 3;
    const x = floats(new Rng(29), 4 * rows * K, -2, 3);
    const skip = floats(new Rng(30), 4 * rows * N, -1, 1);
    const dims = (b, d) => (options.op === 'Gemm' ? [b, d] : [b, rows, d]);
    const feedsFor = (b, T) => ({
      x: new T('float32', Float32Array.from(x.slice(0, b * rows * K)), dims(b, K)),
      skip: new T('float32', Float32Array.from(skip.slice(0, b * rows * N)), dims(b, N)),
    });
    if (!options.ownBiasScale) await compare(qdqProduct(options), feedsFor, [4, 1, 4], relative(1e-4));
    const feeds = [4, 1, 4].map((b) => feedsFor(b, Tensor));
    for (const threads of [1, 2]) {
      const a = await outputsOf(qdqProduct(options), feeds, threads);
      const b = await outputsOf(qdqProduct({ ...options, expose: true }), feeds, threads);
      assert.ok(a.nodes < b.nodes, `fused: ${a.nodes} nodes, unfused: ${b.nodes}`);
      for (let k = 0; k < feeds.length; k++) relative(1e-4)(a.out[k], b.out[k], `run ${k}, ${threads} threads`);
    }
  });
}

// QDQ convolutions handing 8-bit activations to each other (kernels/quant_fusion.h,
// ProposeQuantizedOutput): a 3x3 conv whose Clip (bounds from Constant nodes) and QuantizeLinear
// it runs itself, a depthwise conv (stride 2) reading those bytes with a Relu and its own
// QuantizeLinear, a 1x1 conv after it. The depthwise conv's uint8 output is a graph output too.
// `expose` adds the float values before each QuantizeLinear to the graph outputs, which keeps
// every conv writing float32: the graph as it ran before the handoff. Planes of over 512
// columns are finished a chunk of columns at a time (kernels/quant_gemm.h, RunGemmByChunks).
const E = 8;
function qdqHandoff(expose, { h = H, w = W, e = E } = {}) {
  const [H, W, E] = [h, w, e];
  const weights = (name, dims, seed) => {
    const count = dims.reduce((a, d) => a * d, 1);
    return [
      initializer(name, 'int8', dims, ints8(new Rng(seed), 'int8', count)),
      initializer(`${name}_s`, 'float32', [dims[0]], floats(new Rng(seed + 1), dims[0], 0.002, 0.02)),
      initializer(`${name}_z`, 'int8', [dims[0]], new Array(dims[0]).fill(0)),
    ];
  };
  const dq = (name) => ['DequantizeLinear', [name, `${name}_s`, `${name}_z`], [`${name}_d`], [int('axis', 0)]];
  const scalar = (name, v) => ['Constant', [], [name], [{ name: 'value', type: 'TENSOR', t: initializer('', 'float32', [], [v]) }]];
  const [oh, ow] = [(H - 1) / 2 + 1, (W - 1) / 2 + 1].map(Math.floor);
  return modelOf({
    nodes: [
      scalar('lo', 0), scalar('hi', 6), dq('w3'), dq('wdw'), dq('wpw'),
      ['QuantizeLinear', ['x', 'xs', 'xz'], ['xq']],
      ['DequantizeLinear', ['xq', 'xs', 'xz'], ['xd']],
      ['Conv', ['xd', 'w3_d'], ['a'], [ints('pads', [1, 1, 1, 1])]],
      ['Clip', ['a', 'lo', 'hi'], ['ac']],
      ['QuantizeLinear', ['ac', 'as', 'az'], ['aq']],
      ['DequantizeLinear', ['aq', 'as', 'az'], ['ad']],
      ['Conv', ['ad', 'wdw_d'], ['d'], [int('group', E), ints('pads', [1, 1, 1, 1]), ints('strides', [2, 2])]],
      ['Relu', ['d'], ['dr']],
      ['QuantizeLinear', ['dr', 'xs', 'xz'], ['dq']],
      ['DequantizeLinear', ['dq', 'xs', 'xz'], ['dd']],
      ['Conv', ['dd', 'wpw_d'], ['y']],
    ],
    inputs: [['x', 'float32', ['N', C, H, W]]],
    outputs: [['y', 'float32', ['N', 5, oh, ow]], ['dq', 'uint8', ['N', E, oh, ow]],
      ...(expose ? [['ac', 'float32', ['N', E, H, W]], ['dr', 'float32', ['N', E, oh, ow]]] : [])],
    initializers: [
      initializer('xs', 'float32', [], [0.03]), initializer('xz', 'uint8', [], [120]),
      initializer('as', 'float32', [], [0.025]), initializer('az', 'uint8', [], [3]),
      ...weights('w3', [E, C, 3, 3], 40), ...weights('wdw', [E, 1, 3, 3], 50), ...weights('wpw', [5, E, 1, 1], 60),
    ],
    opset: 13,
  });
}

for (const shape of [{}, { h: 25, w: 27, e: 40 }]) {
  const { h = H, w = W } = shape;
  test(`QDQ convolutions hand 8-bit activations to each other (${h} x ${w} input): as onnxruntime computes them, and bitwise as the same convolutions writing float32`, async () => {
    const x = floats(new Rng(31), 3 * C * h * w, -2, 4);
    const feedsFor = (b, T) => feedsOf(x, C * h * w, [h, w])(b, T);
    // Intermediate bytes within one quantum of onnxruntime's (its QLinearConv requantizes in
    // its own arithmetic); the float output within 2e-2, as a quantum's move there allows.
    await compare(qdqHandoff(false, shape), feedsFor, [3, 1, 3],
      (got, want, what) => (got instanceof Uint8Array ? withinOne(got, want, what) : relative(2e-2)(got, want, what)));
    const feeds = [3, 1, 3].map((b) => feedsFor(b, Tensor));
    for (const numThreads of [1, 2]) {
      const handoff = await InferenceSession.create(qdqHandoff(false, shape), { numThreads });
      const floatsBetween = await InferenceSession.create(qdqHandoff(true, shape), { numThreads });
      assert.equal(handoff.stats.graphNodes, 3, 'three convs, each reading the bytes the one before wrote');
      for (const [k, f] of feeds.entries()) {
        const [a, b] = [await handoff.run(f), await floatsBetween.run(f)];
        exact(a.y.data, b.y.data, `y, ${numThreads} threads`);
        exact(a.dq.data, b.dq.data, `dq, ${numThreads} threads`);
        // Batch 3 -> 1 -> 3 in one session: each run bitwise a fresh session's.
        const fresh = await InferenceSession.create(qdqHandoff(false, shape), { numThreads });
        exact(a.y.data, (await fresh.run(f)).y.data, `run ${k} against a fresh session, ${numThreads} threads`);
        await fresh.release();
      }
      await handoff.release();
      await floatsBetween.release();
    }
  });
}
