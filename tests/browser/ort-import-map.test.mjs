// The third way to swap onnxruntime-web for webnx (README): an import map, no bundler. A plain
// page maps 'onnxruntime-web' to webnx/ort's module and uses it as onnxruntime-web's docs do;
// its output is onnxruntime-node's on the same input, within 1e-4 relative.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ort from 'onnxruntime-node';
import { openPage, sharedBrowser } from './helpers.mjs';
import { modelPath } from '../node/helpers.mjs';

const shared = sharedBrowser();
const input = () => Float32Array.from({ length: 2 * 2 * 5 * 5 }, (_, i) => Math.sin(i));

test('an import map naming webnx/ort for onnxruntime-web runs a model as onnxruntime-node does', async () => {
  const page = await openPage(shared.browser, `${shared.server.url}/web/style.css`);
  try {
    await page.setContent(`<!doctype html>
<script type="importmap">{ "imports": { "onnxruntime-web": "${shared.server.url}/js/ort.mjs" } }</script>
<script type="module">
import * as ort from 'onnxruntime-web';
try {
  ort.env.wasm.numThreads = 1;
  const session = await ort.InferenceSession.create('${shared.server.url}/models/testdata/tiny_conv.onnx');
  const x = new ort.Tensor('float32', (${input.toString()})(), [2, 2, 5, 5]);
  const out = await session.run({ [session.inputNames[0]]: x });
  const y = out[session.outputNames[0]];
  window.result = { dims: y.dims, data: Array.from(y.data) };
} catch (e) {
  window.result = { error: e.message };
}
</script>`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 60_000 });
    const got = await page.evaluate(() => window.result);
    assert.equal(got.error, undefined, got.error);
    const reference = await ort.InferenceSession.create(modelPath('testdata/tiny_conv.onnx'));
    const want = (await reference.run({ x: new ort.Tensor('float32', input(), [2, 2, 5, 5]) })).y;
    assert.deepEqual(got.dims, want.dims);
    const scale = Math.max(...Array.from(want.data, Math.abs));
    want.data.forEach((v, i) => assert.ok(Math.abs(got.data[i] - v) <= 1e-4 * scale, `element ${i}: ${got.data[i]} vs ${v}`));
  } finally {
    await page.close();
  }
});
