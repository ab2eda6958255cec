// Threads in Chromium: a cross-origin-isolated page loads the threaded build; a page without
// COOP/COEP falls back to the single-threaded one and warns once, saying why.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, listen, REPO_MOUNTS } from '../../scripts/serve.mjs';
import { launchBrowser, openPage, screenshot } from './helpers.mjs';

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

async function results(url) {
  const page = await openPage(browser, url);
  const warnings = [];
  page.on('console', (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); });
  await page.waitForFunction(() => /done|error/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  const status = await page.textContent('#status');
  const rows = await page.evaluate(() => window.threadResults);
  return { page, status, rows, warnings };
}

test('isolated page: numThreads 2 loads webnx-mt with the same output', async () => {
  const base = await serve(true);
  const { page, status, rows } = await results(`${base}/web/threads.html?model=/models/mobilenet_v2.onnx&runs=8`);
  assert.equal(status, 'done');
  assert.equal(await page.textContent('#isolated'), 'true');
  assert.deepEqual(rows.map((r) => r.backend), ['wasm', 'wasm-mt']);
  assert.deepEqual(rows[1].first, rows[0].first);
  console.log(`Chromium mobilenet_v2: 1 thread ${rows[0].median.toFixed(2)} ms, 2 threads ${rows[1].median.toFixed(2)} ms`);
  await screenshot(page, 'threads-isolated');
  assert.deepEqual(page.problems, []);
});

test('page without COOP/COEP: single-threaded build and one warning with the reason', async () => {
  const base = await serve(false);
  const { page, status, rows, warnings } = await results(`${base}/web/threads.html?model=/examples/digits/digits_mobilenet.onnx&runs=3`);
  assert.equal(status, 'done');
  assert.equal(await page.textContent('#isolated'), 'false');
  assert.deepEqual(rows.map((r) => r.backend), ['wasm', 'wasm']);
  const why = warnings.filter((w) => /cross-origin isolated/.test(w));
  assert.equal(why.length, 1, `warnings: ${JSON.stringify(warnings)}`);
  await screenshot(page, 'threads-not-isolated');
});
