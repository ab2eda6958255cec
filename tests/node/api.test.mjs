// The public API: creation from every source kind, metadata, outputs, plan cache counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor, supportedOps } from '../../js/index.mjs';
import { modelPath, relativeMaxError, seededFloats } from './helpers.mjs';

const tinyPath = modelPath('testdata/tiny_conv.onnx');

test('create from path, file URL, Uint8Array and ArrayBuffer', async () => {
  const bytes = await readFile(tinyPath);
  const sources = [tinyPath, pathToFileURL(tinyPath), new Uint8Array(bytes),
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)];
  for (const source of sources) {
    const s = await InferenceSession.create(source);
    assert.deepEqual(s.inputMetadata, [{ name: 'x', type: 'float32', dims: ['N', 2, 5, 5] }]);
    await s.release();
  }
});

test('tiny conv matches onnxruntime-node; one plan per input shape', async () => {
  const session = await InferenceSession.create(tinyPath);
  const ref = await ort.InferenceSession.create(tinyPath);
  for (const n of [1, 3, 1, 2, 3]) {
    const data = seededFloats(n * 50, n);
    const out = await session.run({ x: new Tensor('float32', data, [n, 2, 5, 5]) });
    const want = await ref.run({ x: new ort.Tensor('float32', data, [n, 2, 5, 5]) });
    assert.deepEqual(out.y.dims, [n, 4, 5, 5]);
    assert.equal(out.y.type, 'float32');
    assert.ok(out.y.data instanceof Float32Array);
    assert.ok(relativeMaxError(out.y.data, want.y.data) <= 1e-5);
  }
  assert.equal(session.stats.plansBuilt, 3);
  assert.equal(session.stats.planCacheHits, 2);
  const { planMs } = session.stats;  // the cached plan's build time, kept with it
  assert.ok(Number.isFinite(planMs) && planMs >= 0, `planMs ${planMs}`);
  await session.release();
});

test('supportedOps lists the registry', async () => {
  const ops = await supportedOps();
  for (const op of ['Conv', 'Relu', 'Gemm', 'Reshape', 'Concat']) assert.ok(ops.includes(op), op);
});

test('names and metadata stay readable after release(), as before', async () => {
  const session = await InferenceSession.create(modelPath('testdata/tiny_conv.onnx'));
  await session.release();
  assert.deepEqual(session.inputNames, ['x']);
  assert.deepEqual(session.outputNames, ['y']);
  assert.equal(session.outputMetadata[0].name, 'y');
});

// y = Relu(x); z = x @ w, with w [5, 2]: z fails to plan for x [.., 4], as it does in
// onnxruntime-node. Fetching y alone runs only Relu, and succeeds.
test('run(feeds, { outputs }) computes only the outputs named, and checks the names', async () => {
  const { onnxJsonToOnnx } = await import('../../js/convert.mjs');
  const vi = (name, dims) => ({ name, type: { tensorType: { elemType: 1, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: String(d) })) } } } });
  const bytes = onnxJsonToOnnx({
    irVersion: '8', opsetImport: [{ domain: '', version: '13' }],
    graph: {
      name: 'g',
      node: [{ opType: 'Relu', input: ['x'], output: ['y'] }, { opType: 'MatMul', input: ['x', 'w'], output: ['z'], name: 'wide' }],
      initializer: [{ name: 'w', dims: ['5', '2'], dataType: 1, floatData: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }],
      input: [vi('x', ['N', 'K'])],
      output: [vi('y', ['N', 'K']), vi('z', ['N', 2])],
    },
  });
  for (const worker of [false, true]) {
    const session = await InferenceSession.create(bytes, { worker });
    const x = new Tensor('float32', Float32Array.from([-1, 2, -3, 4, 5, -6, 7, -8]), [2, 4]);
    await assert.rejects(session.run({ x }), (e) => e.code === 'ShapeMismatch' || /wide/.test(e.message));
    const some = await session.run({ x }, { outputs: ['y'] });
    assert.deepEqual(Object.keys(some), ['y']);
    assert.deepEqual(Array.from(some.y.data), [0, 2, 0, 4, 5, 0, 7, 0]);
    assert.equal(session.stats.runSteps, 1);
    const x5 = new Tensor('float32', Float32Array.from({ length: 10 }, (_, i) => i - 4), [2, 5]);
    const both = await session.run({ x: x5 }, { outputs: ['z', 'y'] });
    assert.deepEqual(Object.keys(both).sort(), ['y', 'z']);
    const ref = await ort.InferenceSession.create(bytes);
    const want = await ref.run({ x: new ort.Tensor('float32', x5.data, [2, 5]) });
    assert.deepEqual(Array.from(both.z.data), Array.from(want.z.data));
    await assert.rejects(session.run({ x }, { outputs: ['nope'] }), (e) => e.code === 'InvalidArgument' && /'nope'/.test(e.message));
    await assert.rejects(session.run({ x }, { outputs: 'y' }), (e) => e.code === 'InvalidArgument');
    await session.release();
    await ref.release();
  }
});

test('freeDimensionOverrides: the symbol\'s size is declared, checked, and the model is planned by create()', async () => {
  const session = await InferenceSession.create(tinyPath, { freeDimensionOverrides: { N: 3 } });
  assert.deepEqual(session.inputMetadata, [{ name: 'x', type: 'float32', dims: [3, 2, 5, 5] }]);
  assert.equal(session.stats.plansBuilt, 1);  // before any run
  const out = await session.run({ x: new Tensor('float32', seededFloats(150, 3), [3, 2, 5, 5]) });
  assert.deepEqual(out.y.dims, [3, 4, 5, 5]);
  assert.equal(session.stats.plansBuilt, 1);
  await assert.rejects(session.run({ x: new Tensor('float32', seededFloats(50, 1), [1, 2, 5, 5]) }),
    (e) => e.code === 'ShapeMismatch' && /dimension 0/.test(e.message));
  await assert.rejects(InferenceSession.create(tinyPath, { freeDimensionOverrides: { N: -2 } }),
    (e) => e.code === 'InvalidArgument' && /freeDimensionOverrides\.N/.test(e.message));
  await session.release();
});
