// Every numeric ONNX tensor type through the public API: fed and returned as the typed arrays
// onnxruntime-web uses, moved by the data-movement ops and converted by Cast, each output equal
// (bit for bit) to onnxruntime-node's on the same model and input, with 1 and 2 threads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';

// type -> [ONNX code, typed array, values that reach the edges of the type]
const TYPES = {
  float32: [1, Float32Array, [1.5, -0, 3.4e38, -1e-45, 7, -2.25]],
  uint8: [2, Uint8Array, [0, 255, 1, 128, 127, 200]],
  int8: [3, Int8Array, [-128, 127, 0, -1, 5, 64]],
  uint16: [4, Uint16Array, [0, 65535, 1, 32768, 300, 7]],
  int16: [5, Int16Array, [-32768, 32767, 0, -1, 300, 9]],
  int32: [6, Int32Array, [-2147483648, 2147483647, 0, -1, 70000, 3]],
  int64: [7, BigInt64Array, [-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 2n ** 40n, 3n]],
  bool: [9, Uint8Array, [1, 0, 0, 1, 1, 0]],
  float16: [10, Uint16Array, [0x3c00, 0x7bff, 0x8001, 0xfc00, 0x3555, 0xc000]],  // bits
  float64: [11, Float64Array, [0.1, -1e300, 5e-324, 2.5, -0, 1e-10]],
  uint32: [12, Uint32Array, [0, 4294967295, 1, 2147483648, 65536, 9]],
  uint64: [13, BigUint64Array, [0n, 2n ** 64n - 1n, 1n, 2n ** 63n, 2n ** 40n, 9n]],
};

const dims = (list) => ({ dim: list.map((d) => ({ dimValue: String(d) })) });
const value = (name, code, shape) => ({ name, type: { tensorType: { elemType: code, shape: dims(shape) } } });

// An opset-18 model of `nodes` ([opType, inputs, outputs], each named after its first output).
const opsetModel = (name, nodes, input, output) => onnxJsonToOnnx({
  irVersion: '8',
  opsetImport: [{ version: '18' }],
  graph: {
    name,
    node: nodes.map(([opType, inputs, outputs]) => ({ opType, input: inputs, output: outputs, name: outputs[0] })),
    input,
    output,
  },
});
const ints = (name, list) => ({ name, type: 'INTS', ints: list.map(String) });
const int = (name, v) => ({ name, type: 'INT', i: String(v) });

function rawData(Array, values) {
  const a = Array.from(values);
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
}

// onnxruntime has no Pad kernel for these.
const NO_ORT_PAD = new Set(['uint16', 'int16']);

// Values every type holds and every cast keeps defined (a float beyond an integer's range casts
// to whatever the machine gives: the spec leaves it undefined).
const CASTABLE = [0, 1, 7, 100, 127, 3];
const FLOAT16_BITS = { 0: 0, 1: 0x3c00, 7: 0x4700, 100: 0x5640, 127: 0x57f0, 3: 0x4200 };

