// webnx beside onnxruntime-web on the zoo models, in one page, same input, the same thread
// count for both. One thread: the runtimes alternate run by run. More: each runtime's runs form a
// block of their own, the other runtime released or not yet loaded (a thread pool that spins
// after its run would steal the other's cores).
// URL parameters: ?models=a,b&runs=10&warmup=2&threads=1&autorun=1; field/<name> times a model
// of bench/field-models.mjs (build/models/field) on its own feeds, quant/<name> a quantized file
// of `make quant-models` on the zoo image; simd=simd times webnx's plain
// build where the engine would pick the relaxed one (env.simd).
import { FIELD_MODELS, fieldFeeds } from '../bench/field-models.mjs';
import { InferenceSession, Tensor, env } from '../js/index.mjs';
import { seededFloats } from '../js/seeded-floats.mjs';

const ZOO = ['mobilenet_v2', 'mobilenet_v3_small', 'mobilenet_v3_large', 'resnet18', 'squeezenet1_1',
  'efficientnet_b0', 'shufflenet_v2_x1_0'];
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
if (params.get('simd')) env.simd = params.get('simd');
if (params.get('runs')) $('runs').value = params.get('runs');
if (params.get('warmup')) $('warmup').value = params.get('warmup');
// Fixed per page load: onnxruntime-web reads its thread count once, at its first session.
const threads = Math.max(1, Math.min(16, Number(params.get('threads')) || 1));
$('threads').value = String(threads);
$('threads').addEventListener('change', () => {
  params.set('threads', $('threads').value);
  location.search = params.toString();
});

const ORT_DIR = new URL('../node_modules/onnxruntime-web/dist/', location.href).href;
let ort;
try {
  ort = await import(`${ORT_DIR}ort.wasm.min.mjs`);
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = ORT_DIR;
} catch (e) {
  $('status').textContent = `onnxruntime-web not found at ${ORT_DIR} (npm install): ${e.message}`;
}
$('env').textContent = `${navigator.userAgent.match(/(Chrom(e|ium)|Firefox|Safari)\/[\d.]+/)?.[0] ?? 'browser'}` +
  ` · cross-origin isolated: ${crossOriginIsolated} · ${navigator.hardwareConcurrency} logical cores` +
  ` · ${threads} thread${threads > 1 ? 's' : ''} per runtime`;

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
};
const ms = (x) => `${x.toFixed(2)} ms`;

function relativeMaxError(actual, expected) {
  let diff = 0;
  let ref = 0;
  for (let i = 0; i < expected.length; i++) {
    diff = Math.max(diff, Math.abs(actual[i] - expected[i]));
    ref = Math.max(ref, Math.abs(expected[i]));
  }
  return ref === 0 ? diff : diff / ref;
}

async function availableModels() {
  const wanted = params.get('models')?.split(',') ?? ZOO;
  const listed = await fetch('../models/index.json').then((r) => (r.ok ? r.json() : null)).catch(() => null);
  if (!listed) return wanted;
  const names = new Set(listed.map((m) => m.name));
  // quant/<name>: a file of `make quant-models`, which index.json does not list.
  return wanted.filter((m) => names.has(`${m}.onnx`) || FIELD_MODELS[fieldName(m)] || m.startsWith('quant/'));
}

const fieldName = (model) => (model.startsWith('field/') ? model.slice('field/'.length) : null);

// A model's feeds for a runtime's Tensor class: a zoo model's seeded image, or a field model's own.
function feedsFor(model, TensorClass, inputName) {
  const field = fieldName(model);
  if (field) return fieldFeeds(field, TensorClass);
  return { [inputName]: new TensorClass('float32', seededFloats(3 * 224 * 224, 1235), [1, 3, 224, 224]) };
}

