// webnx/ort (js/ort.mjs), onnxruntime-web's surface over webnx, against onnxruntime-node (the
// same onnxruntime-common surface) on the same models and inputs: create()'s forms and their
// argument checks, metadata, run() with fetches, Tensor's forms, env, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { InferenceSession, Tensor, env } from '../../js/ort.mjs';
import { env as webnxEnv } from '../../js/env.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { modelPath, relativeMaxError, seededFloats } from './helpers.mjs';

const vi = (name, dims) => ({ name, type: { tensorType: { elemType: 1, shape: { dim: dims } } } });
// y = Relu(x) and z = Neg(x); x's first dim unknown, its second symbolic.
const twoOutputs = onnxJsonToOnnx({
  irVersion: '8', opsetImport: [{ domain: '', version: '13' }],
  graph: {
    name: 'g',
    node: [{ opType: 'Relu', input: ['x'], output: ['y'] }, { opType: 'Neg', input: ['x'], output: ['z'] }],
    input: [vi('x', [{}, { dimParam: 'T' }, { dimValue: '3' }])],
    output: [vi('y', [{}, { dimParam: 'T' }, { dimValue: '3' }]), vi('z', [{}, { dimParam: 'T' }, { dimValue: '3' }])],
  },
});

test('create() takes a path, a Uint8Array, an ArrayBuffer and a slice of one, and checks them as onnxruntime does', async () => {
  const bytes = readFileSync(modelPath('mobilenet_v2_dyn.onnx'));
  const padded = new Uint8Array(bytes.length + 24);
  padded.set(bytes, 16);
  const forms = [
    [modelPath('mobilenet_v2_dyn.onnx')],
    [new Uint8Array(bytes)],
    [new Uint8Array(bytes).buffer],
    [padded.buffer, 16, bytes.length],
    [padded.buffer.slice(0, bytes.length + 16), 16, {}],
  ];
  for (const form of forms) {
    const session = await InferenceSession.create(...form);
    assert.deepEqual(session.inputNames, ['input']);
    await session.release();
  }
  for (const bad of [[42], [padded.buffer, 1e9], [padded.buffer, 16, 1e9], [padded.buffer, 1.5],
    [padded.buffer, -1], [padded.buffer, 16, 0], [padded.buffer, 16, 'x']]) {
    const theirs = await ort.InferenceSession.create(...bad).then(() => null, (e) => e.constructor);
    const ours = await InferenceSession.create(...bad).then(() => null, (e) => e.constructor);
    assert.equal(ours, theirs, `${bad.slice(1)}`);
  }
});

test('inputMetadata and outputMetadata are onnxruntime\'s: unknown dims as \'\', symbols by name', async () => {
  for (const bytes of [twoOutputs, readFileSync(modelPath('mobilenet_v2_dyn.onnx'))]) {
    const theirs = await ort.InferenceSession.create(bytes);
    const ours = await InferenceSession.create(bytes);
    assert.deepEqual(ours.inputMetadata, theirs.inputMetadata);
    assert.deepEqual(ours.outputNames, theirs.outputNames);
    for (const m of ours.outputMetadata) assert.equal(m.isTensor, true);
    await ours.release();
  }
});

test('run() with fetches: a list, a map to null or to a tensor to write into, or run options', async () => {
  const session = await InferenceSession.create(twoOutputs);
  const x = new Tensor(Float32Array.from([-1, 2, -3, 4, -5, 6]), [1, 2, 3]);
  const all = await session.run({ x }, { tag: 'all' });
  assert.deepEqual(Object.keys(all).sort(), ['y', 'z']);
  assert.deepEqual(Array.from(all.y.data), [0, 2, 0, 4, 0, 6]);
  assert.deepEqual(Object.keys(await session.run({ x }, ['z'])), ['z']);
  const into = new Tensor('float32', new Float32Array(6), [1, 2, 3]);
  const mapped = await session.run({ x }, { y: into, z: null });
  assert.equal(mapped.y, into);
  assert.deepEqual(Array.from(into.data), [0, 2, 0, 4, 0, 6]);
  assert.deepEqual(Array.from(mapped.z.data), [1, -2, 3, -4, 5, -6]);
  await assert.rejects(session.run({ x }, ['nope']), RangeError);
  assert.equal(all.y.location, 'cpu');
  await session.release();
});

