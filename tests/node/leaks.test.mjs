// The wasm heap stays flat across many runs, failed loads and failed runs, and release() gives
// back everything a session held. Measured as malloc's in-use bytes (heapStats().used, from
// mallinfo), which is deterministic, never as time. Sessions use the single-threaded build
// (numThreads: 1) so that the heap measured is the one they allocate from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { getRuntime } from '../../js/runtime.mjs';
import { argmax, modelPath, repoRoot, seededFloats } from './helpers.mjs';

const digitsPath = path.join(repoRoot, 'examples/digits/digits_mobilenet.onnx');
const casesDir = path.join(repoRoot, 'tests/hostile/cases');
// Growth allowed after the first iteration: a leak of even a few bytes per iteration over
// thousands of iterations is far above it.
const BOUND = 1024;

async function used() {
  return (await getRuntime()).heapStats().used;
}

function digitsInput(n, seed) {
  return new Tensor('float32', seededFloats(n * 64, seed).map((v) => (v + 1) * 8), [n, 1, 8, 8]);
}

// Runs body(i) `count` times; returns in-use bytes after the first `warm` iterations (one of
// each kind a test rotates through, so one-time statics are in place) and after all.
async function measure(count, body, warm = 1) {
  for (let i = 0; i < warm; i++) await body(i);
  const first = await used();
  for (let i = warm; i < count; i++) await body(i);
  return { first, last: await used() };
}

function assertFlat(t, what, { first, last }) {
  t.diagnostic(`${what}: in-use heap ${first} bytes after the first iterations, ${last} after the last`);
  assert.ok(last - first <= BOUND, `${what}: the heap grew by ${last - first} bytes`);
}

async function expectRejects(promise) {
  try {
    await promise;
  } catch (e) {
    assert.equal(typeof e.code, 'string');
    return e.code;
  }
  assert.fail('expected an error');
}

test('10,000 runs of the digits model leave the heap flat', async (t) => {
  const session = await InferenceSession.create(digitsPath, { numThreads: 1 });
  const name = session.inputNames[0];
  const feeds = [digitsInput(1, 1), digitsInput(1, 2), digitsInput(4, 3)];
  const expected = [];
  for (const x of feeds) expected.push((await session.run({ [name]: x }))[session.outputNames[0]].data);
  const figures = await measure(10000, async (i) => {
    const out = await session.run({ [name]: feeds[i % 3] });
    if (i % 1000 === 0) assert.deepEqual(out[session.outputNames[0]].data, expected[i % 3]);
  }, feeds.length);
  assertFlat(t, 'digits x10000', figures);
  await session.release();
});

test('200 runs of MobileNetV2 leave the heap flat', async (t) => {
  const session = await InferenceSession.create(modelPath('mobilenet_v2.onnx'), { numThreads: 1 });
  const x = new Tensor('float32', seededFloats(3 * 224 * 224, 5), [1, 3, 224, 224]);
  const name = session.inputNames[0];
  const figures = await measure(200, () => session.run({ [name]: x }));
  assertFlat(t, 'mobilenet_v2 x200', figures);
  await session.release();
});

// The 1x1 convs' weights are packed over their own storage, which the model's bytes provide:
// no second copy, none beside the packed weights (2.2x the model before). Only the depthwise
// weights get a packed copy beside them (1.7% of the model). A fixed-shape model is planned
// while it loads: its first run adds only the feed, which the plan keeps until the next run
// (an output may alias it).
test('a MobileNetV2 session holds its weights once', async (t) => {
  const bytes = await readFile(modelPath('mobilenet_v2.onnx'));
  const before = await used();
  const session = await InferenceSession.create(bytes, { numThreads: 1 });
  t.after(() => session.release());
  const loaded = await used() - before;
  assert.equal(session.stats.plansBuilt, 1, 'create() made the plan');
  const name = session.inputNames[0];
  await session.run({ [name]: new Tensor('float32', seededFloats(3 * 224 * 224, 5), [1, 3, 224, 224]) });
  const running = await used() - before;
  const { packedInPlaceBytes, packedWeightBytes, activationBytes } = session.stats;
  t.diagnostic(`model ${bytes.length} bytes; in use after load ${loaded}, after the first run ` +
    `${running} (arena ${activationBytes}, packed in place ${packedInPlaceBytes}, beside ${packedWeightBytes})`);
  assert.equal(session.stats.planCacheHits, 1, 'the first run used it');
  const feedBytes = 3 * 224 * 224 * 4;
  assert.ok(running - loaded <= feedBytes + BOUND, `the first run allocated ${running - loaded} bytes`);
  assert.ok(packedInPlaceBytes >= bytes.length / 2, `packed in place: ${packedInPlaceBytes} bytes`);
  assert.ok(packedWeightBytes <= bytes.length * 0.02, `packed beside the weights: ${packedWeightBytes} bytes`);
  assert.ok(running <= bytes.length * 1.65, `a running session holds ${running} bytes`);
});

