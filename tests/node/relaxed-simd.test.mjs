// The relaxed-SIMD builds (fused multiply-add) and how the runtime picks a build: by a feature
// test, never by a failed load. Node 20 runs relaxed SIMD only with
// --experimental-wasm-relaxed-simd, so a process started with it and one without are an engine
// that has the feature and one that lacks it. Each scenario runs in a fresh process (the build
// is chosen once per process). In the relaxed builds every zoo model stays within 1e-4 relative
// of onnxruntime-node on the same input, and 1 and 2 threads give the same bits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as ort from 'onnxruntime-node';
import path from 'node:path';
import { modelPath, modelsDir, relativeMaxError, repoRoot, seededFloats } from './helpers.mjs';

const run = promisify(execFile);
const RELAXED_FLAG = '--experimental-wasm-relaxed-simd';
const ZOO = ['mobilenet_v2', 'mobilenet_v3_small', 'mobilenet_v3_large', 'resnet18', 'squeezenet1_1',
  'efficientnet_b0', 'shufflenet_v2_x1_0'];
const TOLERANCE = 1e-4;
const index = JSON.stringify(pathToFileURL(`${repoRoot}/js/index.mjs`).href);

// Runs `body` (an async function body that may use InferenceSession, Tensor, env and `seeded`)
// in a fresh Node; resolves to what it returned, as JSON.
async function fresh(flags, simd, body) {
  const script = `import { InferenceSession, Tensor, env } from ${index};
import { seededFloats as seeded } from ${JSON.stringify(pathToFileURL(`${repoRoot}/js/seeded-floats.mjs`).href)};
${simd === undefined ? '' : `env.simd = ${JSON.stringify(simd)};`}
const result = await (async () => { ${body} })();
process.stdout.write(JSON.stringify(result));`;
  const { stdout } = await run('node', [...flags, '--input-type=module', '-e', script],
    { timeout: 240_000, maxBuffer: 64 << 20 });
  return JSON.parse(stdout);
}

// Every zoo model at 1 and 2 threads on the seeded input: { backends, outputs: { name: [1t, 2t] } }.
const ZOO_BODY = `const outputs = {}, backends = new Set();
for (const name of ${JSON.stringify(ZOO)}) {
  outputs[name] = [];
  for (const numThreads of [1, 2]) {
    const s = await InferenceSession.create(${JSON.stringify(`${path.resolve(modelsDir)}/`)} + name + '.onnx', { numThreads });
    backends.add(env.backend);
    const x = new Tensor('float32', seeded(3 * 224 * 224, 77), [1, 3, 224, 224]);
    const out = await s.run({ [s.inputNames[0]]: x });
    outputs[name].push(Array.from(out[s.outputNames[0]].data));
    await s.release();
  }
}
return { backends: [...backends], outputs };`;

test('with relaxed SIMD, the relaxed builds load; every zoo model within 1e-4 of onnxruntime, 1 and 2 threads bitwise equal', async () => {
  const { backends, outputs } = await fresh([RELAXED_FLAG], undefined, ZOO_BODY);
  assert.deepEqual(backends, ['wasm-relaxed', 'wasm-relaxed-mt']);
  const x = seededFloats(3 * 224 * 224, 77);
  for (const name of ZOO) {
    const ref = await ort.InferenceSession.create(modelPath(`${name}.onnx`), { intraOpNumThreads: 1 });
    const want = (await ref.run({ [ref.inputNames[0]]: new ort.Tensor('float32', x, [1, 3, 224, 224]) }))[ref.outputNames[0]].data;
    await ref.release();
    const [one, two] = outputs[name];
    const err = relativeMaxError(one, want);
    console.log(`${name} (relaxed): relative max error ${err.toExponential(2)}`);
    assert.ok(err <= TOLERANCE, `${name}: ${err} > ${TOLERANCE}`);
    assert.ok(two.every((v, i) => Object.is(v, one[i])), `${name}: 2 threads differ from 1`);
  }
});

