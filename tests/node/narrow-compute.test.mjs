// Arithmetic, comparisons, reductions and bit operations on int8, uint8, int16, uint16, uint32
// and float16 (computed widened inside webnx) against onnxruntime-node on the same model and
// inputs. Where onnxruntime has no kernel for the type, its oracle is the same op on the inputs
// cast (by onnxruntime) to int32 / int64 / float32 and the result cast back, which is what the
// spec's wrap-around integer and round-once float16 semantics give. One session per case sees
// batch 3, then 1, then 3 again, with 1 and 2 threads, and each run equals a fresh session's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { Rng } from '../fuzz-diff/generator.mjs';

const TYPES = {
  int8: { code: 3, array: Int8Array, wide: 6, lo: -128, hi: 127 },
  uint8: { code: 2, array: Uint8Array, wide: 6, lo: 0, hi: 255 },
  int16: { code: 5, array: Int16Array, wide: 6, lo: -32768, hi: 32767 },
  uint16: { code: 4, array: Uint16Array, wide: 6, lo: 0, hi: 65535 },
  uint32: { code: 12, array: Uint32Array, wide: 7, lo: 0, hi: 4294967295 },
  float16: { code: 10, array: Uint16Array, wide: 1 },
};

// op -> { types it is defined for, output 'same' or 'bool', extra attributes/inputs }
const SIGNED = ['int8', 'int16', 'float16'];
const ALL = Object.keys(TYPES);
const INTS = ALL.filter((t) => t !== 'float16');
const CASES = [
  { op: 'Add', types: ALL }, { op: 'Sub', types: ALL }, { op: 'Mul', types: ALL },
  { op: 'Div', types: ALL, nonZeroB: true },
  { op: 'Min', types: ALL }, { op: 'Max', types: ALL }, { op: 'Sum', types: ['float16'] },
  { op: 'Less', types: ALL, bool: true }, { op: 'Greater', types: ALL, bool: true },
  { op: 'Equal', types: ALL, bool: true }, { op: 'GreaterOrEqual', types: ALL, bool: true },
  { op: 'Mod', types: INTS, nonZeroB: true }, { op: 'Mod', types: ['float16'], nonZeroB: true, attrs: { fmod: 1 } },
  { op: 'BitwiseAnd', types: INTS }, { op: 'BitwiseXor', types: INTS },
  { op: 'Abs', types: ALL, unary: true }, { op: 'Neg', types: SIGNED, unary: true },
  { op: 'Relu', types: ['int8', 'float16'], unary: true }, { op: 'Sigmoid', types: ['float16'], unary: true },
  { op: 'BitwiseNot', types: INTS, unary: true },
  { op: 'ReduceSum', types: ALL, unary: true, axes: [2] },
  { op: 'ReduceMax', types: ALL, unary: true, axes: [1] },
  { op: 'ReduceMin', types: ALL, unary: true, axes: [2] },
  { op: 'Clip', types: ALL, clip: true },
];

// float32 -> IEEE half bits (round to nearest even) for building inputs: via a DataView trip
// through Float32 bits, independent of the C++ code under test.
function halfBits(f) {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, f);
  const x = view.getUint32(0);
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  const mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) return sign;  // inputs here stay normal
  let h = sign | (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h += 1;
  return h;
}

function values(type, n, rng, nonZero) {
  const t = TYPES[type];
  return Array.from({ length: n }, () => {
    if (type === 'float16') {
      const v = rng.float(-8, 8);
      return halfBits(nonZero && Math.abs(v) < 0.25 ? 1.5 : v);
    }
    let v = rng.chance(0.2) ? rng.pick([t.lo, t.hi, 0, 1]) : Math.floor(rng.float(t.lo, t.hi + 1));
    if (nonZero && v === 0) v = 3;
    return v;
  });
}

const shapeOf = (dims) => ({ dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: String(d) })) });
const vi = (name, elemType, dims) => ({ name, type: { tensorType: { elemType, shape: shapeOf(dims) } } });
const attrOf = ([name, v]) => ({ name, type: 'INT', i: String(v) });

// The op on a: [N, 3, 4] and b: [3, 1] of `code` (or, with castTo, the same op on both cast to
// castTo and the result cast back: the oracle for types onnxruntime has no kernel for).
function model(c, code, castTo) {
  const nodes = [];
  const outCode = c.bool ? 9 : code;
  let a = 'a';
  let b = 'b';
  if (castTo) {
    nodes.push({ opType: 'Cast', input: ['a'], output: ['aw'], attribute: [attrOf(['to', castTo])] });
    nodes.push({ opType: 'Cast', input: ['b'], output: ['bw'], attribute: [attrOf(['to', castTo])] });
    a = 'aw';
    b = 'bw';
  }
  const out = castTo && !c.bool ? 'yw' : 'y';
  let opInputs = c.unary ? [a] : [a, b];
  if (c.axes) opInputs = [a, 'axes'];
  if (c.clip) {
    for (const [k, bound] of [[0, 'lo'], [1, 'hi']]) {
      nodes.push({ opType: 'Gather', input: [b, `i${k}`], output: [bound], attribute: [attrOf(['axis', 0])] });
    }
    opInputs = [a, 'lo', 'hi'];
  }
  const attribute = Object.entries(c.attrs ?? {}).map(attrOf);
  nodes.push({ opType: c.op, input: opInputs, output: [out], attribute });
  if (out === 'yw') nodes.push({ opType: 'Cast', input: ['yw'], output: ['y'], attribute: [attrOf(['to', code])] });
  const initializer = [
    { name: 'axes', dims: [String(c.axes?.length ?? 0)], dataType: 7, int64Data: (c.axes ?? []).map(String) },
    { name: 'i0', dims: [], dataType: 7, int64Data: ['0'] },
    { name: 'i1', dims: [], dataType: 7, int64Data: ['1'] },
  ];
  return onnxJsonToOnnx({
    irVersion: '8',
    opsetImport: [{ version: '18' }],
    graph: {
      name: c.op,
      node: nodes.map((n, k) => ({ ...n, name: `n${k}` })),
      initializer,
      input: [vi('a', code, ['N', 3, 4]), vi('b', code, c.clip ? [2] : [3, 1])],
      output: [vi('y', outCode, c.axes ? ['N', 3, 4].map((d, k) => (c.axes.includes(k) ? 1 : d)) : ['N', 3, 4])],
    },
  });
}

