// Every zoo model (static, and dynamic-batch at batch 1 and 3) against onnxruntime-node on the
// same seeded input: max |webnx - ort| / max |ort| <= 1e-4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { modelPath, relativeMaxError, seededFloats } from './helpers.mjs';

const ZOO = ['mobilenet_v2', 'mobilenet_v3_small', 'mobilenet_v3_large', 'resnet18', 'squeezenet1_1',
  'efficientnet_b0', 'shufflenet_v2_x1_0'];
const TOLERANCE = 1e-4;

const cases = [];
for (const name of ZOO) {
  cases.push({ file: `${name}.onnx`, batches: [1] });
  cases.push({ file: `${name}_dyn.onnx`, batches: [1, 3] });
}

for (const { file, batches } of cases) {
  test(`${file} matches onnxruntime-node at batch ${batches.join(' and ')}`, async () => {
    const path = modelPath(file);
    assert.ok(existsSync(path), `${path} is missing: run make models`);
    const session = await InferenceSession.create(path);
    const ref = await ort.InferenceSession.create(path, { intraOpNumThreads: 1 });
    for (const n of batches) {
      const dims = [n, 3, 224, 224];
      const data = seededFloats(n * 3 * 224 * 224, 1234 + n);
      const feeds = { [session.inputNames[0]]: new Tensor('float32', data, dims) };
      const out = (await session.run(feeds))[session.outputNames[0]];
      const want = (await ref.run({ [ref.inputNames[0]]: new ort.Tensor('float32', data, dims) }))[ref.outputNames[0]];
      assert.deepEqual(out.dims, want.dims);
      const err = relativeMaxError(out.data, want.data);
      console.log(`${file} batch ${n}: relative max error ${err.toExponential(2)}`);
      assert.ok(err <= TOLERANCE, `${file} batch ${n}: error ${err} > ${TOLERANCE}`);
    }
    await session.release();
    await ref.release();
  });
}
