// The trained demo model classifies the held-out split in wasm exactly as PyTorch did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { argmax, repoRoot } from './helpers.mjs';

const digitsDir = path.join(repoRoot, 'examples/digits');

test('digits model: held-out predictions equal PyTorch\'s', async () => {
  const heldout = JSON.parse(await readFile(path.join(digitsDir, 'heldout.json'), 'utf8'));
  const session = await InferenceSession.create(path.join(digitsDir, 'digits_mobilenet.onnx'));
  const count = heldout.images.length;
  const batch = new Float32Array(count * 64);
  heldout.images.forEach((img, i) => img.forEach((v, j) => { batch[i * 64 + j] = v / 16; }));
  const out = await session.run({ [session.inputNames[0]]: new Tensor('float32', batch, [count, 1, 8, 8]) });
  const logits = out[session.outputNames[0]].data;
  let correct = 0;
  for (let i = 0; i < count; i++) {
    const predicted = argmax(logits, i * 10, 10);
    assert.equal(predicted, heldout.pytorch_predictions[i], `sample ${i}`);
    if (predicted === heldout.labels[i]) correct++;
  }
  const accuracy = correct / count;
  assert.equal(accuracy, heldout.pytorch_accuracy);
  assert.ok(accuracy >= 0.95, `accuracy ${accuracy}`);
  // Batch 1 gives the same answers as the batched run.
  for (let i = 0; i < count; i += 37) {
    const one = await session.run({ [session.inputNames[0]]: new Tensor('float32', batch.subarray(i * 64, i * 64 + 64), [1, 1, 8, 8]) });
    assert.equal(argmax(one[session.outputNames[0]].data), heldout.pytorch_predictions[i]);
  }
  await session.release();
});
