// The model lab: load any model, see what is in it and what webnx supports, run it on random
// input or an image, and see where the time goes.
import { InferenceSession, inspectModel, supportedOps } from '../js/index.mjs';
import { readModelBytes } from '../js/fetch-model.mjs';
import { findUnsupported } from '../js/inspect.mjs';
import { PRESETS, makeFeeds } from './lab-input.mjs';
import { bars, el, fmtBytes, outputBlock, profileBlock, valueTable } from './lab-view.mjs';

const $ = (id) => document.getElementById(id);
const registry = await supportedOps();
let session = null;
let image = null;

for (const [key, p] of Object.entries(PRESETS)) $('preset').append(el('option', { value: key, textContent: p.label }));

// The server lists build/models in /models/index.json; without it the zoo picker stays empty.
fetch('../models/index.json').then((r) => (r.ok ? r.json() : [])).then((models) => {
  for (const m of models) $('zoo').append(el('option', { value: m.name, textContent: `${m.name} (${fmtBytes(m.size)})` }));
}).catch(() => {});

function showProgress({ loaded, total }) {
  $('progress').hidden = false;
  $('progress').value = total ? loaded / total : 0;
  $('progress-text').textContent = total ? `${fmtBytes(loaded)} of ${fmtBytes(total)}` : fmtBytes(loaded);
}

async function load(source, name) {
  document.body.dataset.model = 'loading';
  await session?.release();
  session = null;
  $('run-panel').hidden = true;
  $('outputs').replaceChildren();
  $('profile').replaceChildren();
  $('support').replaceChildren(el('p', { className: 'muted', textContent: 'loading…' }));
  let info;
  let bytes;
  try {
    bytes = await readModelBytes(source, showProgress);
    info = inspectModel(bytes);
  } catch (e) {
    $('model-panel').hidden = false;
    $('model-name').textContent = name;
    $('support').replaceChildren(el('div', { className: 'error', textContent: e.message }));
    document.body.dataset.model = 'error';
    return;
  }
  showModel(name, bytes.length, info);
  const problems = findUnsupported(info, registry);
  const t0 = performance.now();
  try {
    session = await InferenceSession.create(bytes, { worker: $('worker').checked });
    const ms = performance.now() - t0;
    $('support').replaceChildren(el('p', { className: 'good',
      textContent: `✓ webnx runs this model — loaded in ${ms.toFixed(0)} ms${$('worker').checked ? ' (in a Worker)' : ''}` }));
    $('run-panel').hidden = false;
    document.body.dataset.model = 'loaded';
  } catch (e) {
    const list = problems.map((p) => el('li', { textContent: `${p.kind} ${p.name}${p.count ? ` ×${p.count}` : ''}: ${p.reason}` }));
    $('support').replaceChildren(
      el('p', { className: 'bad', textContent: `✗ webnx cannot run this model (${e.code})` }),
      el('div', { className: 'error', id: 'load-error', textContent: e.message }),
      list.length ? el('ul', { className: 'bad' }, list) : null);
    document.body.dataset.model = 'unsupported';
  }
}

function showModel(name, size, info) {
  $('model-panel').hidden = false;
  $('model-name').textContent = name;
  const opsets = info.opsets.map((o) => `${o.domain || 'ai.onnx'} ${o.version}`).join(', ');
  $('model-facts').textContent = [info.format, info.producer && `from ${info.producer}`, fmtBytes(size),
    `${info.nodeCount} nodes`, info.parameters >= 1e6 ? `${(info.parameters / 1e6).toFixed(2)} M parameters` : `${info.parameters} parameters`, opsets && `opsets: ${opsets}`]
    .filter(Boolean).join(' · ');
  $('inputs').replaceChildren(valueTable(info.inputs));
  $('outputs-meta').replaceChildren(valueTable(info.outputs));
  const known = new Set(registry);
  $('ops').replaceChildren(bars(info.ops.map(({ op, domain, count }) => {
    const ok = (domain === '' || domain === 'ai.onnx' || domain === 'webnx-graph') && known.has(op);
    const label = domain && domain !== 'ai.onnx' && domain !== 'webnx-graph' ? `${domain}:${op}` : op;
    return { label: ok ? label : `✗ ${label}`, value: count, text: String(count), bad: !ok };
  })));
}

async function run() {
  $('run').disabled = true;
  $('outputs').dataset.state = 'running';
  try {
    const source = $('source').value;
    if (source === 'image' && !image) throw new Error('choose an image first');
    const { feeds, preview } = makeFeeds(session.inputMetadata, source === 'image' ? image : null, $('preset').value);
    if (preview) {
      const c = el('canvas', { width: preview.width, height: preview.height });
      c.getContext('2d').drawImage(preview, 0, 0);
      $('preview').replaceChildren(c);
    }
    const shapes = Object.entries(feeds).map(([n, t]) => `${n} [${t.dims.join(', ')}]`).join(', ');
    const plansBefore = session.stats.plansBuilt;  // a fixed-shape model was planned by create()
    let t = performance.now();
    await session.run(feeds);
    const first = performance.now() - t;
    const planned = session.stats.plansBuilt > plansBefore;
    const times = [];
    let outputs;
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      outputs = await session.run(feeds);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    await session.run(feeds, { profile: true });
    $('timing').textContent = `input ${shapes} · first run ${first.toFixed(1)} ms` +
      `${planned ? ' (plans the graph)' : ''} · ` +
      `median of 5 runs ${times[2].toFixed(2)} ms`;
    $('outputs').replaceChildren(...Object.entries(outputs).map(([n, tensor]) => outputBlock(n, tensor)));
    $('profile').replaceChildren(profileBlock(session.lastProfile));
    $('outputs').dataset.state = 'done';
  } catch (e) {
    $('outputs').replaceChildren(el('div', { className: 'error', textContent: e.message }));
    $('outputs').dataset.state = 'error';
  } finally {
    $('run').disabled = false;
  }
}

async function takeImage(file) {
  image = await createImageBitmap(file);
  $('source').value = 'image';
}

$('file').addEventListener('change', () => { const f = $('file').files[0]; if (f) load(f, f.name); });
$('load-zoo').addEventListener('click', () => { const m = $('zoo').value; if (m) load(`../models/${m}`, m); });
$('image-file').addEventListener('change', () => { const f = $('image-file').files[0]; if (f) takeImage(f); });
$('run').addEventListener('click', run);
const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer.files[0];
  if (!f) return;
  if (f.type.startsWith('image/')) takeImage(f);
  else load(f, f.name);
});
document.body.dataset.state = 'ready';
