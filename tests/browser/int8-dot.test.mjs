// int8 products in Chromium: the relaxed build multiplies with the relaxed dot product exactly
// where this engine's dot is exact for every 8-bit value (measured here by a module of its own),
// and its integer outputs are bitwise the plain build's: ConvInteger (dense and depthwise) and
// MatMulInteger with uint8 and int8 operands, zero points per tensor and per channel, depths past
// the relaxed GEMM's depth block; and QDQ convs handing 8-bit values on over planes of more than
// 512 columns, which the relaxed build requantizes in the GEMM's tiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, sharedBrowser } from './helpers.mjs';
import { floats, initializer, int, ints, ints8, modelOf } from '../node/quant-models.mjs';
import { Rng } from '../fuzz-diff/generator.mjs';
import { relaxedDotKind } from '../node/relaxed-dot-probe.mjs';

const shared = sharedBrowser();

const rng = new Rng(29);
const C = 120, H = 7, W = 6, OC = 19;  // K = 120 * 9 = 1080 per conv output
const M = 5, K = 1100, N = 21;
const bValues = ints8(rng, 'int8', K * N), bZeros = ints8(rng, 'int8', N);
const model = modelOf({
  nodes: [
    ['ConvInteger', ['x', 'w', 'xz', 'wz'], ['conv'], [ints('pads', [1, 1, 1, 1])]],
    ['MatMulInteger', ['a', 'b', 'az', 'bz'], ['product']],
    ['MatMulInteger', ['a_signed', 'b_unsigned'], ['product_signs']],
    ['ConvInteger', ['x', 'dw', 'xz', 'dwz'], ['depthwise'], [ints('pads', [1, 1, 1, 1]), int('group', C)]],
    ['ConvInteger', ['x', 'dw'], ['depthwise_strided'], [ints('strides', [2, 2]), int('group', C)]],
  ],
  inputs: [['x', 'uint8', [1, C, H, W]], ['a', 'uint8', [M, K]], ['a_signed', 'int8', [M, K]]],
  outputs: [['conv', 'int32', [1, OC, H, W]], ['product', 'int32', [M, N]], ['product_signs', 'int32', [M, N]],
    ['depthwise', 'int32', [1, C, H, W]], ['depthwise_strided', 'int32', [1, C, 3, 2]]],
  initializers: [
    initializer('w', 'int8', [OC, C, 3, 3], ints8(rng, 'int8', OC * C * 9)),
    initializer('xz', 'uint8', [], [131]),
    initializer('wz', 'int8', [OC], ints8(rng, 'int8', OC)),
    initializer('b', 'int8', [K, N], bValues),
    initializer('az', 'uint8', [], [7]),
    initializer('bz', 'int8', [N], bZeros),
    initializer('b_unsigned', 'uint8', [K, N], ints8(rng, 'uint8', K * N)),
    initializer('dw', 'int8', [C, 1, 3, 3], ints8(rng, 'int8', C * 9)),
    initializer('dwz', 'int8', [C], ints8(rng, 'int8', C)),
  ],
});
const feeds = {
  x: ['uint8', ints8(rng, 'uint8', C * H * W), [1, C, H, W]],
  a: ['uint8', ints8(rng, 'uint8', M * K), [M, K]],
  a_signed: ['int8', ints8(rng, 'int8', M * K), [M, K]],
};

// QDQ 1x1 convs on a 25 x 27 plane (675 columns: finished by chunks), the first's Relu and
// QuantizeLinear run by it (uint8 out, also a graph output), with and without a bias.
const QC = 12, QH = 25, QW = 27, QE = 20;
const qdqModel = modelOf({
  nodes: [
    ['QuantizeLinear', ['x', 'xs', 'xz'], ['xq']],
    ['DequantizeLinear', ['xq', 'xs', 'xz'], ['xd']],
    ['DequantizeLinear', ['w1', 'w1s', 'w1z'], ['w1d'], [int('axis', 0)]],
    ['DequantizeLinear', ['b1', 'b1s'], ['b1d'], [int('axis', 0)]],
    ['Conv', ['xd', 'w1d', 'b1d'], ['c1']],
    ['Relu', ['c1'], ['r1']],
    ['QuantizeLinear', ['r1', 'as', 'az'], ['aq']],
    ['DequantizeLinear', ['aq', 'as', 'az'], ['ad']],
    ['DequantizeLinear', ['w2', 'w2s', 'w2z'], ['w2d'], [int('axis', 0)]],
    ['Conv', ['ad', 'w2d'], ['c2']],
    ['QuantizeLinear', ['c2', 'xs', 'xz'], ['y']],
  ],
  inputs: [['x', 'float32', ['N', QC, QH, QW]]],
  outputs: [['y', 'uint8', ['N', QC, QH, QW]], ['aq', 'uint8', ['N', QE, QH, QW]]],
  initializers: [
    initializer('xs', 'float32', [], [0.03]), initializer('xz', 'uint8', [], [120]),
    initializer('as', 'float32', [], [0.02]), initializer('az', 'uint8', [], [5]),
    initializer('w1', 'int8', [QE, QC, 1, 1], ints8(rng, 'int8', QE * QC)),
    initializer('w1s', 'float32', [QE], floats(rng, QE, 0.002, 0.02)),
    initializer('w1z', 'int8', [QE], new Array(QE).fill(0)),
    initializer('b1', 'int32', [QE], ints8(rng, 'int8', QE).map((v) => 40 * v)),
    initializer('b1s', 'float32', [QE], floats(rng, QE, 0.00006, 0.0006)),
    initializer('w2', 'int8', [QC, QE, 1, 1], ints8(rng, 'int8', QC * QE)),
    initializer('w2s', 'float32', [QC], floats(rng, QC, 0.002, 0.02)),
    initializer('w2z', 'int8', [QC], new Array(QC).fill(0)),
  ],
  opset: 13,
});
const qdqInput = floats(rng, 3 * QC * QH * QW, -2, 4);
const qdqFeeds = (batch) => ({ x: ['float32', qdqInput.slice(0, batch * QC * QH * QW), [batch, QC, QH, QW]] });
const QDQ_BATCHES = [3, 1, 3];