// x: T [2, 3] with the type's edge values -> Transpose, Concat with a T initializer, Slice,
// Gather, Reshape, Expand, Pad with a T constant, and (integers) a wrapping Cast to uint8;
// c: T [2, 3] of CASTABLE values -> Cast to float32, int64, float16 and uint8, CastLike back.
function movementModel(type) {
  const [code, Array, values] = TYPES[type];
  const init = (name, shape, list) => ({ name, dims: shape.map(String), dataType: code, rawData: rawData(Array, list) });
  const i64 = (name, list) => ({ name, dims: [String(list.length)], dataType: 7, int64Data: list.map(String) });
  const nodes = [
    ['Transpose', ['x'], ['t'], [ints('perm', [1, 0])]],
    ['Concat', ['t', 'w'], ['cat'], [int('axis', 1)]],
    ['Slice', ['cat', 'starts', 'ends', 'axes', 'steps'], ['s']],
    ['Gather', ['s', 'idx'], ['g'], [int('axis', 0)]],
    ['Reshape', ['g', 'shape'], ['r']],
    ['Expand', ['r', 'expand'], ['e']],
    ['Pad', ['x', 'pads', 'pad_value'], ['p']],
    ['Cast', ['c'], ['as_f32'], [int('to', 1)]],
    ['Cast', ['c'], ['as_i64'], [int('to', 7)]],
    ['Cast', ['c'], ['as_f16'], [int('to', 10)]],
    ['Cast', ['c'], ['as_u8'], [int('to', 2)]],
    ['CastLike', ['as_f32', 'c'], ['back']],
  ];
  const outputs = { e: code, p: code, as_f32: 1, as_i64: 7, as_f16: 10, as_u8: 2, back: code };
  if (!type.startsWith('float') && type !== 'bool') {
    nodes.push(['Cast', ['x'], ['wrapped'], [int('to', 2)]]);
    outputs.wrapped = 2;
  }
  if (NO_ORT_PAD.has(type)) {
    nodes.splice(6, 1);
    delete outputs.p;
  }
  return onnxJsonToOnnx({
    irVersion: '8',
    opsetImport: [{ version: '18' }],
    graph: {
      name: `movement_${type}`,
      node: nodes.map(([opType, input, output, attribute = []], k) => ({ opType, input, output, name: `n${k}_${opType}`, attribute })),
      initializer: [
        init('w', [3, 2], values.slice(0, 6)),
        init('pad_value', [], values.slice(4, 5)),
        i64('starts', [0, 1]), i64('ends', [3, 4]), i64('axes', [0, 1]), i64('steps', [2, 2]),
        i64('idx', [1, 0, 1]), i64('shape', [1, 3, 2]), i64('expand', [2, 3, 2]), i64('pads', [0, 1, 1, 0]),
      ],
      input: [value('x', code, [2, 3]), value('c', code, [2, 3])],
      output: Object.entries(outputs).map(([name, elemType]) => ({ name, type: { tensorType: { elemType } } })),
    },
  });
}

function feedsOf(type, T) {
  const [, Array, values] = TYPES[type];
  const castable = CASTABLE.map((v) => {
    if (type === 'float16') return FLOAT16_BITS[v];
    if (type === 'bool') return v % 2;
    return Array === BigInt64Array || Array === BigUint64Array ? BigInt(v) : v;
  });
  return {
    x: new T(type, Array.from(values.slice().reverse()), [2, 3]),
    c: new T(type, Array.from(castable), [2, 3]),
  };
}

async function runOrt(bytes, type) {
  const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
  try {
    const out = await session.run(feedsOf(type, ort.Tensor));
    return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, { type: t.type, dims: t.dims, data: t.data }]));
  } finally {
    await session.release();
  }
}

const bytesOf = (data) => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

for (const type of Object.keys(TYPES)) {
  test(`${type}: fed, moved, cast and returned as onnxruntime-node does it, 1 and 2 threads`, async () => {
    const bytes = movementModel(type);
    const want = await runOrt(bytes, type);
    for (const numThreads of [1, 2]) {
      const session = await InferenceSession.create(bytes, { numThreads });
      try {
        assert.equal(session.inputMetadata[0].type, type);
        const got = await session.run(feedsOf(type, Tensor));
        for (const [name, w] of Object.entries(want)) {
          const g = got[name];
          assert.equal(g.type, w.type, `${name}: type`);
          assert.deepEqual(g.dims, w.dims, `${name}: dims`);
          assert.equal(g.data.constructor, w.data.constructor, `${name}: array class`);
          assert.deepEqual(bytesOf(g.data), bytesOf(w.data), `${type} ${name} (${numThreads} threads)`);
        }
      } finally {
        await session.release();
      }
    }
  });
}