test('the relaxed build computes what the plain one does, up to fused rounding', async () => {
  const body = `const s = await InferenceSession.create(${JSON.stringify(modelPath('mobilenet_v2.onnx'))}, { numThreads: 1 });
const out = await s.run({ [s.inputNames[0]]: new Tensor('float32', seeded(3 * 224 * 224, 78), [1, 3, 224, 224]) });
return { backend: env.backend, data: Array.from(out[s.outputNames[0]].data) };`;
  const relaxed = await fresh([RELAXED_FLAG], undefined, body);
  const plain = await fresh([RELAXED_FLAG], 'simd', body);
  assert.equal(relaxed.backend, 'wasm-relaxed');
  assert.equal(plain.backend, 'wasm');  // env.simd = 'simd' forces the plain build
  const err = relativeMaxError(relaxed.data, plain.data);
  assert.ok(err <= TOLERANCE, `relaxed vs plain: ${err}`);
  assert.ok(relaxed.data.some((v, i) => v !== plain.data[i]), 'no output moved: the relaxed build did not fuse');
});

test('the recurrent models (fused multiply-adds, the relaxed lane select in tanh) stay within 1e-4 of the plain build', async () => {
  const field = JSON.stringify(pathToFileURL(`${repoRoot}/bench/field-models.mjs`).href);
  const body = `const { fieldFeeds } = await import(${field});
const outputs = {};
for (const name of ['lstm2', 'gru_bi', 'vad']) {
  const s = await InferenceSession.create(${JSON.stringify(`${path.resolve(modelsDir)}/field/`)} + name + '.onnx', { numThreads: 1 });
  const out = await s.run(fieldFeeds(name, Tensor));
  outputs[name] = Array.from(out[s.outputNames[0]].data);
  await s.release();
}
return { backend: env.backend, outputs };`;
  const relaxed = await fresh([RELAXED_FLAG], undefined, body);
  const plain = await fresh([RELAXED_FLAG], 'simd', body);
  assert.equal(relaxed.backend, 'wasm-relaxed');
  for (const name of Object.keys(plain.outputs)) {
    const err = relativeMaxError(relaxed.outputs[name], plain.outputs[name]);
    assert.ok(err <= TOLERANCE, `${name}: relaxed vs plain ${err}`);
  }
});

test('without relaxed SIMD, the plain builds load; forcing relaxed is UnsupportedFeature, and a bad env.simd InvalidArgument', async () => {
  const body = `const file = ${JSON.stringify(`${repoRoot}/examples/digits/digits_mobilenet.onnx`)};
const backends = [];
for (const numThreads of [1, 2]) {
  try {
    const s = await InferenceSession.create(file, { numThreads });
    backends.push(env.backend);
    await s.release();
  } catch (e) {
    backends.push(e.message);
  }
}
return backends;`;
  assert.deepEqual(await fresh([], undefined, body), ['wasm', 'wasm-mt']);
  const forced = await fresh([], 'relaxed', body);
  for (const message of forced) {
    assert.match(message, /^UnsupportedFeature: .*relaxed SIMD.*--experimental-wasm-relaxed-simd/);
  }
  const bad = await fresh([], 'fast', body);
  assert.match(bad[0], /^InvalidArgument: env\.simd must be 'auto', 'relaxed' or 'simd', got "fast"/);
});

test('the relaxed build multiplies int8 with the relaxed dot only where this engine computes it exactly', async () => {
  const probe = JSON.stringify(pathToFileURL(`${repoRoot}/tests/node/relaxed-dot-probe.mjs`).href);
  const digits = JSON.stringify(`${repoRoot}/examples/digits/digits_mobilenet.onnx`);
  const result = await fresh([RELAXED_FLAG], undefined, `const { relaxedDotKind } = await import(${probe});
const s = await InferenceSession.create(${digits}, { numThreads: 1 });
await s.release();
return { backend: env.backend, int8Product: env.int8Product, dot: await relaxedDotKind() };`);
  assert.equal(result.backend, 'wasm-relaxed');
  // Node 20's baseline compiler gets the relaxed dot wrong ('inexact'): the int16 pairs it is.
  assert.equal(result.int8Product, ['unsigned', 'signed'].includes(result.dot) ? 'relaxed-dot' : 'i16-dot',
    `this engine's relaxed dot: ${result.dot}`);
  const plain = await fresh([], undefined, `const s = await InferenceSession.create(${digits}, { numThreads: 1 });
await s.release();
return { backend: env.backend, int8Product: env.int8Product };`);
  assert.deepEqual(plain, { backend: 'wasm', int8Product: 'i16-dot' });
});