test('a zoo model through webnx/ort gives onnxruntime-node\'s outputs within 1e-4 relative', async () => {
  const bytes = readFileSync(modelPath('mobilenet_v2.onnx'));
  const data = seededFloats(3 * 224 * 224, 5);
  const theirs = await ort.InferenceSession.create(bytes);
  const want = await theirs.run({ input: new ort.Tensor('float32', data, [1, 3, 224, 224]) });
  const ours = await InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const got = await ours.run({ input: new Tensor('float32', data, [1, 3, 224, 224]) });
  assert.ok(relativeMaxError(got.output.data, want.output.data) < 1e-4);
  await ours.release();
});

test('Tensor: every constructor form, getData, dispose and reshape', async () => {
  const forms = [
    [['float32', [1, 2, 3, 4], [2, 2]]],
    [[Float64Array.from([1, 2])], [new Int8Array(3), [3]], [BigInt64Array.from([1n]), [1]]],
    [[[true, false, true]]],
    [[new Uint8ClampedArray([1, 300 % 256])]],
    [['uint8', new Uint8ClampedArray([7, 8])]],
  ].flat();
  for (const args of forms) {
    const theirs = new ort.Tensor(...args);
    const ours = new Tensor(...args);
    assert.equal(ours.type, theirs.type, `${args[0]?.constructor?.name} ${args[0]}`);
    assert.deepEqual(ours.dims, theirs.dims);
    assert.deepEqual(Array.from(ours.data), Array.from(theirs.data));
  }
  const t = new Tensor('float32', Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]);
  const r = t.reshape([3, 2]);
  assert.deepEqual(r.dims, [3, 2]);
  assert.equal(r.data, t.data);
  assert.equal(await t.getData(true), r.data);
  assert.throws(() => t.data, /disposed/);
  assert.throws(() => new Tensor([]), TypeError);
  assert.throws(() => new Tensor(['a']), (e) => e.code === 'UnsupportedDtype');
});

test('env: versions, wasm flags taken at create, other execution providers fall back with one warning', async () => {
  assert.match(env.versions.common, /^\d+\.\d+\.\d+$/);
  env.wasm.simd = 'fixed';
  const warnings = [];
  const warn = console.warn;
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    for (let i = 0; i < 2; i++) {
      const s = await InferenceSession.create(twoOutputs, { executionProviders: ['webgpu', 'wasm'] });
      await s.release();
    }
  } finally {
    console.warn = warn;
  }
  assert.equal(webnxEnv.simd, 'simd');
  assert.ok(!webnxEnv.backend.includes('relaxed'), webnxEnv.backend);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /webgpu/);
});

test('a one-element tensor fed to an input declared scalar is taken as the scalar, as onnxruntime takes it', async () => {
  const scalarInput = onnxJsonToOnnx({
    irVersion: '8', opsetImport: [{ domain: '', version: '13' }],
    graph: {
      name: 'g',
      node: [{ opType: 'Add', input: ['x', 's'], output: ['y'] }],
      input: [vi('x', [{ dimValue: '3' }]), vi('s', [])],
      output: [vi('y', [{ dimValue: '3' }])],
    },
  });
  const theirs = await ort.InferenceSession.create(scalarInput);
  const ours = await InferenceSession.create(scalarInput);
  const feeds = (T) => ({ x: new T('float32', Float32Array.from([1, 2, 3]), [3]), s: new T('float32', Float32Array.from([10]), [1]) });
  const want = await theirs.run(feeds(ort.Tensor));
  const got = await ours.run(feeds(Tensor));
  assert.deepEqual(Array.from(got.y.data), Array.from(want.y.data));
  const two = { x: new Tensor('float32', Float32Array.from([1, 2, 3]), [3]), s: new Tensor('float32', Float32Array.from([1, 2]), [2]) };
  await assert.rejects(ours.run(two), (e) => e.code === 'ShapeMismatch' && /'s'/.test(e.message));
  await ours.release();
});

