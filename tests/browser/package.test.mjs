// The npm tarball as an app developer meets it: installed into a fresh project, then used from
// Node, from a Vite build and from a plain module page in headless Chromium, directly and with
// worker: true; outputs checked against onnxruntime-node. Also: a wrong wasm URL says "got HTML".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as ort from 'onnxruntime-node';
import { build, createServer } from 'vite';
import { modelPath, relativeMaxError, seededFloats } from '../node/helpers.mjs';
import { launchBrowser, openPage, repoRoot, screenshot, startServer } from './helpers.mjs';
import { FILES, NEATAPTIC_EXPECTED, SEED } from './consumer-app.mjs';

const run = promisify(execFile);
const MODEL = modelPath('mobilenet_v2.onnx');
let work;
let browser;
let server;
let reference;

async function tarball(dir) {
  if (process.env.WEBNX_TARBALL) return process.env.WEBNX_TARBALL; // make test-browser passes make package's
  await run('npm', ['pack', '--pack-destination', dir], { cwd: repoRoot });
  return path.join(dir, (await readdir(dir)).find((f) => f.endsWith('.tgz')));
}

before(async () => {
  work = await mkdtemp(path.join(repoRoot, 'build/tmp-pkg-'));
  const tgz = await tarball(work);
  for (const [name, text] of Object.entries(FILES)) await writeFile(path.join(work, name), text);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tgz], { cwd: work });
  await build({ root: work, base: './', configFile: false, logLevel: 'warn', build: { outDir: 'vite-dist' } });
  server = await startServer({
    '/vite/': path.join(work, 'vite-dist'),
    '/plain/': work,
    '/models/': path.dirname(MODEL),
  }, { home: '/plain/plain.html' });
  const session = await ort.InferenceSession.create(MODEL);
  const x = new ort.Tensor('float32', seededFloats(3 * 224 * 224, SEED), [1, 3, 224, 224]);
  reference = (await session.run({ [session.inputNames[0]]: x }))[session.outputNames[0]].data;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

test('Node: the installed package matches onnxruntime-node, directly and with worker: true', async () => {
  const { stdout } = await run('node', ['node-check.mjs', MODEL], { cwd: work, timeout: 120_000 });
  const out = JSON.parse(stdout);
  assert.ok(relativeMaxError(out.direct, reference) <= 1e-4);
  assert.ok(relativeMaxError(out.worker, reference) <= 1e-4);
});

test('Node: npx webnx check lists the ops and says the model is supported', async () => {
  const { stdout } = await run(path.join(work, 'node_modules/.bin/webnx'), ['check', MODEL], { cwd: work });
  assert.match(stdout, /✓ Conv\s+52/);
  assert.match(stdout, /webnx supports this model/);
});

async function pageOutput(url, name) {
  const page = await openPage(browser, url);
  try {
    await page.waitForSelector('#result[data-state]');
    const state = await page.getAttribute('#result', 'data-state');
    assert.equal(state, 'done', await page.textContent('#result'));
    const out = await page.evaluate(() => window.webnxOutput);
    // The NeatapticTS document the app also loads (tests/browser/consumer-app.mjs).
    const neataptic = await page.evaluate(() => window.webnxNeataptic);
    assert.deepEqual(neataptic.dims, [2]);
    assert.ok(relativeMaxError(neataptic.output, NEATAPTIC_EXPECTED) <= 1e-5, `NeatapticTS: ${neataptic.output}`);
    assert.equal(neataptic.warnings.length, 2, neataptic.warnings.join('\n'));
    if (name) await screenshot(page, name);
    assert.deepEqual(page.problems, []);
    return out;
  } finally {
    await page.close();
  }
}