// The QDQ model's outputs for each batch of QDQ_BATCHES: in one session (large -> small -> back)
// or each in a fresh one, on the build env.simd picks, with `numThreads` threads.
async function runBatches(simd, numThreads, fresh) {
  const page = await openPage(shared.browser, `${shared.server.url}/web/style.css`);
  try {
    return await page.evaluate(async ({ simd, numThreads, fresh, bytes, runs }) => {
      const { InferenceSession, Tensor, env } = await import('/js/index.mjs');
      env.simd = simd;
      const create = () => InferenceSession.create(new Uint8Array(bytes), { numThreads });
      let session = await create();
      const outputs = [];
      for (const [type, values, dims] of runs) {
        if (fresh && outputs.length) {
          await session.release();
          session = await create();
        }
        const out = await session.run({ x: new Tensor(type, Float32Array.from(values), dims) });
        outputs.push({ aq: Array.from(out.aq.data), y: Array.from(out.y.data) });
      }
      await session.release();
      return { backend: env.backend, outputs };
    }, { simd, numThreads, fresh, bytes: Array.from(qdqModel), runs: QDQ_BATCHES.map((b) => qdqFeeds(b).x) });
  } finally {
    await page.close();
  }
}

// A model on the build env.simd picks, and what the engine's relaxed dot computes
// (tests/node/relaxed-dot-probe.mjs).
async function runPage(simd, bytes = model, inputFeeds = feeds) {
  const page = await openPage(shared.browser, `${shared.server.url}/web/style.css`);
  try {
    return await page.evaluate(async ({ simd, bytes, feeds }) => {
      const { InferenceSession, Tensor, env } = await import('/js/index.mjs');
      env.simd = simd;
      const session = await InferenceSession.create(new Uint8Array(bytes), { numThreads: 1 });
      const typed = { uint8: Uint8Array, int8: Int8Array, float32: Float32Array };
      const inputs = Object.fromEntries(Object.entries(feeds).map(
        ([name, [type, values, dims]]) => [name, new Tensor(type, typed[type].from(values), dims)]));
      const out = await session.run(inputs);
      await session.release();
      return {
        backend: env.backend,
        int8Product: env.int8Product,
        outputs: Object.fromEntries(Object.entries(out).map(([k, t]) => [k, Array.from(t.data)])),
      };
    }, { simd, bytes: Array.from(bytes), feeds: inputFeeds }).then(async (r) => ({ ...r, dot: await page.evaluate(relaxedDotKind) }));
  } finally {
    await page.close();
  }
}

test('the relaxed build takes the relaxed dot only where it is exact, with the plain build\'s outputs bitwise', async () => {
  const relaxed = await runPage('auto');
  const plain = await runPage('simd');
  assert.equal(relaxed.backend, 'wasm-relaxed');
  assert.equal(plain.backend, 'wasm');
  assert.equal(plain.int8Product, 'i16-dot');
  assert.equal(relaxed.int8Product, ['unsigned', 'signed'].includes(relaxed.dot) ? 'relaxed-dot' : 'i16-dot', `dot: ${relaxed.dot}`);
  console.log(`Chromium's relaxed dot: ${relaxed.dot}; the relaxed build multiplies int8 with ${relaxed.int8Product}`);
  for (const name of ['conv', 'product', 'product_signs', 'depthwise', 'depthwise_strided']) {
    assert.equal(relaxed.outputs[name].length, plain.outputs[name].length);
    assert.deepEqual(relaxed.outputs[name], plain.outputs[name], name);
  }
  // And they are the products: MatMulInteger by a direct loop.
  const a = feeds.a[1];
  const direct = [];
  for (let m = 0; m < M; m++) {
    for (let n = 0; n < N; n++) {
      let sum = 0;
      for (let k = 0; k < K; k++) sum += (a[m * K + k] - 7) * (bValues[k * N + n] - bZeros[n]);
      direct.push(sum);
    }
  }
  assert.deepEqual(relaxed.outputs.product, direct);
});

test('QDQ convs handing 8-bit values on over a 675-column plane, batch 3 -> 1 -> 3 in one session, 1 and 2 threads: the relaxed build\'s bytes are the plain build\'s in fresh sessions', async () => {
  const plain = await runBatches('simd', 1, true);
  assert.equal(plain.backend, 'wasm');
  for (const numThreads of [1, 2]) {
    const relaxed = await runBatches('auto', numThreads, false);
    assert.equal(relaxed.backend, numThreads > 1 ? 'wasm-relaxed-mt' : 'wasm-relaxed');
    QDQ_BATCHES.forEach((batch, k) => {
      for (const name of ['aq', 'y']) {
        assert.equal(relaxed.outputs[k][name].length, batch * QH * QW * (name === 'aq' ? QE : QC));
        assert.deepEqual(relaxed.outputs[k][name], plain.outputs[k][name], `${name}, run ${k}, ${numThreads} threads`);
      }
    });
  }
  // Not a constant: the clamp and the zero point leave most bytes elsewhere.
  const distinct = new Set(plain.outputs[0].aq).size;
  assert.ok(distinct > 50, `${distinct} distinct bytes`);
});