// Both runtimes behind one face: load(bytes, model), run() → its first output's data.
function webnx() {
  let s;
  let feeds;
  return {
    async load(bytes, model) {
      s = await InferenceSession.create(bytes, { numThreads: threads });
      feeds = feedsFor(model, Tensor, s.inputNames[0]);
    },
    async run() { return (await s.run(feeds))[s.outputNames[0]].data; },
    release: () => s.release(),
  };
}
function ortWeb() {
  let s;
  let feeds;
  return {
    async load(bytes, model) {
      s = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
      feeds = feedsFor(model, ort.Tensor, s.inputNames[0]);
    },
    async run() { return (await s.run(feeds))[s.outputNames[0]].data; },
    release: () => s.release(),
  };
}

async function benchModel(name, runs, warmup) {
  const row = document.createElement('tr');
  row.dataset.model = name;
  row.innerHTML = `<td>${name}</td><td colspan="7" class="muted">loading…</td>`;
  $('results').tBodies[0].append(row);
  const bytes = new Uint8Array(await (await fetch(`../models/${name}.onnx`)).arrayBuffer());
  const runtimes = { webnx: webnx(), ort: ortWeb() };
  const stats = {};
  const load = async (key) => {
    const t = performance.now();
    await runtimes[key].load(bytes.slice(), name);
    stats[key] = { load: performance.now() - t, out: await runtimes[key].run(), times: [] };
  };
  // Warm-ups, then timed runs, of the given runtimes in turn.
  const time = async (keys) => {
    for (let i = 0; i < warmup; i++) for (const key of keys) await runtimes[key].run();
    for (let i = 0; i < runs; i++) {
      for (const key of keys) {
        const t = performance.now();
        await runtimes[key].run();
        stats[key].times.push(performance.now() - t);
      }
      await new Promise((r) => setTimeout(r, 0)); // let the page paint
    }
  };
  row.cells[1].textContent = 'running…';
  if (threads === 1) {
    await load('webnx');
    await load('ort');
    await time(['webnx', 'ort']);
    for (const rt of Object.values(runtimes)) await rt.release();
  } else {
    for (const key of ['webnx', 'ort']) {
      await load(key);
      await time([key]);
      await runtimes[key].release();
    }
  }
  const err = relativeMaxError(stats.webnx.out, stats.ort.out);
  const w = quantile(stats.webnx.times, 0.5);
  const o = quantile(stats.ort.times, 0.5);
  const ratio = w / o;
  row.innerHTML = '';
  const cells = [name, ms(w), ms(quantile(stats.webnx.times, 0.9)), ms(o), ms(quantile(stats.ort.times, 0.9)),
    ratio.toFixed(3), `${stats.webnx.load.toFixed(0)} / ${stats.ort.load.toFixed(0)} ms`, err.toExponential(1)];
  for (const text of cells) row.append(Object.assign(document.createElement('td'), { textContent: text }));
  row.cells[5].className = `ratio ${ratio < 1 ? 'faster' : 'slower'}`;
  if (!(err <= 1e-4)) row.cells[7].className = 'bad';
  Object.assign(row.dataset, {
    webnxMs: w.toFixed(3), ortMs: o.toFixed(3), ratio: ratio.toFixed(4), maxDiff: String(err), threads: String(threads),
    // The build webnx really loaded (env.backend: 'wasm-relaxed', 'wasm-mt', …), not what was asked for.
    webnxBackend: env.backend ?? '',
  });
}

async function start() {
  $('start').disabled = true;
  $('results').tBodies[0].replaceChildren();
  document.body.dataset.state = 'running';
  const runs = Number($('runs').value);
  const warmup = Number($('warmup').value);
  try {
    if (!ort) throw new Error('onnxruntime-web is not loaded');
    for (const name of await availableModels()) {
      $('status').textContent = `${name}…`;
      await benchModel(name, runs, warmup);
    }
    $('status').textContent = `done: ${runs} timed runs per runtime after ${warmup} warm-ups`;
    document.body.dataset.state = 'done';
  } catch (e) {
    $('status').textContent = `failed: ${e.message}`;
    document.body.dataset.state = 'error';
  } finally {
    $('start').disabled = false;
  }
}

$('start').addEventListener('click', start);
document.body.dataset.state = 'ready';
if (params.get('autorun')) start();
