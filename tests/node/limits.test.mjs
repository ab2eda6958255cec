// InferenceSession.create(src, { limits }): each limit is named in the error that exceeding it
// gives, bad limits are InvalidArgument, and a session whose plan exceeded one keeps working
// for inputs that fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { repoRoot } from './helpers.mjs';

const digitsPath = path.join(repoRoot, 'examples/digits/digits_mobilenet.onnx');

async function expectCode(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

const batch = (n) => new Tensor('float32', new Float32Array(n * 64).fill(0.5), [n, 1, 8, 8]);

test('load-time limits are named in the error', async () => {
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxNodes: 10 } }), 'MalformedModel',
    /the model has 43 nodes; the limit is 10 \(limits\.maxNodes\)/);
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxGraphDepth: 5 } }), 'MalformedModel',
    /limits\.maxGraphDepth/);
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxInitializerBytes: 1000 } }),
    'OutOfMemory', /limits\.maxInitializerBytes/);
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxStringLength: 2 } }), 'MalformedModel',
    /limits\.maxStringLength/);
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxRank: 1 } }), 'MalformedModel',
    /limits\.maxRank/);
  await expectCode(InferenceSession.create(digitsPath, { worker: true, limits: { maxNodes: 10 } }),
    'MalformedModel', /limits\.maxNodes/);
});

test('bad limits are InvalidArgument', async () => {
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxNode: 10 } }), 'InvalidArgument',
    /unknown limit 'maxNode'; the limits are maxRank, .*maxNodes/);
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxNodes: -1 } }), 'InvalidArgument',
    /limits\.maxNodes must be a non-negative integer/);
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxNodes: 1.5 } }), 'InvalidArgument');
  await expectCode(InferenceSession.create(digitsPath, { limits: { maxNodes: '10' } }), 'InvalidArgument');
  await expectCode(InferenceSession.create(digitsPath, { limits: 7 }), 'InvalidArgument', /must be an object/);
});

test('a plan over a limit fails, and the session keeps working for inputs that fit', async () => {
  for (const [limits, name] of [[{ maxArenaBytes: 200000 }, 'maxArenaBytes'],
    [{ maxTensorBytes: 60000 }, 'maxTensorBytes'], [{ maxTensorElements: 15000 }, 'maxTensorElements']]) {
    const session = await InferenceSession.create(digitsPath, { limits });
    const input = session.inputNames[0];
    await expectCode(session.run({ [input]: batch(64) }), 'OutOfMemory', new RegExp(`limits\\.${name}`));
    const out = await session.run({ [input]: batch(1) });
    assert.deepEqual(out[session.outputNames[0]].dims, [1, 10]);
    await expectCode(session.run({ [input]: batch(64) }), 'OutOfMemory');
    await session.release();
  }
});
