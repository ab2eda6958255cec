// The ONNX quantization operators and the quantized patterns exporters emit, against
// onnxruntime-node on the same model and input: integer outputs within 1 unit (exact where no
// float rescaling is involved), float outputs of dynamically quantized graphs within 1e-4
// relative. Graphs with a symbolic batch see batch 3, then 1, then 3, with 1 and 2 threads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import {
  ARRAY, RANGE, compare, exact, floats, initializer, int, ints, ints8, modelOf, relative, withinOne,
} from './quant-models.mjs';
import { Rng } from '../fuzz-diff/generator.mjs';

for (const type of ['uint8', 'int8', 'uint16', 'int16']) {
  test(`QuantizeLinear and DequantizeLinear to ${type}: per tensor, per axis and blocked`, async () => {
    const rng = new Rng(7);
    const [lo, hi] = RANGE[type];
    const mid = Math.round((lo + hi) / 2 / 7);
    const span = type.endsWith('16') ? 300 : 3;
    const cases = [
      { axis: 1, scale: [1], zp: [mid] },                        // per tensor ([1]-shaped)
      { axis: 1, scale: [3], zp: [mid, lo + 5, 0] },             // per axis over C = 3
      { axis: 3, block: 2 },                                     // blocks of 2 along W = 5
    ];
    for (const c of cases) {
      const scaleDims = c.block ? [1, 3, 5, 3] : [c.scale[0]];
      const n = scaleDims.reduce((a, d) => a * d, 1);
      const scales = Array.from({ length: n }, () => rng.float(0.01, 0.2) * span / 3);
      const zps = c.block ? ints8(rng, type, n).map((v) => Math.max(lo, Math.min(hi, Math.round(v / 4)))) : c.zp;
      const attrs = [int('axis', c.axis), ...(c.block ? [int('block_size', c.block)] : [])];
      const bytes = modelOf({
        nodes: [['QuantizeLinear', ['x', 's', 'z'], ['q'], attrs], ['DequantizeLinear', ['q', 's', 'z'], ['y'], attrs]],
        inputs: [['x', 'float32', [1, 3, 5, 5]]],
        outputs: [['q', type, [1, 3, 5, 5]], ['y', 'float32', [1, 3, 5, 5]]],
        initializers: [initializer('s', 'float32', scaleDims, scales), initializer('z', type, scaleDims, zps)],
      });
      const x = floats(rng, 75, -span * 20, span * 20);  // some saturate
      await compare(bytes, (b, T) => ({ x: new T('float32', Float32Array.from(x), [1, 3, 5, 5]) }), [1],
        (got, want, what) => (got instanceof Float32Array ? relative(1e-6)(got, want, what) : exact(got, want, what)));
    }
  });
}

test('DynamicQuantizeLinear feeding MatMulInteger, Cast, Mul and Add: the dynamic-quantized MatMul', async () => {
  const rng = new Rng(11);
  const K = 19, N = 13;
  const wScale = 0.0123;
  const bytes = modelOf({
    nodes: [
      ['DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xz']],
      ['MatMulInteger', ['xq', 'w', 'xz', 'wz'], ['acc']],
      ['Cast', ['acc'], ['accf'], [int('to', 1)]],
      ['Mul', ['xs', 'ws'], ['scale']],
      ['Mul', ['accf', 'scale'], ['yf']],
      ['Add', ['yf', 'bias'], ['y']],
    ],
    inputs: [['x', 'float32', ['N', 4, K]]],
    outputs: [['y', 'float32', ['N', 4, N]], ['xq', 'uint8', ['N', 4, K]]],
    initializers: [
      initializer('w', 'int8', [K, N], ints8(rng, 'int8', K * N)),
      initializer('wz', 'int8', [], [0]),
      initializer('ws', 'float32', [], [wScale]),
      initializer('bias', 'float32', [N], floats(rng, N)),
    ],
    opset: 13,
  });
  const x = floats(rng, 3 * 4 * K, -2, 5);
  await compare(bytes, (b, T) => ({ x: new T('float32', Float32Array.from(x.slice(0, b * 4 * K)), [b, 4, K]) }), [3, 1, 3],
    (got, want, what) => (got instanceof Uint8Array ? exact(got, want, what) : relative(1e-4)(got, want, what)));
});

for (const type of ['uint8', 'int8']) {
  test(`MatMulInteger and QLinearMatMul on ${type}: batched, broadcast, per-column zero points`, async () => {
    const rng = new Rng(type === 'uint8' ? 3 : 4);
    const [lo, hi] = RANGE[type];
    const K = 17, N = 6;
    const bytes = modelOf({
      nodes: [
        ['MatMulInteger', ['a', 'b', 'az', 'bz'], ['acc']],
        ['QLinearMatMul', ['a', 'as', 'az', 'b', 'bs', 'bz', 'ys', 'yz'], ['y']],
      ],
      inputs: [['a', type, ['N', 2, 5, K]]],
      outputs: [['acc', 'int32', ['N', 2, 5, N]], ['y', type, ['N', 2, 5, N]]],
      initializers: [
        initializer('b', type, [K, N], ints8(rng, type, K * N)),
        initializer('az', type, [], [Math.round((lo + hi) / 2)]),
        initializer('bz', type, [N], Array.from({ length: N }, (_, n) => lo + 7 + 20 * n)),
        initializer('as', 'float32', [], [0.02]),
        initializer('bs', 'float32', [N], Array.from({ length: N }, () => rng.float(0.005, 0.02))),
        initializer('ys', 'float32', [], [0.7]),
        initializer('yz', type, [], [Math.round((lo + hi) / 2) + 3]),
      ],
    });
    const a = ints8(rng, type, 3 * 2 * 5 * K);
    await compare(bytes, (n, T) => ({ a: new T(type, ARRAY[type].from(a.slice(0, n * 10 * K)), [n, 2, 5, K]) }), [3, 1, 3],
      (got, want, what) => (got instanceof Int32Array ? exact(got, want, what) : withinOne(got, want, what)));
  });
}

