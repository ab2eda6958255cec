// Models in the shape of those web apps ship beyond the image zoo (scripts/gen_field_models.py):
// a streaming voice-activity detector (If on the sample rate around Conv1d + LSTM, its state
// fed back every chunk), stacked and bidirectional recurrent layers, a scripted Loop, a UNet-style
// ConvTranspose decoder and a video Conv3d net. Every output matches onnxruntime-node on the same
// seeded input (max |webnx - ort| / max |ort| <= 1e-4), and an LSTM streamed one step per run,
// its state carried by the caller, equals one run over the whole sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { modelPath, relativeMaxError, seededFloats } from './helpers.mjs';

const TOLERANCE = 1e-4;

function requireModel(name) {
  const path = modelPath(`field/${name}.onnx`);
  assert.ok(existsSync(path), `${path} is missing: run scripts/gen_field_models.py (make models)`);
  return path;
}

function sizeOf(dims) {
  return dims.reduce((a, b) => a * b, 1);
}

// The same feeds for both runtimes: { name: [dtype, dims, data] }.
function feedsFor(spec, TensorClass) {
  const feeds = {};
  for (const [name, [dtype, dims, data]] of Object.entries(spec)) feeds[name] = new TensorClass(dtype, data, dims);
  return feeds;
}

async function compare(session, ref, spec, label) {
  const got = await session.run(feedsFor(spec, Tensor));
  const want = await ref.run(feedsFor(spec, ort.Tensor));
  for (const name of ref.outputNames) {
    assert.deepEqual(got[name].dims, want[name].dims, `${label}: '${name}' dims`);
    const err = relativeMaxError(got[name].data, want[name].data);
    assert.ok(err <= TOLERANCE, `${label}: '${name}' differs from onnxruntime-node by ${err}`);
  }
  return { got, want };
}

async function open(name) {
  const path = requireModel(name);
  return [await InferenceSession.create(path), await ort.InferenceSession.create(path, { intraOpNumThreads: 1 })];
}

test('vad.onnx: 10 streamed chunks at 16 kHz then 8 kHz match onnxruntime-node, one plan per rate', async () => {
  const [session, ref] = await open('vad');
  for (const [rate, samples] of [[16000, 512], [8000, 256]]) {
    let h = new Float32Array(32);
    let c = new Float32Array(32);
    for (let chunk = 0; chunk < 10; ++chunk) {
      const spec = {
        x: ['float32', [1, samples], seededFloats(samples, rate + chunk)],
        h: ['float32', [1, 1, 32], h],
        c: ['float32', [1, 1, 32], c],
        sr: ['int64', [], BigInt64Array.from([BigInt(rate)])],
      };
      const { want } = await compare(session, ref, spec, `${rate} Hz chunk ${chunk}`);
      h = want.hn.data; // both runtimes carry the same state on
      c = want.cn.data;
    }
  }
  assert.equal(session.stats.plansBuilt, 2, 'one plan per sample rate (the If folds to its branch)');
  await session.release();
});

test('lstm2.onnx: matches onnxruntime-node, and 100 steps streamed equal one run over them', async () => {
  const [session, ref] = await open('lstm2');
  const steps = 100;
  const x = seededFloats(steps * 64, 77);
  const zeros = new Float32Array(2 * 128);
  const { got } = await compare(session, ref, {
    x: ['float32', [steps, 1, 64], x], h0: ['float32', [2, 1, 128], zeros], c0: ['float32', [2, 1, 128], zeros],
  }, 'whole sequence');
  const whole = Float32Array.from(got.y.data);
  const wholeH = Float32Array.from(got.hn.data);
  let h = zeros;
  let c = zeros;
  const streamed = new Float32Array(steps * 128);
  for (let t = 0; t < steps; ++t) {
    const out = await session.run({
      x: new Tensor('float32', x.subarray(t * 64, (t + 1) * 64), [1, 1, 64]),
      h0: new Tensor('float32', h, [2, 1, 128]),
      c0: new Tensor('float32', c, [2, 1, 128]),
    });
    streamed.set(out.y.data, t * 128);
    h = Float32Array.from(out.hn.data);
    c = Float32Array.from(out.cn.data);
  }
  assert.ok(relativeMaxError(streamed, whole) <= 1e-6, `streamed y differs by ${relativeMaxError(streamed, whole)}`);
  assert.ok(relativeMaxError(h, wholeH) <= 1e-6, 'streamed final state differs');
  await session.release();
});

for (const [name, spec] of [
  ['gru_bi', { x: ['float32', [1, 30, 40], seededFloats(30 * 40, 5)] }],
  ['decoder', { z: ['float32', [2, 64, 16, 16], seededFloats(2 * 64 * 256, 6)] }],
  ['recurrence', { x: ['float32', [12, 16], seededFloats(12 * 16, 7)] }],
  ['video', { clip: ['float32', [2, 3, 8, 32, 32], seededFloats(2 * 3 * 8 * 1024, 8)] }],
]) {
  test(`${name}.onnx matches onnxruntime-node`, async () => {
    const [session, ref] = await open(name);
    await compare(session, ref, spec, name);
    // A second shape where the model has a dynamic axis.
    const [input, [dtype, dims]] = Object.entries(spec)[0];
    const other = dims.slice();
    other[name === 'recurrence' ? 0 : name === 'gru_bi' ? 1 : 0] += 3;
    await compare(session, ref, { [input]: [dtype, other, seededFloats(sizeOf(other), 9)] }, `${name} at ${other}`);
    await session.release();
  });
}
