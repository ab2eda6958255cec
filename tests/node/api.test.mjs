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
