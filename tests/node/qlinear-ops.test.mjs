// com.microsoft's QOperator ops (kernels/qlinear_ops.cc) and MatMulIntegerToFloat against
// onnxruntime-node on the same graphs and inputs: 8-bit outputs within one unit (the runtimes
// may round a float product on different sides of a half), float outputs within 1e-5 relative.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { relativeMaxError, seededFloats } from './helpers.mjs';

const ONNX = { uint8: 2, int8: 3, float32: 1 };
const ARRAYS = { uint8: Uint8Array, int8: Int8Array, float32: Float32Array };

const vi = (name, type, dims) => ({
  name,
  type: { tensorType: { elemType: ONNX[type], shape: { dim: dims.map((d) => ({ dimValue: String(d) })) } } },
});
const init = (name, type, dims, values) => ({
  name,
  dims: dims.map(String),
  dataType: ONNX[type],
  rawData: Buffer.from(ARRAYS[type].from(values).buffer).toString('base64'),
});

function bytesOf(type, count, seed) {
  const lo = type === 'int8' ? -128 : 0;
  return ARRAYS[type].from(seededFloats(count, seed), (v) => lo + Math.floor((v + 1) * 127.99));
}

// A one-node com.microsoft graph; `inputs` maps each graph input to [type, dims, data].
async function compare(node, inputs, initializers, output, { float = false } = {}) {
  const bytes = onnxJsonToOnnx({
    irVersion: '8',
    opsetImport: [{ version: '17' }, { domain: 'com.microsoft', version: '1' }],
    graph: {
      name: node.opType,
      node: [{ domain: 'com.microsoft', name: 'q', ...node }],
      initializer: initializers,
      input: Object.entries(inputs).map(([name, [type, dims]]) => vi(name, type, dims)),
      output: [vi(output[0], output[1], output[2])],
    },
  });
  const reference = await ort.InferenceSession.create(bytes);
  const feeds = (T) => Object.fromEntries(Object.entries(inputs).map(([name, [type, dims, data]]) => [name, new T(type, data, dims)]));
  const want = (await reference.run(feeds(ort.Tensor)))[output[0]];
  await reference.release();
  for (const numThreads of [1, 2]) {
    const session = await InferenceSession.create(bytes, { numThreads });
    const got = (await session.run(feeds(Tensor)))[output[0]];
    assert.deepEqual(got.dims, Array.from(want.dims));
    assert.equal(got.type, want.type);
    if (float) {
      assert.ok(relativeMaxError(got.data, want.data) < 1e-5, `${node.opType}: ${relativeMaxError(got.data, want.data)}`);
    } else {
      for (let i = 0; i < want.data.length; i++) {
        assert.ok(Math.abs(got.data[i] - want.data[i]) <= 1, `${node.opType}[${i}]: ${got.data[i]} vs ${want.data[i]}`);
      }
    }
    await session.release();
  }
}

const params = (type, prefix, scale, zp) => [
  init(`${prefix}_scale`, 'float32', [], [scale]),
  init(`${prefix}_zp`, type, [], [zp]),
];

for (const type of ['uint8', 'int8']) {
  const zp = type === 'uint8' ? [120, 131, 128] : [-8, 3, 0];
  for (const op of ['QLinearAdd', 'QLinearMul']) {
    test(`${op} ${type}, broadcast, against onnxruntime-node`, async () => {
      await compare(
        { opType: op, input: ['a', 'a_scale', 'a_zp', 'b', 'b_scale', 'b_zp', 'c_scale', 'c_zp'], output: ['c'] },
        { a: [type, [2, 3, 4], bytesOf(type, 24, 1)], b: [type, [3, 1], bytesOf(type, 3, 2)] },
        [...params(type, 'a', 0.05, zp[0]), ...params(type, 'b', 0.031, zp[1]),
          ...params(type, 'c', op === 'QLinearMul' ? 0.4 : 0.07, zp[2])],
        ['c', type, [2, 3, 4]]);
    });
  }
  for (const [op, attribute] of [['QLinearSigmoid', []], ['QLinearLeakyRelu', [{ name: 'alpha', type: 'FLOAT', f: 0.2 }]]]) {
    test(`${op} ${type} against onnxruntime-node`, async () => {
      await compare(
        { opType: op, input: ['x', 'x_scale', 'x_zp', 'y_scale', 'y_zp'], output: ['y'], attribute },
        { x: [type, [4, 64], ARRAYS[type].from({ length: 256 }, (_, i) => (type === 'int8' ? i - 128 : i))] },
        [...params(type, 'x', 0.06, zp[0]), ...params(type, 'y', op === 'QLinearSigmoid' ? 1 / 255 : 0.05, zp[2])],
        ['y', type, [4, 64]]);
    });
  }
  for (const channelsLast of [0, 1]) {
    test(`QLinearGlobalAveragePool ${type} channels_last=${channelsLast} against onnxruntime-node`, async () => {
      const dims = channelsLast ? [2, 5, 4, 3] : [2, 3, 5, 4];
      await compare(
        { opType: 'QLinearGlobalAveragePool', input: ['x', 'x_scale', 'x_zp', 'y_scale', 'y_zp'], output: ['y'],
          attribute: [{ name: 'channels_last', type: 'INT', i: String(channelsLast) }] },
        { x: [type, dims, bytesOf(type, 120, 3)] },
        [...params(type, 'x', 0.05, zp[0]), ...params(type, 'y', 0.02, zp[1])],
        ['y', type, channelsLast ? [2, 1, 1, 3] : [2, 3, 1, 1]]);
    });
  }
  test(`QLinearConcat ${type}, three scales, against onnxruntime-node`, async () => {
    await compare(
      { opType: 'QLinearConcat', input: ['y_scale', 'y_zp', 'x0', 'x0_scale', 'x0_zp', 'x1', 'x1_scale', 'x1_zp', 'x2', 'x2_scale', 'x2_zp'],
        output: ['y'], attribute: [{ name: 'axis', type: 'INT', i: '1' }] },
      { x0: [type, [2, 2, 3], bytesOf(type, 12, 4)], x1: [type, [2, 1, 3], bytesOf(type, 6, 5)], x2: [type, [2, 3, 3], bytesOf(type, 18, 6)] },
      [...params(type, 'y', 0.05, zp[0]), ...params(type, 'x0', 0.05, zp[0]), ...params(type, 'x1', 0.09, zp[1]),
        ...params(type, 'x2', 0.013, zp[2])],
      ['y', type, [2, 6, 3]]);
  });
}

test('MatMulIntegerToFloat: uint8 A, int8 B per column, bias, against onnxruntime-node', async () => {
  await compare(
    { opType: 'MatMulIntegerToFloat', input: ['a', 'b', 'a_scale', 'b_scale', 'a_zp', 'b_zp', 'bias'], output: ['y'] },
    { a: ['uint8', [2, 3, 37], bytesOf('uint8', 222, 7)] },
    [init('b', 'int8', [37, 5], bytesOf('int8', 185, 8)), init('a_scale', 'float32', [], [0.02]),
      init('b_scale', 'float32', [5], [0.01, 0.02, 0.005, 0.03, 0.011]), init('a_zp', 'uint8', [], [131]),
      init('b_zp', 'int8', [5], [0, 0, 0, 0, 0]), init('bias', 'float32', [5], [0.5, -1, 0.25, 2, 0])],
    ['y', 'float32', [2, 3, 5]], { float: true });
});