for (const [label, url] of [
  ['Vite build', '/vite/index.html'],
  ['Vite build, worker: true', '/vite/index.html?worker'],
  ['plain <script type=module> page', '/plain/plain.html'],
  ['plain page, worker: true', '/plain/plain.html?worker'],
]) {
  test(`Chromium, ${label}: MobileNetV2 matches onnxruntime-node`, async () => {
    const out = await pageOutput(server.url + url, label === 'Vite build' ? 'package-vite' : null);
    assert.equal(out.length, 1000);
    assert.ok(relativeMaxError(out, reference) <= 1e-4, `relative error ${relativeMaxError(out, reference)}`);
  });
}

// A page whose policy allows no eval or new Function, only WebAssembly compilation: the runtime's
// JS (Emscripten's embind glue) must not generate code (-sDYNAMIC_EXECUTION=0).
test('Chromium, Vite build under a Content-Security-Policy without unsafe-eval, direct and worker: true', async () => {
  const strict = await startServer({ '/vite/': path.join(work, 'vite-dist'), '/models/': path.dirname(MODEL) }, {
    home: '/vite/index.html',
    headers: { 'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'" },
  });
  try {
    for (const query of ['', '?worker']) {
      const out = await pageOutput(`${strict.url}/vite/index.html${query}`);
      assert.ok(relativeMaxError(out, reference) <= 1e-4, `${query}: relative error ${relativeMaxError(out, reference)}`);
    }
  } finally {
    await strict.close();
  }
});

test('vite dev server (no config), direct and worker: true: MobileNetV2 matches onnxruntime-node', async () => {
  // The models come from a middleware; everything else is Vite's dev pipeline.
  const models = {
    name: 'models',
    configureServer(dev) {
      dev.middlewares.use('/models', (req, res) => {
        res.setHeader('Content-Type', 'application/octet-stream');
        createReadStream(path.join(path.dirname(MODEL), path.basename(req.url))).on('error', () => res.end()).pipe(res);
      });
    },
  };
  const dev = await createServer({ root: work, configFile: false, logLevel: 'warn', plugins: [models],
    server: { host: '127.0.0.1', port: 0, strictPort: false } });
  try {
    await dev.listen();
    const base = dev.resolvedUrls.local[0];
    for (const query of ['', '?worker']) {
      const out = await pageOutput(`${base}${query}`);
      assert.ok(relativeMaxError(out, reference) <= 1e-4, `${query}: relative error ${relativeMaxError(out, reference)}`);
    }
  } finally {
    await dev.close();
  }
});

test('Vite copied every build\'s .wasm into its output (bundlers find them through new URL(…, import.meta.url))', async () => {
  const assets = await readdir(path.join(work, 'vite-dist/assets'));
  // Vite names them [name]-[8-character hash].wasm.
  for (const build of ['webnx', 'webnx-mt', 'webnx-relaxed', 'webnx-relaxed-mt'].map((n) => new RegExp(`^${n}-[\\w-]{8}\\.wasm$`))) {
    assert.ok(assets.some((f) => build.test(f)), `${build}: ${assets.join(', ')}`);
  }
});

for (const worker of [false, true]) {
  test(`a wrong env.wasmPaths gives WasmLoadFailed "got HTML instead of webnx.wasm"${worker ? ' (worker)' : ''}`, async () => {
    const page = await openPage(browser, `${server.url}/plain/plain.html?wasmPaths=/missing/${worker ? '&worker' : ''}`);
    try {
      await page.waitForSelector('#result[data-state=error]');
      assert.equal(await page.getAttribute('#result', 'data-code'), 'WasmLoadFailed');
      const message = await page.textContent('#result');
      // The page is cross-origin isolated, so the threaded build (mt/webnx-relaxed-mt.wasm) may be
      // the one asked for; Chromium runs relaxed SIMD.
      assert.match(message, /got HTML instead of webnx\.wasm from http:\/\/127\.0\.0\.1:\d+\/missing\/(mt\/webnx-relaxed-mt|webnx-relaxed)\.wasm \(HTTP 404\)/);
      assert.match(message, /check env\.wasmPaths/);
    } finally {
      await page.close();
    }
  });
}