test('a Float16Array feeds a float16 input where the engine has one; numbers need it', async (t) => {
  if (globalThis.Float16Array === undefined) {
    assert.throws(() => new Tensor('float16', [1, 2]), { code: 'InvalidArgument', message: /Uint16Array/ });
    t.skip('this Node has no Float16Array');
    return;
  }
  const session = await InferenceSession.create(movementModel('float16'));
  const halves = new globalThis.Float16Array([1, 2, 3, -1, 0.5, 65504]);
  const x = new Tensor('float16', new Uint16Array(6), [2, 3]);
  const out = await session.run({ x, c: new Tensor('float16', halves, [2, 3]) });
  assert.deepEqual(Array.from(out.as_f32.data), [1, 2, 3, -1, 0.5, 65504]);
  await session.release();
});

// uint64 computes in int64 where that is exact (Add: the same bits) and in loops of its own for
// division; Abs does neither and is refused, naming node and type, and the session stays usable.
test('an op that does not compute in a dtype names it, and the session stays usable', async () => {
  const bytes = opsetModel('abs_u64', [['Abs', ['x'], ['abs_u64']], ['Identity', ['x'], ['same']]],
    [value('x', 13, [3])], [value('abs_u64', 13, [3]), value('same', 13, [3])]);
  const session = await InferenceSession.create(bytes).catch((e) => e);
  if (session instanceof Error) {
    assert.equal(session.code, 'UnsupportedDtype');
    assert.match(session.message, /abs_u64.*uint64/);
    return;
  }
  const x = new Tensor('uint64', BigUint64Array.from([1n, 2n, 3n]), [3]);
  await assert.rejects(session.run({ x }), { code: 'UnsupportedDtype', message: /abs_u64.*uint64/ });
  await assert.rejects(session.run({ x: new Tensor('int16', Int16Array.from([1, 2, 3]), [3]) }),
    { code: 'InvalidInput', message: /'x'.*uint64/ });
  await assert.rejects(session.run({ x }), { code: 'UnsupportedDtype' });
  await session.release();
});

test('uint64 adds, compares and divides past 2^63 as uint64', async () => {
  const bytes = opsetModel('u64', [['Add', ['x', 'y'], ['sum']], ['Less', ['x', 'y'], ['less']],
    ['Div', ['x', 'y'], ['quotient']], ['Mod', ['x', 'y'], ['remainder']]],
  [value('x', 13, [2]), value('y', 13, [2])],
  [value('sum', 13, [2]), value('less', 9, [2]), value('quotient', 13, [2]), value('remainder', 13, [2])]);
  const session = await InferenceSession.create(bytes);
  const big = 2n ** 63n + 5n;
  const out = await session.run({
    x: new Tensor('uint64', BigUint64Array.from([big, 1n]), [2]),
    y: new Tensor('uint64', BigUint64Array.from([7n, big]), [2]),
  });
  assert.deepEqual(Array.from(out.sum.data), [big + 7n, big + 1n]);
  assert.deepEqual(Array.from(out.less.data, Boolean), [false, true]);
  assert.deepEqual(Array.from(out.quotient.data), [big / 7n, 0n]);
  assert.deepEqual(Array.from(out.remainder.data), [big % 7n, 1n]);
  await session.release();
});

test('typed arrays that do not match the type are refused', () => {
  assert.throws(() => new Tensor('int8', new Uint8Array(2), [2]), { code: 'InvalidArgument' });
  assert.throws(() => new Tensor('uint64', new BigInt64Array(2), [2]), { code: 'InvalidArgument' });
  assert.throws(() => new Tensor('float16', new Float32Array(2), [2]), { code: 'InvalidArgument' });
  const u64 = new Tensor('uint64', [1, 2 ** 53], [2]);
  assert.deepEqual(Array.from(u64.data), [1n, 2n ** 53n]);
  const f64 = new Tensor('float64', [0.1, 2], [2]);
  assert.ok(f64.data instanceof Float64Array);
});