function feeds(c, type, batch, seed, T) {
  const rng = new Rng(seed);
  const t = TYPES[type];
  let b = values(type, c.clip ? 2 : 3, rng, c.nonZeroB);
  if (c.clip && type !== 'float16') b = b.slice().sort((x, y) => x - y);
  if (c.clip && type === 'float16') b = [halfBits(-2), halfBits(3)];
  return {
    a: new T(type, t.array.from(values(type, batch * 12, rng, false)), [batch, 3, 4]),
    b: new T(type, t.array.from(b), [c.clip ? 2 : 3].concat(c.clip ? [] : [1])),
  };
}

async function oracle(c, type, feedSets) {
  let session;
  let native = true;
  try {
    session = await ort.InferenceSession.create(model(c, TYPES[type].code), { logSeverityLevel: 4 });
  } catch {
    native = false;
    session = await ort.InferenceSession.create(model(c, TYPES[type].code, TYPES[type].wide),
      { logSeverityLevel: 4, graphOptimizationLevel: 'disabled' });
  }
  const results = [];
  for (const f of feedSets) results.push((await session.run(f)).y);
  await session.release();
  // onnxruntime 1.30 orders uint32 values as int32 in ReduceMax/ReduceMin over the int64 cast
  // of a [3, 3, 4] input (its Cast and ReduceMax are each right alone): these two are checked
  // against the reduction computed here.
  if (type === 'uint32' && (c.op === 'ReduceMax' || c.op === 'ReduceMin')) {
    return { native: false, results: feedSets.map((f) => reduceOver(f.a, c.axes[0], c.op === 'ReduceMax' ? Math.max : Math.min)) };
  }
  return { native, results };
}

// A rank-3 tensor reduced over `axis` (kept as 1), as a Tensor-like { dims, type, data }.
function reduceOver(a, axis, pick) {
  const dims = a.dims.slice();
  const strides = [dims[1] * dims[2], dims[2], 1];
  const outDims = dims.map((d, k) => (k === axis ? 1 : d));
  const out = new Uint32Array(outDims[0] * outDims[1] * outDims[2]);
  let o = 0;
  for (let i = 0; i < outDims[0]; i++) {
    for (let j = 0; j < outDims[1]; j++) {
      for (let k = 0; k < outDims[2]; k++) {
        const base = i * strides[0] + j * strides[1] + k * strides[2];
        let v = a.data[base];
        for (let r = 1; r < dims[axis]; r++) v = pick(v, a.data[base + r * strides[axis]]);
        out[o++] = v;
      }
    }
  }
  return { dims: outDims, type: a.type, data: out };
}

const bytes = (d) => Buffer.from(d.buffer, d.byteOffset, d.byteLength);
const batches = [3, 1, 3];
let nativeComparisons = 0;

for (const c of CASES) {
  for (const type of c.types) {
    const name = `${c.op}${c.attrs ? JSON.stringify(c.attrs) : ''} on ${type}`;
    test(`${name}: as onnxruntime-node computes it, batch 3 -> 1 -> 3, 1 and 2 threads`, async () => {
      const seeds = batches.map((b, k) => 1000 + k);
      const want = await oracle(c, type, batches.map((b, k) => feeds(c, type, b, seeds[k], ort.Tensor)));
      if (want.native) nativeComparisons++;
      const bytesOfModel = model(c, TYPES[type].code);
      for (const numThreads of [1, 2]) {
        const session = await InferenceSession.create(bytesOfModel, { numThreads });
        for (let k = 0; k < batches.length; k++) {
          const got = (await session.run(feeds(c, type, batches[k], seeds[k], Tensor))).y;
          const w = want.results[k];
          assert.deepEqual(got.dims, w.dims);
          assert.equal(got.type, w.type);
          assert.ok(bytes(got.data).equals(bytes(w.data)),
            `${name}, batch ${batches[k]}, ${numThreads} threads (${want.native ? 'native' : 'widened'} oracle): ` +
            `got ${Array.from(got.data).slice(0, 12)} want ${Array.from(w.data).slice(0, 12)}`);
          const fresh = await InferenceSession.create(bytesOfModel, { numThreads });
          const once = (await fresh.run(feeds(c, type, batches[k], seeds[k], Tensor))).y;
          assert.ok(bytes(once.data).equals(bytes(got.data)), `${name}: a fresh session agrees`);
          await fresh.release();
        }
        await session.release();
      }
    });
  }
}

test('onnxruntime had its own kernel for some of the cases above', () => {
  assert.ok(nativeComparisons >= 10, `only ${nativeComparisons} native comparisons`);
});
