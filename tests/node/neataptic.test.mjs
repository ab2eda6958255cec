// NeatapticTS exports as its exporter writes them (docs/dsl.md, "NeatapticTS exports"): every
// document is written by neataptic-export.mjs the way exportToONNX writes it, loaded unchanged,
// and compared with the network's own forward pass in plain JS (≤ 1e-5 relative), with batch
// dimension and without. Each compatibility rule is checked for the warning it prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { relativeMaxError, repoRoot, seededFloats } from './helpers.mjs';
import { NEATAPTIC_EXAMPLES, exampleText } from '../../scripts/gen-neataptic-examples.mjs';
import { exportDocument, forwardOne, fusedStepOne, makeNetwork } from './neataptic-export.mjs';

const TOLERANCE = 1e-5;

// Creates a session while collecting what it prints with console.warn.
async function createQuietly(doc, options) {
  const printed = [];
  const warn = console.warn;
  console.warn = (...args) => printed.push(args.join(' '));
  try {
    const session = await InferenceSession.create(doc, options);
    return { session, printed };
  } finally {
    console.warn = warn;
  }
}

// Feeds for `samples` samples (or one 1-D sample without a batch dimension), with the plain
// arrays each sample's forward pass takes.
function feedsFor(net, batch, samples, seed) {
  const widths = { input: net.inputSize };
  net.layers.forEach((l, i) => {
    if (l.recurrent) widths[i === 0 ? 'hidden_prev' : `hidden_prev_l${i + 1}`] = l.size;
  });
  const feeds = {};
  const perSample = Array.from({ length: samples }, () => ({}));
  for (const [name, width] of Object.entries(widths)) {
    const data = seededFloats(samples * width, seed++).map((v) => v * 2);
    feeds[name] = new Tensor('float32', data, batch ? [samples, width] : [width]);
    perSample.forEach((s, n) => { s[name] = Array.from(data.subarray(n * width, (n + 1) * width)); });
  }
  return { feeds, perSample };
}

async function expectMatchesNetwork(spec, { batch = true, metadata = false, samples = 3, threads = 1 }) {
  const net = makeNetwork(spec, 7);
  const doc = exportDocument(net, { batch, metadata });
  const { session, printed } = await createQuietly(doc, { numThreads: threads });
  try {
    const n = batch ? samples : 1;
    const { feeds, perSample } = feedsFor(net, batch, n, 3);
    const { output } = await session.run(feeds);
    const outSize = net.layers.at(-1).size;
    assert.deepEqual(output.dims, batch ? [n, outSize] : [outSize]);
    const want = perSample.flatMap((s) => forwardOne(net, s.input, s));
    const err = relativeMaxError(output.data, Float32Array.from(want));
    assert.ok(err <= TOLERANCE, `relative error ${err}`);
    assert.deepEqual(printed, session.warnings.map((w) => `webnx: ${w}`));
    return session.warnings;
  } finally {
    await session.release();
  }
}

const bound = /graph output 'output' is written by no node; it is bound to 'Layer_\d+' \(written by node '[a-z_0-9]+'\), the one value nothing reads/;
const noBatch = /it has no batch dimension \(input 'input' is 1-D\); its \d+ Gemm nodes run on a batch of one and return 1-D results/;

const unified = { inputSize: 5, layers: [{ size: 4, act: 'Tanh' }, { size: 3, act: 'Relu' }, { size: 2, act: 'Sigmoid' }] };
const mixed = { inputSize: 4, layers: [{ size: 4, act: ['Relu', 'Tanh', 'Sigmoid', 'Identity'] }, { size: 3, act: ['Sigmoid', 'Tanh', 'Relu'] }] };
const recurrent = { inputSize: 3, layers: [{ size: 6, act: 'Tanh', recurrent: true }, { size: 4, act: 'Sigmoid', recurrent: true }, { size: 2, act: 'Identity' }] };
const conv = { inputSize: 2 * 6 * 5, layers: [
  { act: 'Relu', conv: { inC: 2, inH: 6, inW: 5, k: 3, outC: 3 }, pool: true, flatten: true }, { size: 4, act: 'Tanh' }, { size: 2, act: 'Sigmoid' }] };
