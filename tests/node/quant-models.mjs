// Models and comparisons the quantization tests share: ONNX graphs built from node lists, seeded
// integer and float data, and a comparison with onnxruntime-node on the same model and input over
// a batch order (3, 1, 3) with 1 and 2 threads.
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';

export const CODE = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, float16: 10 };
export const ARRAY = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array, int32: Int32Array };
export const RANGE = { uint8: [0, 255], int8: [-128, 127], uint16: [0, 65535], int16: [-32768, 32767] };

export const shape = (dims) => ({ dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: String(d) })) });
export const vi = (name, type, dims) => ({ name, type: { tensorType: { elemType: CODE[type], shape: shape(dims) } } });
export const ints = (name, list) => ({ name, type: 'INTS', ints: list.map(String) });
export const int = (name, v) => ({ name, type: 'INT', i: String(v) });

export function initializer(name, type, dims, values) {
  const a = ARRAY[type].from(values);
  return { name, dims: dims.map(String), dataType: CODE[type], rawData: Buffer.from(a.buffer).toString('base64') };
}

export function modelOf({ nodes, inputs, outputs, initializers = [], opset = 21 }) {
  return onnxJsonToOnnx({
    irVersion: '9',
    opsetImport: [{ version: String(opset) }],
    graph: {
      name: 'q',
      node: nodes.map(([opType, input, output, attribute = []], k) => ({ opType, input, output, name: `n${k}_${opType}`, attribute })),
      initializer: initializers,
      input: inputs.map(([n, t, d]) => vi(n, t, d)),
      output: outputs.map(([n, t, d]) => vi(n, t, d)),
    },
  });
}

export const ints8 = (rng, type, n) => Array.from({ length: n }, () => rng.int(...RANGE[type]));
export const floats = (rng, n, lo = -3, hi = 3) => Array.from({ length: n }, () => rng.float(lo, hi));

// Runs the model in onnxruntime-node and in webnx (batch order, threads) and compares output
// `name` with `check(got, want)`.
export async function compare(bytes, feedsFor, batches, check) {
  const ortSession = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
  const want = [];
  for (const b of batches) want.push(await ortSession.run(feedsFor(b, ort.Tensor)));
  await ortSession.release();
  for (const numThreads of [1, 2]) {
    const session = await InferenceSession.create(bytes, { numThreads });
    for (let k = 0; k < batches.length; k++) {
      const got = await session.run(feedsFor(batches[k], Tensor));
      for (const [name, w] of Object.entries(want[k])) {
        assert.deepEqual(got[name].dims, w.dims, `${name} dims`);
        assert.equal(got[name].type, w.type, `${name} type`);
        check(got[name].data, w.data, `${name}, batch ${batches[k]}, ${numThreads} threads`);
      }
    }
    await session.release();
  }
}

export function exact(got, want, what) {
  assert.deepEqual(Array.from(got), Array.from(want), what);
}
export function withinOne(got, want, what) {
  let off = 0;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(Number(got[i]) - Number(want[i]));
    assert.ok(d <= 1, `${what}: element ${i}: ${got[i]} vs ${want[i]}`);
    if (d) off++;
  }
  assert.ok(off <= Math.max(1, want.length / 100), `${what}: ${off} of ${want.length} off by one`);
}
export function relative(tol) {
  return (got, want, what) => {
    let scale = 0;
    for (const v of want) scale = Math.max(scale, Math.abs(v));
    for (let i = 0; i < want.length; i++) {
      assert.ok(Math.abs(got[i] - want[i]) <= tol * Math.max(1, scale), `${what}: element ${i}: ${got[i]} vs ${want[i]}`);
    }
  };
}

