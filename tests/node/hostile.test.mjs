// The hostile-input corpus (tests/hostile, scripts/gen-hostile-corpus.py) through the wasm
// build: every case fails to load with exactly the code its manifest names, and the module
// that saw all of them still loads and runs a real model correctly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { argmax, repoRoot } from './helpers.mjs';

const hostileDir = path.join(repoRoot, 'tests/hostile');

test('every hostile case fails with its code', async () => {
  const expected = JSON.parse(await readFile(path.join(hostileDir, 'expected.json'), 'utf8'));
  const names = Object.keys(expected);
  assert.ok(names.length >= 50, `only ${names.length} cases`);
  const wrong = [];
  for (const name of names) {
    for (const numThreads of [1, undefined]) {  // both builds
      try {
        const session = await InferenceSession.create(path.join(hostileDir, 'cases', name), { numThreads });
        await session.release();
        wrong.push(`${name}: loaded, expected ${expected[name]}`);
      } catch (e) {
        if (e.code !== expected[name]) wrong.push(`${name}: ${e.code} (${e.message}), expected ${expected[name]}`);
        else assert.ok(e.message.length > e.code.length + 2, `${name}: no message`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('after the hostile corpus the module still runs the digits model correctly', async () => {
  const digits = path.join(repoRoot, 'examples/digits');
  const heldout = JSON.parse(await readFile(path.join(digits, 'heldout.json'), 'utf8'));
  for (const numThreads of [1, undefined]) {
    const session = await InferenceSession.create(path.join(digits, 'digits_mobilenet.onnx'), { numThreads });
    const count = heldout.images.length;
    const batch = new Float32Array(count * 64);
    heldout.images.forEach((img, i) => img.forEach((v, j) => { batch[i * 64 + j] = v / 16; }));
    const out = await session.run({ [session.inputNames[0]]: new Tensor('float32', batch, [count, 1, 8, 8]) });
    const logits = out[session.outputNames[0]].data;
    for (let i = 0; i < count; i++) assert.equal(argmax(logits, i * 10, 10), heldout.pytorch_predictions[i], `sample ${i}`);
    await session.release();
  }
});

test('a Tensor changed after it was made is InvalidInput, never a write past its buffer', async () => {
  const session = await InferenceSession.create(path.join(repoRoot, 'examples/digits/digits_mobilenet.onnx'));
  const name = session.inputNames[0];
  const make = () => new Tensor('float32', new Float32Array(64 * 4), [4, 1, 8, 8]);
  const changes = [
    (t) => { t.dims = [1, 1, 8, 8]; },  // dims smaller than the data
    (t) => { t.dims = [NaN, 1, 8, 8]; },
    (t) => { t.dims = [-4, 1, 8, 8]; },
    (t) => { t.type = 'int64'; },  // 8-byte elements over 4-byte data
    (t) => { t.data = [1, 2, 3]; },
  ];
  for (const change of changes) {
    const t = make();
    change(t);
    await assert.rejects(session.run({ [name]: t }), (e) => e.code === 'InvalidInput');
  }
  const out = await session.run({ [name]: make() });
  assert.deepEqual(out[session.outputNames[0]].dims, [4, 10]);
  await session.release();
});
