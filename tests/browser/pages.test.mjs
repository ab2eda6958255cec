// The demo pages in web/, served by scripts/serve.mjs, each opened, used and checked, with a
// screenshot of each in build/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { openPage, repoRoot, screenshot, sharedBrowser } from './helpers.mjs';
import { digitToStrokes, drawWithMouse } from './digit-strokes.mjs';

const shared = sharedBrowser();

test('digits: held-out digits drawn as strokes reach the model unchanged and are classified', async () => {
  const heldout = JSON.parse(await readFile(path.join(repoRoot, 'examples/digits/heldout.json'), 'utf8'));
  const page = await openPage(shared.browser, `${shared.server.url}/web/digits.html`);
  try {
    await page.waitForSelector('body[data-state=ready]');
    await page.uncheck('#fit'); // draw at the dataset's own scale…
    await page.locator('#brush').fill('8'); // …with a pen one bitmap pixel wide
    // The first held-out image of four different digits.
    for (const label of [0, 3, 7, 9]) {
      const i = heldout.labels.indexOf(label);
      await page.click('#clear');
      const strokes = digitToStrokes(heldout.images[i]);
      await drawWithMouse(page, '#pad', strokes);
      const prediction = page.locator(`#prediction[data-strokes="${strokes.length}"]`);
      await prediction.waitFor();
      const seen = (await page.getAttribute('#seen', 'data-values')).split(',').map(Number);
      assert.deepEqual(seen, heldout.images[i], `held-out image ${i}: the page's 8x8 differs`);
      assert.equal(Number(await prediction.getAttribute('data-digit')), heldout.pytorch_predictions[i]);
      assert.equal(Number(await prediction.getAttribute('data-digit')), label);
    }
    // A hand-drawn 7 anywhere on the pad, fitted to the frame like the dataset's digits.
    await page.click('#clear');
    await page.check('#fit');
    await page.locator('#brush').fill('26');
    await drawWithMouse(page, '#pad', [[{ x: 80, y: 60 }, { x: 180, y: 60 }, { x: 120, y: 200 }]]);
    await page.locator('#prediction[data-strokes="1"]').waitFor();
    assert.equal(await page.getAttribute('#prediction', 'data-digit'), '7');
    assert.match(await page.textContent('#latency'), /inference \d+\.\d+ ms/);
    assert.equal(await page.locator('#top3 .bar').count(), 3);
    await screenshot(page, 'digits');
    assert.deepEqual(page.problems, []);
  } finally {
    await page.close();
  }
});

test('model lab: a zoo model in a Worker lists its ops, runs on an image and shows the per-op profile', async () => {
  const page = await openPage(shared.browser, `${shared.server.url}/web/lab.html`);
  try {
    await page.waitForSelector('body[data-state=ready]');
    await page.waitForFunction(() => document.querySelectorAll('#zoo option').length > 1);
    await page.selectOption('#zoo', 'mobilenet_v2.onnx');
    await page.check('#worker');
    await page.click('#load-zoo');
    await page.waitForSelector('body[data-model=loaded]');
    const ops = await page.textContent('#ops');
    for (const op of ['Conv', 'Clip', 'Add', 'GlobalAveragePool', 'Gemm']) assert.ok(ops.includes(op), op);
    assert.match(await page.textContent('#support'), /webnx runs this model.*in a Worker/);
    // Any picture will do as the image: a screenshot of the page itself.
    const png = await page.screenshot({ clip: { x: 0, y: 0, width: 400, height: 300 } });
    await page.setInputFiles('#image-file', { name: 'page.png', mimeType: 'image/png', buffer: png });
    await page.selectOption('#preset', 'imagenet');
    await page.waitForFunction(() => document.getElementById('source').value === 'image');
    await page.click('#run');
    await page.waitForSelector('#outputs[data-state=done]');
    assert.equal(await page.locator('#outputs .top5 .bar').count(), 5);
    assert.match(await page.textContent('#profile'), /Conv ×\d+/);
    assert.equal(await page.locator('#preview canvas').count(), 1);
    await screenshot(page, 'lab');
    assert.deepEqual(page.problems, []);
  } finally {
    await page.close();
  }
});

test('model lab: an unsupported model still lists its ops, and says which ones fail', async () => {
  const page = await openPage(shared.browser, `${shared.server.url}/web/lab.html`);
  try {
    await page.waitForSelector('body[data-state=ready]');
    await page.setInputFiles('#file', path.join(repoRoot, 'build/models/testdata/unknown_ops.onnx'));
    await page.waitForSelector('body[data-model=unsupported]');
    const ops = await page.textContent('#ops');
    for (const op of ['✗ FancyOp', '✗ com.example:Magic', 'Conv', 'Relu']) assert.ok(ops.includes(op), op);
    assert.match(await page.textContent('#load-error'), /UnsupportedOperator: 2 unsupported operators: FancyOp/);
    assert.ok(await page.locator('#run-panel').isHidden());
    await screenshot(page, 'lab-unsupported');
  } finally {
    await page.close();
  }
});

// The bench page with `threads` for both runtimes (default 1); returns its result rows.
async function benchRows(models, query, shot) {
  const page = await openPage(shared.browser,
    `${shared.server.url}/web/bench.html?models=${models.join(',')}&runs=3&warmup=1&autorun=1${query}`);
  try {
    await page.waitForSelector('body[data-state=done], body[data-state=error]', { timeout: 120_000 });
    assert.equal(await page.getAttribute('body', 'data-state'), 'done', await page.textContent('#status'));
    const rows = await page.$$eval('#results tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
    assert.deepEqual(rows.map((r) => r.model), models);
    for (const r of rows) {
      assert.ok(Number(r.webnxMs) > 0 && Number(r.ortMs) > 0, JSON.stringify(r));
      assert.ok(Math.abs(Number(r.ratio) - Number(r.webnxMs) / Number(r.ortMs)) < 1e-3);
      assert.ok(Number(r.maxDiff) <= 1e-4, `${r.model}: outputs differ by ${r.maxDiff}`);
    }
    await screenshot(page, shot);
    assert.deepEqual(page.problems, []);
    return rows;
  } finally {
    await page.close();
  }
}

test('bench: webnx and onnxruntime-web timed side by side in the page, one thread each', async () => {
  const rows = await benchRows(['mobilenet_v3_small', 'mobilenet_v2'], '', 'bench');
  assert.deepEqual(rows.map((r) => r.threads), ['1', '1']);
  assert.deepEqual(rows.map((r) => r.webnxBackend), ['wasm-relaxed', 'wasm-relaxed']);
});

test('bench: ?threads=2 gives both runtimes two threads', async () => {
  const rows = await benchRows(['mobilenet_v3_small'], '&threads=2', 'bench-2-threads');
  assert.deepEqual(rows.map((r) => r.threads), ['2']);
  assert.deepEqual(rows.map((r) => r.webnxBackend), ['wasm-relaxed-mt'], 'the threaded build did not load');
});