test('ConvInteger and QLinearConv: groups, pads, strides, dilations, per-channel weight scales and a bias', async () => {
  const rng = new Rng(5);
  const C = 4, M = 6, G = 2;
  const wDims = [M, C / G, 3, 3];
  const wCount = M * (C / G) * 9;
  const attrs = [int('group', G), ints('pads', [1, 0, 2, 1]), ints('strides', [2, 1]), ints('dilations', [1, 2])];
  const bytes = modelOf({
    nodes: [
      ['ConvInteger', ['x', 'w', 'xz', 'wz'], ['acc'], attrs],
      ['QLinearConv', ['x', 'xs', 'xz', 'w', 'ws', 'wz', 'ys', 'yz', 'bias'], ['y'], attrs],
    ],
    inputs: [['x', 'uint8', ['N', C, 9, 8]]],
    outputs: [['acc', 'int32', ['N', M, 5, 5]], ['y', 'uint8', ['N', M, 5, 5]]],
    initializers: [
      initializer('w', 'uint8', wDims, ints8(rng, 'uint8', wCount)),
      initializer('xz', 'uint8', [], [120]),
      initializer('wz', 'uint8', [], [131]),  // per tensor: onnxruntime takes no other
      initializer('xs', 'float32', [], [0.03]),
      initializer('ws', 'float32', [M], Array.from({ length: M }, () => rng.float(0.002, 0.01))),
      initializer('ys', 'float32', [], [0.25]),
      initializer('yz', 'uint8', [], [128]),
      initializer('bias', 'int32', [M], Array.from({ length: M }, () => rng.int(-2000, 2000))),
    ],
    opset: 13,
  });
  const x = ints8(rng, 'uint8', 3 * C * 72);
  await compare(bytes, (n, T) => ({ x: new T('uint8', Uint8Array.from(x.slice(0, n * C * 72)), [n, C, 9, 8]) }), [3, 1, 3],
    (got, want, what) => (got instanceof Int32Array ? exact(got, want, what) : withinOne(got, want, what)));
});

test('a QDQ Conv (QuantizeLinear -> DequantizeLinear around a float Conv) matches', async () => {
  const rng = new Rng(9);
  const bytes = modelOf({
    nodes: [
      ['QuantizeLinear', ['x', 'xs', 'xz'], ['xq']],
      ['DequantizeLinear', ['xq', 'xs', 'xz'], ['xd']],
      ['DequantizeLinear', ['wq', 'ws', 'wz'], ['wd'], [int('axis', 0)]],
      ['Conv', ['xd', 'wd', 'b'], ['c'], [ints('pads', [1, 1, 1, 1])]],
      ['QuantizeLinear', ['c', 'ys', 'yz'], ['cq']],
      ['DequantizeLinear', ['cq', 'ys', 'yz'], ['y']],
    ],
    inputs: [['x', 'float32', ['N', 3, 7, 7]]],
    outputs: [['y', 'float32', ['N', 5, 7, 7]]],
    initializers: [
      initializer('xs', 'float32', [], [0.02]), initializer('xz', 'uint8', [], [128]),
      initializer('wq', 'int8', [5, 3, 3, 3], ints8(rng, 'int8', 135)),
      initializer('ws', 'float32', [5], [0.01, 0.02, 0.005, 0.015, 0.03]), initializer('wz', 'int8', [5], [0, 0, 0, 0, 0]),
      initializer('b', 'float32', [5], floats(rng, 5)),
      initializer('ys', 'float32', [], [0.05]), initializer('yz', 'uint8', [], [100]),
    ],
    opset: 13,
  });
  const x = floats(rng, 3 * 147, -2, 2);
  // One quantum of the output (0.05) where the float conv's rounding lands on the other side.
  await compare(bytes, (n, T) => ({ x: new T('float32', Float32Array.from(x.slice(0, n * 147)), [n, 3, 7, 7]) }), [3, 1, 3],
    (got, want, what) => {
      let off = 0;
      for (let i = 0; i < want.length; i++) {
        const d = Math.abs(got[i] - want[i]);
        assert.ok(d <= 0.05 + 1e-6, `${what}: element ${i}: ${got[i]} vs ${want[i]}`);
        if (d > 1e-6) off++;
      }
      assert.ok(off <= want.length / 100, `${what}: ${off} outputs one quantum off`);
    });
});

test('quantization parameters that do not fit give a coded error naming the node', async () => {
  const bytes = modelOf({
    nodes: [['QuantizeLinear', ['x', 's', 'z'], ['q'], [int('axis', 1)]]],
    inputs: [['x', 'float32', [2, 3]]],
    outputs: [['q', 'uint8', [2, 3]]],
    initializers: [initializer('s', 'float32', [2], [0.1, 0.2]), initializer('z', 'uint8', [2], [1, 2])],
  });
  const err = await InferenceSession.create(bytes).then(
    (s) => s.run({ x: new Tensor('float32', new Float32Array(6), [2, 3]) }), (e) => e).catch((e) => e);
  assert.equal(err.code, 'ShapeMismatch');
  assert.match(err.message, /n0_QuantizeLinear.*per-axis scale must be 1-D of size 3/);
});