test('env.wasm.proxy runs the session in a worker, with the same results', async () => {
  const x = new Tensor(Float32Array.from([-1, 2, -3, 4, -5, 6]), [1, 2, 3]);
  const direct = await InferenceSession.create(twoOutputs);
  // Node's worker ids are never reused, so the proxied session's worker is the id that is new
  // after create() and gone after release() (other tests' workers may come and go meanwhile).
  const workerIds = () => new Set(process.report.getReport().workers.map((w) => w.header.threadId));
  const before = workerIds();
  env.wasm.proxy = true;
  const proxied = await InferenceSession.create(twoOutputs);
  env.wasm.proxy = false;
  const started = [...workerIds()].filter((id) => !before.has(id));
  assert.equal(started.length, 1, 'one worker started for the proxied session');
  const [a, b] = [await direct.run({ x }), await proxied.run({ x })];
  assert.deepEqual(Array.from(b.z.data), Array.from(a.z.data));
  assert.ok(b.z instanceof Tensor);
  await direct.release();
  await proxied.release();
  for (let i = 0; i < 100 && workerIds().has(started[0]); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(!workerIds().has(started[0]), 'release() ended the worker');
});

// In a fresh process: the runtime loads once per process, and this is about that load.
test('env.wasm.wasmBinary or wasmPaths holding onnxruntime-web\'s own build: webnx loads its own, with one warning', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    import { InferenceSession, Tensor, env } from ${JSON.stringify(new URL('../../js/ort.mjs', import.meta.url).href)};
    const warnings = [];
    console.warn = (...args) => warnings.push(args.join(' '));
    const ortDist = ${JSON.stringify(new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url).pathname)};
    if (process.argv[1] === 'binary') env.wasm.wasmBinary = readFileSync(ortDist + 'ort-wasm-simd-threaded.wasm');
    else env.wasm.wasmPaths = ortDist;
    const bytes = readFileSync(${JSON.stringify(modelPath('mobilenet_v2_dyn.onnx'))});
    for (let i = 0; i < 2; i++) {
      const s = await InferenceSession.create(bytes);
      await s.run({ input: new Tensor('float32', new Float32Array(3 * 224 * 224), [1, 3, 224, 224]) });
      await s.release();
    }
    console.log(JSON.stringify(warnings));`;
  for (const which of ['binary', 'paths']) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, which], { encoding: 'utf8' });
    const warnings = JSON.parse(out.trim().split('\n').pop());
    assert.equal(warnings.length, 1, `${which}: ${warnings.join('\n')}`);
    assert.match(warnings[0], /holds no webnx build/);
  }
});

// onnxruntime-node ignores freeDimensionOverrides; onnxruntime-web (here in Node, on its wasm
// backend) applies them, and is the reference.
test('freeDimensionOverrides fixes a symbolic dim as onnxruntime-web does: feeds must have it, bad values are refused alike', async () => {
  const ortWeb = await import('onnxruntime-web');
  ortWeb.env.wasm.numThreads = 1;
  const options = { freeDimensionOverrides: { T: 2 } };
  const ours = await InferenceSession.create(twoOutputs, options);
  const theirs = await ortWeb.InferenceSession.create(twoOutputs, options);
  const data = Float32Array.from({ length: 12 }, (_, i) => i - 6);
  const got = await ours.run({ x: new Tensor(data, [2, 2, 3]) });
  const want = await theirs.run({ x: new ortWeb.Tensor(data, [2, 2, 3]) });
  assert.deepEqual(Array.from(got.z.data), Array.from(want.z.data));
  // T is 2 now: a feed with T = 3 is refused by both.
  const odd = Float32Array.from({ length: 9 });
  await assert.rejects(theirs.run({ x: new ortWeb.Tensor(odd, [1, 3, 3]) }), /Got invalid dimensions/);
  await assert.rejects(ours.run({ x: new Tensor(odd, [1, 3, 3]) }), (e) => e.code === 'ShapeMismatch');
  for (const bad of [-1, 1.5, '2']) {
    const theirError = await ortWeb.InferenceSession.create(twoOutputs, { freeDimensionOverrides: { T: bad } }).catch((e) => e);
    const ourError = await InferenceSession.create(twoOutputs, { freeDimensionOverrides: { T: bad } }).catch((e) => e);
    assert.ok(ourError instanceof Error, String(bad));
    assert.equal(ourError.message, `free dimension override value must be a non-negative integer: ${bad}`);
    assert.ok(theirError instanceof Error && theirError.message.includes(ourError.message), theirError.message);
  }
  await ours.release();
  await theirs.release();
});

test('env.wasm.initTimeout bounds the runtime\'s loading with onnxruntime-web\'s message; logSeverityLevel 3 and env.logLevel \'error\' silence warnings', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    import { InferenceSession, env } from ${JSON.stringify(new URL('../../js/ort.mjs', import.meta.url).href)};
    const bytes = readFileSync(${JSON.stringify(modelPath('testdata/tiny_conv.onnx'))});
    const out = {};
    env.wasm.initTimeout = 1;  // a fresh process: reading and compiling the .wasm takes longer
    out.timedOut = await InferenceSession.create(bytes).then(() => 'created', (e) => e.message);
    env.wasm.initTimeout = 0;
    out.after = await InferenceSession.create(bytes).then(() => 'created', (e) => e.message);
    const warnings = [];
    console.warn = (...args) => warnings.push(args.join(' '));
    await InferenceSession.create(bytes, { executionProviders: ['webgpu'], logSeverityLevel: 3 });
    env.logLevel = 'error';
    await InferenceSession.create(bytes, { executionProviders: ['webnn'] });
    out.silenced = warnings.length;
    env.logLevel = 'warning';
    await InferenceSession.create(bytes, { executionProviders: ['webgpu'] });
    out.warned = warnings.length;
    console.log(JSON.stringify(out));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop());
  assert.deepEqual(out, { timedOut: 'WebAssembly backend initializing failed due to timeout: 1ms', after: 'created', silenced: 0, warned: 1 });
});

// y = x @ w, w [3, 2] kept outside the model: 24 bytes at offset 8 of 'w.bin'.
test('externalData: initializers stored outside the model, from bytes, a Blob or a path, as onnxruntime-web reads them', async () => {
  const ortWeb = await import('onnxruntime-web');
  ortWeb.env.wasm.numThreads = 1;
  const vi2 = (name, dims) => ({ name, type: { tensorType: { elemType: 1, shape: { dim: dims.map((d) => ({ dimValue: String(d) })) } } } });
  const bytes = onnxJsonToOnnx({
    irVersion: '8', opsetImport: [{ domain: '', version: '13' }],
    graph: {
      name: 'g', node: [{ opType: 'MatMul', input: ['x', 'w'], output: ['y'] }],
      initializer: [{ name: 'w', dims: ['3', '2'], dataType: 1, dataLocation: 'EXTERNAL',
        externalData: [{ key: 'location', value: 'w.bin' }, { key: 'offset', value: '8' }, { key: 'length', value: '24' }] }],
      input: [vi2('x', [2, 3])], output: [vi2('y', [2, 2])],
    },
  });
  const file = new Uint8Array(40);
  new Float32Array(file.buffer, 8, 6).set([1, 2, 3, 4, 5, 6.5]);
  const x = Float32Array.from([1, -1, 2, 0.5, 3, -2]);
  const theirs = await ortWeb.InferenceSession.create(bytes, { externalData: [{ path: 'w.bin', data: file }] });
  const want = Array.from((await theirs.run({ x: new ortWeb.Tensor(x, [2, 3]) })).y.data);
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const onDisk = `${mkdtempSync(`${tmpdir()}/webnx-ext-`)}/w.bin`;
  writeFileSync(onDisk, file);
  for (const data of [file, file.buffer, new Blob([file]), onDisk]) {
    const ours = await InferenceSession.create(bytes, { externalData: [{ path: 'w.bin', data }] });
    assert.deepEqual(Array.from((await ours.run({ x: new Tensor(x, [2, 3]) })).y.data), want, typeof data);
    await ours.release();
  }
  await assert.rejects(InferenceSession.create(bytes), (e) => e.code === 'InvalidArgument' && /'w\.bin', a file not given/.test(e.message));
  await assert.rejects(ortWeb.InferenceSession.create(bytes));
  await theirs.release();
});

test('errors are Errors with webnx\'s code, naming the input', async () => {
  const session = await InferenceSession.create(twoOutputs);
  const wrong = new Tensor('float32', new Float32Array(4), [1, 4]);
  await assert.rejects(session.run({ x: wrong }), (e) => e instanceof Error && e.code === 'ShapeMismatch' && /x/.test(e.message));
  await assert.rejects(session.run({ w: wrong }), (e) => e instanceof Error && typeof e.code === 'string' && /w/.test(e.message));
  await session.release();
});
