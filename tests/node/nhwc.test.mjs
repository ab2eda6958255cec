// Models exported in NHWC (scripts/gen_nhwc_models.py: a Transpose before and after every conv
// and pool, as tf2onnx writes them) give the NCHW export's output, and webnx folds their
// transposes away at load (core/passes/fold_transposes.cc): at most two transpose steps are
// left per run (the input's layout change, and the pooled features' before the classifier).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { modelPath, relativeMaxError, seededFloats } from './helpers.mjs';

const TOLERANCE = 1e-4;  // max |webnx - ort| / max |ort|

// NCHW data [n, c, h, w] -> NHWC.
function toNhwc(data, [n, c, h, w]) {
  const out = new Float32Array(data.length);
  for (let b = 0; b < n; b++)
    for (let ch = 0; ch < c; ch++)
      for (let i = 0; i < h * w; i++) out[((b * h * w) + i) * c + ch] = data[(b * c + ch) * h * w + i];
  return out;
}

for (const name of ['mobilenet_v2', 'resnet18']) {
  test(`${name} exported in NHWC: the NCHW export's output, transposes folded away`, async () => {
    const nhwcPath = modelPath(`nhwc/${name}_nhwc.onnx`);
    assert.ok(existsSync(nhwcPath), `${nhwcPath} is missing: run make models`);
    const dims = [1, 3, 224, 224];
    const data = seededFloats(3 * 224 * 224, 77);
    const nhwcData = toNhwc(data, dims);
    const nchw = await InferenceSession.create(modelPath(`${name}.onnx`));
    const nhwc = await InferenceSession.create(nhwcPath);
    try {
      const want = (await nchw.run({ input: new Tensor('float32', data, dims) })).output.data;
      const got = await nhwc.run({ input: new Tensor('float32', nhwcData, [1, 224, 224, 3]) }, { profile: true });
      const ref = await ort.InferenceSession.create(nhwcPath);
      const oracle = (await ref.run({ input: new ort.Tensor('float32', nhwcData, [1, 224, 224, 3]) })).output.data;
      assert.ok(relativeMaxError(got.output.data, oracle) <= TOLERANCE, 'NHWC export vs onnxruntime-node');
      assert.ok(relativeMaxError(got.output.data, want) <= TOLERANCE, 'NHWC export vs NCHW export');
      const transposes = nhwc.lastProfile.filter((step) => step.op === 'Transpose').length;
      assert.ok(transposes <= 2, `${transposes} transpose steps left per run`);
      assert.equal(nhwc.stats.runSteps, nchw.stats.runSteps + transposes, 'the same steps as the NCHW export');
    } finally {
      await nchw.release();
      await nhwc.release();
    }
  });
}