const convNoFlatten = { inputSize: 1 * 5 * 5, layers: [
  { act: 'Tanh', conv: { inC: 1, inH: 5, inW: 5, k: 2, outC: 2 }, pool: true }, { size: 3, act: 'Identity' }] };
const fused = { inputSize: 4, layers: [{ size: 10, act: 'Tanh', fused: 'LSTM' }, { size: 8, act: 'Relu', fused: 'GRU' }, { size: 2, act: 'Sigmoid' }] };

for (const batch of [true, false]) {
  const label = batch ? 'with a batch dimension' : 'without a batch dimension';

  test(`unified MLP ${label}: the dangling output is bound to the last layer`, async () => {
    const warnings = await expectMatchesNetwork(unified, { batch });
    assert.match(warnings[0], bound);
    assert.equal(warnings.some((w) => noBatch.test(w)), !batch);
  });

  test(`decomposed mixed activations ${label} (Concat on axis ${batch ? 1 : 0})`, async () => {
    await expectMatchesNetwork(mixed, { batch, metadata: true });
  });

  test(`single-step recurrent layers ${label} (hidden_prev, hidden_prev_l2)`, async () => {
    await expectMatchesNetwork(recurrent, { batch, threads: 2 });
  });

  test(`conv + pool + flatten ${label}: flat features laid out by conv2d_specs, pool as annotation`, async () => {
    const warnings = await expectMatchesNetwork(conv, { batch, metadata: true });
    assert.ok(warnings.some((w) => /conv node 'conv_l1' reads its flat features as \[2, 6, 5\] and 'Layer_1' holds its 36 outputs as a flat vector/.test(w)), warnings.join('\n'));
    assert.ok(warnings.some((w) => /pooling node 'pool_after_l1' is the exporter's structural annotation: the weights of 'gemm_l2' take the 36 values of 'Layer_1'/.test(w)), warnings.join('\n'));
    await expectMatchesNetwork(convNoFlatten, { batch, metadata: true });
  });

  test(`unread fused LSTM/GRU nodes ${label} are dropped with a warning`, async () => {
    const warnings = await expectMatchesNetwork(fused, { batch });
    for (const [op, node, out] of [['LSTM', 'lstm_l1', 'Layer_1_lstm_hidden'], ['GRU', 'gru_l2', 'Layer_2_gru_hidden']]) {
      assert.ok(warnings.includes(`NeatapticTS document: dropped the experimental fused ${op} node '${node}': nothing reads its output '${out}' (the unfused nodes beside it compute the layer)`), warnings.join('\n'));
    }
  });

  test(`read fused LSTM/GRU nodes ${label} run in ONNX's layout`, async () => {
    const net = makeNetwork(fused, 7);
    const doc = exportDocument(net, { batch, metadata: true });
    doc.graph.outputs.push({ name: 'Layer_1_lstm_hidden' }, { name: 'Layer_2_gru_hidden' });
    const { session } = await createQuietly(doc);
    try {
      const n = batch ? 2 : 1;
      const { feeds, perSample } = feedsFor(net, batch, n, 5);
      const got = await session.run(feeds);
      const hiddenOf = (s) => forwardOne({ ...net, layers: net.layers.slice(0, 1) }, s.input);
      const cases = [['Layer_1_lstm_hidden', net.layers[0], (s) => s.input], ['Layer_2_gru_hidden', net.layers[1], hiddenOf]];
      for (const [name, layer, inputOf] of cases) {
        assert.deepEqual(got[name].dims, batch ? [n, layer.H] : [layer.H]);
        const want = Float32Array.from(perSample.flatMap((s) => fusedStepOne(layer, inputOf(s))));
        const err = relativeMaxError(got[name].data, want);
        assert.ok(err <= TOLERANCE, `${name}: relative error ${err}`);
      }
      assert.ok(session.warnings.some((w) => w.includes("the fused LSTM node 'lstm_l1' runs one time step in ONNX's layout (gates i,f,c,o reordered to i,o,f,c")));
      assert.ok(session.warnings.some((w) => w.includes("the fused GRU node 'gru_l2' runs one time step in ONNX's layout (a num_directions axis")));
    } finally {
      await session.release();
    }
  });
}

test('a dangling output with two unread candidates is MalformedModel naming both', async () => {
  const doc = exportDocument(makeNetwork(unified), {});
  doc.graph.node.push({ op_type: 'Relu', input: ['Gemm_3'], output: ['side'], name: 'side_branch' });
  await assert.rejects(InferenceSession.create(doc), (e) => {
    assert.equal(e.code, 'MalformedModel');
    assert.match(e.message, /\/graph\/outputs\/0\/name: graph output 'output' is written by no node, and the NeatapticTS rule that binds it to the last layer's output is ambiguous: 'Layer_3', 'side' are all read by nothing/);
    return true;
  });
});

test('the rules do not apply to documents from other producers', async () => {
  const net = makeNetwork(unified);
  const doc = exportDocument(net, { metadata: true });
  doc.producer_name = 'another-exporter';
  doc.graph.initializer[0].name = 'weights_0';  // not the exporter's naming either
  doc.graph.node[0].input[1] = 'weights_0';
  await assert.rejects(InferenceSession.create(doc), (e) => e.code === 'MalformedModel' && /output/.test(e.message));
  // Valid ONNX from anyone runs as ONNX, with no warning.
  doc.graph.node.at(-1).output[0] = 'output';
  const { session, printed } = await createQuietly(doc);
  assert.deepEqual(session.warnings, []);
  assert.deepEqual(printed, []);
  await session.release();
});

test('the worker backend keeps the warnings and prints them once', async () => {
  const { session, printed } = await createQuietly(exportDocument(makeNetwork(unified), { batch: false }), { worker: true });
  try {
    assert.equal(session.warnings.length, 2);
    assert.equal(printed.length, 0);  // the worker printed them
    const { output } = await session.run({ input: new Tensor('float32', new Float32Array(5), [5]) });
    assert.deepEqual(output.dims, [2]);
  } finally {
    await session.release();
  }
});

test('examples/dsl/neataptic_export_*.json are what the exporter writes, and run as the network does', async () => {
  for (const [name, [spec, options]] of Object.entries(NEATAPTIC_EXAMPLES)) {
    const text = await readFile(path.join(repoRoot, 'examples/dsl', name), 'utf8');
    assert.equal(text, exampleText(name), `${name} is stale: node scripts/gen-neataptic-examples.mjs`);
    const warnings = await expectMatchesNetwork(spec, options);
    assert.ok(warnings.some((w) => bound.test(w)), `${name}: ${warnings.join('\n')}`);
  }
});

// Hostile variants of the exporter's documents: any value replaced by a value of another kind.
// The rules must step aside or give a coded error, never throw anything else.
test('structurally mutated NeatapticTS documents give a coded error or load', async () => {
  const bases = Object.values(NEATAPTIC_EXAMPLES).map(([spec, options]) => exportDocument(makeNetwork(spec, 7), options));
  const replacements = [null, 0, -1, 1e9, 'Layer_1', 'output', [], {}, ['input'], [{ name: 'output' }], true];
  let state = 2024;
  const next = (n) => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state % n; };
  const paths = (value, at = []) => (value !== null && typeof value === 'object'
    ? [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))] : [at]);
  const codes = new Set(['MalformedModel', 'UnsupportedOperator', 'UnsupportedDtype', 'InvalidArgument', 'ShapeMismatch']);
  for (let i = 0; i < 200; i++) {
    const doc = structuredClone(bases[i % bases.length]);
    const all = paths(doc).filter((p) => p.length > 0);
    const at = all[next(all.length)];
    let parent = doc;
    for (const key of at.slice(0, -1)) parent = parent[key];
    parent[at.at(-1)] = structuredClone(replacements[next(replacements.length)]);
    try {
      const { session } = await createQuietly(doc);
      await session.release();
    } catch (e) {
      assert.ok(codes.has(e.code), `${at.join('/')}: ${e.stack}`);
    }
  }
});

test('an initializer defined twice in a NeatapticTS document stays the loader\'s MalformedModel', async () => {
  const doc = exportDocument(makeNetwork(unified), { batch: false });
  doc.graph.initializer.push({ ...doc.graph.initializer[0] });
  await assert.rejects(InferenceSession.create(doc), (e) => e.code === 'MalformedModel' && /W0.*twice|twice.*W0/.test(e.message));
});