test('10,000 failed loads leave the heap flat', async (t) => {
  const digits = await readFile(digitsPath);
  const bad = [
    { bytes: digits.subarray(0, digits.length >> 1) },  // truncated: the parser fails
    { bytes: await readFile(path.join(casesDir, 'cycle.onnx')) },  // graph validation
    { bytes: await readFile(path.join(casesDir, 'constant_of_shape_2pow40.onnx')) },  // a limit
    { bytes: await readFile(path.join(casesDir, 'gather_index_out_of_range.onnx')) },  // a kernel
    { bytes: await readFile(path.join(casesDir, 'unknown_op.onnx')) },
    { bytes: digits, options: { limits: { maxNodes: 10 } } },  // the whole model, then a limit
    { bytes: digits, options: { limits: { maxNode: 10 } } },  // a bad option
  ];
  const figures = await measure(10000, async (i) => {
    const { bytes, options } = bad[i % bad.length];
    await expectRejects(InferenceSession.create(bytes, { numThreads: 1, ...options }));
  }, bad.length);
  assertFlat(t, 'failed loads x10000', figures);
});

test('failed runs leave the session working and the heap flat', async (t) => {
  const session = await InferenceSession.create(digitsPath, { numThreads: 1 });
  const name = session.inputNames[0];
  const good = digitsInput(2, 9);
  const expected = (await session.run({ [name]: good }))[session.outputNames[0]].data;
  const wrong = [
    { [name]: new Tensor('float32', new Float32Array(80), [1, 1, 10, 8]) },  // ShapeMismatch
    { [name]: new Tensor('int32', new Int32Array(64), [1, 1, 8, 8]) },  // InvalidInput
    { nope: good },  // unknown name
    {},  // missing input
  ];
  const figures = await measure(2000, async (i) => {
    await expectRejects(session.run(wrong[i % wrong.length]));
    const out = await session.run({ [name]: good });
    assert.deepEqual(out[session.outputNames[0]].data, expected);
  }, wrong.length);
  assertFlat(t, 'failed runs x2000', figures);
  await session.release();
});

test('release() frees everything the session held', async (t) => {
  const cycle = async () => {
    const session = await InferenceSession.create(digitsPath, { numThreads: 1, maxCachedPlans: 4 });
    const name = session.inputNames[0];
    for (const n of [1, 3, 8]) await session.run({ [name]: digitsInput(n, n) });  // three plans
    await expectRejects(session.run({ [name]: digitsInput(1, 1), extra: digitsInput(1, 1) }));
    await session.release();
  };
  await cycle();  // the first session also builds the registry and other one-time statics
  const before = await used();
  for (let i = 0; i < 20; i++) await cycle();
  const after = await used();
  t.diagnostic(`release: in-use heap ${before} bytes before create, ${after} after release (x20)`);
  assert.ok(after - before <= BOUND, `release left ${after - before} bytes behind`);
});

test('a session still classifies correctly after all of that', async () => {
  const heldout = JSON.parse(await readFile(path.join(repoRoot, 'examples/digits/heldout.json'), 'utf8'));
  const session = await InferenceSession.create(digitsPath, { numThreads: 1 });
  const image = Float32Array.from(heldout.images[0], (v) => v / 16);
  const out = await session.run({ [session.inputNames[0]]: new Tensor('float32', image, [1, 1, 8, 8]) });
  assert.equal(argmax(out[session.outputNames[0]].data), heldout.pytorch_predictions[0]);
  await session.release();
});
