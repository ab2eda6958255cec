// The threaded build: outputs identical to the single-threaded build on every zoo model, the
// build choice reported in env.backend, and a Node script using threads exits by itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import os from 'node:os';
import { InferenceSession, Tensor, env } from '../../js/index.mjs';
import { getThreadedRuntime } from '../../js/backend.mjs';
import { modelPath, repoRoot, seededFloats } from './helpers.mjs';

const run = promisify(execFile);
const ZOO = ['mobilenet_v2', 'mobilenet_v3_small', 'mobilenet_v3_large', 'resnet18', 'squeezenet1_1',
  'efficientnet_b0', 'shufflenet_v2_x1_0'];

async function outputOf(file, numThreads, data, dims) {
  const session = await InferenceSession.create(file, { numThreads });
  const backend = env.backend;
  const out = await session.run({ [session.inputNames[0]]: new Tensor('float32', data, dims) });
  await session.release();
  return { backend, data: out[session.outputNames[0]].data };
}

for (const name of ZOO) {
  test(`${name}: 2 threads (webnx-mt) give exactly the single-threaded build's output`, async () => {
    const file = modelPath(`${name}_dyn.onnx`);
    assert.ok(existsSync(file), `${file} is missing: run make models`);
    const dims = [2, 3, 224, 224];
    const data = seededFloats(2 * 3 * 224 * 224, 99);
    const single = await outputOf(file, 1, data, dims);
    const threaded = await outputOf(file, 2, data, dims);
    assert.equal(single.backend, 'wasm');
    assert.equal(threaded.backend, 'wasm-mt');
    assert.equal(threaded.data.length, single.data.length);
    assert.ok(threaded.data.every((v, i) => Object.is(v, single.data[i])), 'outputs differ');
  });
}

// The package's module `file` as an import specifier for a script's source.
const moduleSpecifier = (file) => JSON.stringify(pathToFileURL(`${repoRoot}/js/${file}`).href);

// Runs an ES module script in a fresh Node process; resolves to what it printed, trimmed.
async function freshNode(script, timeout) {
  const { stdout } = await run('node', ['--input-type=module', '-e', script], { timeout });
  return stdout.trim();
}

test('a script using the threaded build exits by itself', async () => {
  const script = `import { InferenceSession, Tensor, env } from ${moduleSpecifier('index.mjs')};
const s = await InferenceSession.create(${JSON.stringify(`${repoRoot}/examples/digits/digits_mobilenet.onnx`)}, { numThreads: 2 });
await s.run({ input: new Tensor('float32', new Float32Array(64), [1, 1, 8, 8]) });
console.log(env.backend);`;
  const started = Date.now();
  assert.equal(await freshNode(script, 20_000), 'wasm-mt');
  console.log(`threaded script exited after ${Date.now() - started} ms`);
});

// The runtime does not wait for its workers to load; a session does, so its threads start with
// its first run even when runs follow each other without a turn of the event loop (a thread
// started on a worker still loading would begin only at such a turn).
test('a fresh process\'s first threaded session has its workers taking part in back-to-back runs', async () => {
  const script = `import { InferenceSession, Tensor } from ${moduleSpecifier('index.mjs')};
import { getThreadedRuntime } from ${moduleSpecifier('backend.mjs')};
const s = await InferenceSession.create(${JSON.stringify(modelPath('mobilenet_v2.onnx'))}, { numThreads: 2 });
const x = new Tensor('float32', new Float32Array(3 * 224 * 224).fill(0.5), [1, 3, 224, 224]);
for (let i = 0; i < 3; i++) await s.run({ [s.inputNames[0]]: x });
console.log((await getThreadedRuntime()).threadPoolHelperJoins());`;
  const joins = await freshNode(script, 60_000);
  assert.ok(Number(joins) > 0, `the pool's workers joined ${joins} jobs`);
});

test('the threaded build starts a worker per core but the caller\'s (1-3) and caps numThreads there', async () => {
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const workers = Math.max(1, Math.min(4, cores) - 1);
  const runtime = await getThreadedRuntime();
  assert.equal(runtime.PThread.unusedWorkers.length + runtime.PThread.runningWorkers.length, workers);
  assert.equal(runtime.WasmSession.maxThreads(), workers + 1);
  // More threads than that run as that many, with the same output.
  const file = modelPath('testdata/tiny_conv.onnx');
  const probe = await InferenceSession.create(file);
  const input = probe.inputMetadata[0];
  await probe.release();
  const dims = input.dims.map((d) => (typeof d === 'number' ? d : 1));
  const data = seededFloats(dims.reduce((a, b) => a * b, 1), 5);
  const single = await outputOf(file, 1, data, dims);
  const many = await outputOf(file, 16, data, dims);
  assert.equal(many.backend, 'wasm-mt');
  assert.ok(many.data.every((v, i) => Object.is(v, single.data[i])), 'outputs differ');
});

test('numThreads must be a positive integer', async () => {
  await assert.rejects(InferenceSession.create(modelPath('testdata/tiny_conv.onnx'), { numThreads: 0 }),
    { code: 'InvalidArgument' });
});
