// Threads and SIMD builds in Chromium: a cross-origin-isolated page loads the threaded build; a
// page without COOP/COEP falls back to the single-threaded one and warns once, saying why.
// Chromium runs relaxed SIMD, so the relaxed builds load; a page whose engine lacks relaxed SIMD
// loads the plain ones, chosen by the feature test, without fetching a relaxed .wasm.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, listen, REPO_MOUNTS } from '../../scripts/serve.mjs';
import { WITHOUT_RELAXED_SIMD, launchBrowser, openPage, screenshot } from './helpers.mjs';

let browser;
const servers = [];

async function serve(isolated) {
  const { server, url } = await listen(createServer(REPO_MOUNTS, { isolated }));
  servers.push(server);
  return url;
}

before(async () => { browser = await launchBrowser(); });
after(async () => {
  await browser?.close();
  for (const s of servers) { s.closeAllConnections?.(); s.close(); }
});

async function results(url, options) {
  const page = await openPage(browser, url, options);
  const warnings = [];
  const wasm = [];
  page.on('console', (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); });
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url().split('/').pop()); });
  await page.waitForFunction(() => /done|error/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  const status = await page.textContent('#status');
  const rows = await page.evaluate(() => window.threadResults);
  return { page, status, rows, warnings, wasm };
}

let relaxedFirst;  // the relaxed build's first outputs, for the plain build's test

test('isolated page: numThreads 2 loads webnx-relaxed-mt with the same output', async () => {
  const base = await serve(true);
  const { page, status, rows, wasm } = await results(`${base}/web/threads.html?model=/models/mobilenet_v2.onnx&runs=8`);
  assert.equal(status, 'done');
  assert.equal(await page.textContent('#isolated'), 'true');
  assert.deepEqual(rows.map((r) => r.backend), ['wasm-relaxed', 'wasm-relaxed-mt']);
  assert.deepEqual(wasm.filter((f) => !f.includes('relaxed')), [], 'a plain build was fetched too');
  assert.deepEqual(rows[1].first, rows[0].first);
  relaxedFirst = rows[0].first;
  console.log(`Chromium mobilenet_v2 (relaxed): 1 thread ${rows[0].median.toFixed(2)} ms, 2 threads ${rows[1].median.toFixed(2)} ms`);
  await screenshot(page, 'threads-isolated');
  assert.deepEqual(page.problems, []);
});

test('an engine without relaxed SIMD loads the plain builds (never fetching a relaxed one), the same outputs within 1e-4', async () => {
  const base = await serve(true);
  const { page, status, rows, wasm } = await results(`${base}/web/threads.html?model=/models/mobilenet_v2.onnx&runs=3`,
    { initScript: WITHOUT_RELAXED_SIMD });
  assert.equal(status, 'done');
  assert.deepEqual(rows.map((r) => r.backend), ['wasm', 'wasm-mt']);
  assert.deepEqual(wasm.filter((f) => f.includes('relaxed')), [], 'a relaxed build was fetched');
  assert.deepEqual(rows[1].first, rows[0].first);
  const scale = Math.max(...relaxedFirst.map(Math.abs));
  rows[0].first.forEach((v, i) => assert.ok(Math.abs(v - relaxedFirst[i]) <= 1e-4 * scale, `output ${i}: ${v} vs ${relaxedFirst[i]}`));
  assert.deepEqual(page.problems, []);
});

test('page without COOP/COEP: single-threaded build and one warning with the reason', async () => {
  const base = await serve(false);
  const { page, status, rows, warnings } = await results(`${base}/web/threads.html?model=/examples/digits/digits_mobilenet.onnx&runs=3`);
  assert.equal(status, 'done');
  assert.equal(await page.textContent('#isolated'), 'false');
  assert.deepEqual(rows.map((r) => r.backend), ['wasm-relaxed', 'wasm-relaxed']);
  const why = warnings.filter((w) => /cross-origin isolated/.test(w));
  assert.equal(why.length, 1, `warnings: ${JSON.stringify(warnings)}`);
  await screenshot(page, 'threads-not-isolated');
});
