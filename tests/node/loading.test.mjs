// Loading as an app sees it: progress events from every source kind, worker: true behind the
// same API, and a clear WasmLoadFailed when webnx.wasm is not WebAssembly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import http from 'node:http';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { MAX_MODEL_BYTES, readStream } from '../../js/heap-readers.mjs';
import { modelPath, openFiles, relativeMaxError, repoRoot, seededFloats } from './helpers.mjs';

const run = promisify(execFile);
const tinyPath = modelPath('testdata/tiny_conv.onnx');
const mobilenet = modelPath('mobilenet_v3_small.onnx');

function checkProgress(events, size, atLeast = 2) {
  assert.ok(events.length >= atLeast, `${events.length} events`);
  assert.deepEqual(events.at(-1), { loaded: size, total: size });
  for (let i = 1; i < events.length; i++) assert.ok(events[i].loaded >= events[i - 1].loaded);
}

// A local server for the model: with Content-Length, chunked (no total), or gzip-encoded (its
// Content-Length counts the compressed bytes).
async function withServer(bytes, fn) {
  const gzipped = gzipSync(bytes);
  const server = http.createServer((req, res) => {
    if (req.url.includes('missing')) {
      res.writeHead(404, { 'Content-Type': 'text/html' });
      return res.end('<!doctype html><h1>Not found</h1>');
    }
    const gzip = req.url.includes('gzip');
    const body = gzip ? gzipped : bytes;
    if (gzip) res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': body.length });
    else res.writeHead(200, req.url.includes('chunked') ? {} : { 'Content-Length': body.length });
    for (let i = 0; i < body.length; i += 1 << 16) res.write(body.subarray(i, i + (1 << 16)));
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.close();
  }
}

test('onProgress reports a path, a file URL, a Blob and bytes up to loaded === total', async () => {
  const bytes = await readFile(mobilenet);
  for (const source of [mobilenet, pathToFileURL(mobilenet), new Blob([bytes]), new Uint8Array(bytes)]) {
    const events = [];
    const s = await InferenceSession.create(source, { onProgress: (e) => events.push(e) });
    checkProgress(events, bytes.length, source instanceof Uint8Array ? 1 : 2); // bytes: one event
    await s.release();
  }
});

test('onProgress over HTTP: with Content-Length, chunked, and a 404', async () => {
  const bytes = new Uint8Array(await readFile(mobilenet));
  await withServer(bytes, async (base) => {
    const events = [];
    const s = await InferenceSession.create(`${base}/m.onnx`, { onProgress: (e) => events.push(e) });
    checkProgress(events, bytes.length);
    await s.release();
    const chunked = [];
    const c = await InferenceSession.create(`${base}/chunked.onnx`, { onProgress: (e) => chunked.push(e) });
    assert.equal(chunked.at(-1).loaded, bytes.length);
    assert.equal(chunked.at(-1).total, undefined);
    await c.release();
    await assert.rejects(InferenceSession.create(`${base}/missing.onnx`), { code: 'InvalidArgument', message: /HTTP 404/ });
  });
});

// Paths, downloads and Blobs go straight into the heap (paths in 4 MB reads with a turn of the
// event loop between them, downloads of known size chunk by chunk as they arrive, chunked and
// compressed ones once they have all come): sessions loading at once (whose heap growth
// replaces the heap's view in between) get the same outputs as from bytes, and no file stays
// open, whether the load succeeds or fails before or after reading.
test('models read into the heap: same outputs as bytes with loads interleaved, no file left open', async () => {
  const v2 = modelPath('mobilenet_v2.onnx');
  const corrupt = `${os.tmpdir()}/webnx-corrupt-${process.pid}.onnx`;
  const openModels = () => openFiles().filter((file) => [v2, mobilenet, corrupt].includes(file));
  const [v2Bytes, v3Bytes] = [await readFile(v2), await readFile(mobilenet)];
  await withServer(v2Bytes, async (base) => {
    const sessions = await Promise.all([v2, `${base}/m.onnx`, new Blob([v3Bytes]), mobilenet,
      `${base}/chunked.onnx`, `${base}/gzip.onnx`, v2Bytes, v3Bytes].map(
      (source) => InferenceSession.create(source, { numThreads: 1 })));
    const x = new Tensor('float32', seededFloats(3 * 224 * 224, 77), [1, 3, 224, 224]);
    const [a, b, c, d, e, f, want2, want3] = await Promise.all(sessions.map(
      (s) => s.run({ [s.inputNames[0]]: x }).then((out) => Object.values(out)[0].data)));
    assert.deepEqual(a, want2, 'path');
    assert.deepEqual(b, want2, 'download');
    assert.deepEqual(c, want3, 'Blob');
    assert.deepEqual(d, want3, 'path');
    assert.deepEqual(e, want2, 'chunked download');
    assert.deepEqual(f, want2, 'gzip-encoded download');
    await Promise.all(sessions.map((s) => s.release()));
  });
  assert.deepEqual(openModels(), []);
  await writeFile(corrupt, v3Bytes.subarray(0, 100_000));
  try {
    await assert.rejects(InferenceSession.create(corrupt), { code: 'MalformedModel' });
    await assert.rejects(InferenceSession.create(v2, { limits: { maxNode: 1 } }), { code: 'InvalidArgument' });
  } finally {
    await rm(corrupt);
  }
  assert.deepEqual(openModels(), []);
});

// A download cut short (of its Content-Length, or chunked with no total), or an HTML page
// served with 200, is a clear InvalidArgument; the next load works.
test('a download cut short or an HTML page: InvalidArgument, and the next load works', async () => {
  const bytes = new Uint8Array(await readFile(mobilenet));
  const server = http.createServer((req, res) => {
    if (req.url.includes('html')) {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return res.end('<!DOCTYPE html><html><body>app shell</body></html>');
    }
    res.writeHead(200, req.url.includes('chunked') ? {} : { 'Content-Length': bytes.length });
    res.write(bytes.subarray(0, 1 << 20), () => res.socket.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    await assert.rejects(InferenceSession.create(`${base}/cut.onnx`, { numThreads: 1 }),
      { code: 'InvalidArgument', message: new RegExp(`reading model '${base}/cut.onnx' failed`) });
    await assert.rejects(InferenceSession.create(`${base}/cut-chunked.onnx`, { numThreads: 1 }),
      { code: 'InvalidArgument', message: new RegExp(`reading model '${base}/cut-chunked.onnx' failed`) });
    await assert.rejects(InferenceSession.create(`${base}/html.onnx`, { numThreads: 1 }),
      { code: 'InvalidArgument', message: /got HTML instead of a model/ });
  } finally {
    server.close();
  }
  const s = await InferenceSession.create(bytes, { numThreads: 1 });
  await s.release();
});

// A download larger than the 4 GiB heap fails with OutOfMemory as soon as that is known, its
// read stopped: at once when its Content-Length says so, else when the bytes pass the bound
// (here a stream that repeats one 64 MiB chunk, so the test holds no 4 GiB).
test('a download too large for the heap: OutOfMemory, its read stopped', async () => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Length': 5_000_000_000 });
    res.write(new Uint8Array(1 << 16));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await assert.rejects(InferenceSession.create(`http://127.0.0.1:${server.address().port}/big.onnx`),
      { code: 'OutOfMemory', message: /holds 5000000000 bytes, more than the 4294967295 bytes the wasm heap can hold/ });
  } finally {
    server.closeAllConnections();
    server.close();
  }
  const chunk = new Uint8Array(64 << 20);
  let reads = 0;
  let cancelled = false;
  const endless = {
    read: async () => { reads += 1; return { done: false, value: chunk }; },
    cancel: async () => { cancelled = true; },
  };
  await assert.rejects(readStream(endless, {}, () => {}, "'endless'"),
    { code: 'OutOfMemory', message: /model 'endless' holds more than the 4294967295 bytes/ });
  assert.equal(reads, Math.floor(MAX_MODEL_BYTES / chunk.length) + 1);
  assert.ok(cancelled);
});

test('worker: true gives the same outputs, metadata, profile and errors as a direct session', async () => {
  const direct = await InferenceSession.create(tinyPath);
  const events = [];
  const worker = await InferenceSession.create(tinyPath, { worker: true, onProgress: (e) => events.push(e) });
  assert.ok(events.length > 0);
  assert.ok(worker instanceof InferenceSession, 'one class, whichever backend runs it');
  assert.deepEqual(worker.inputMetadata, direct.inputMetadata);
  assert.deepEqual(worker.outputNames, direct.outputNames);
  const data = seededFloats(3 * 50, 3);
  const x = new Tensor('float32', data, [3, 2, 5, 5]);
  const want = await direct.run({ x });
  const got = await worker.run({ x }, { profile: true });
  assert.deepEqual(Array.from(got.y.data), Array.from(want.y.data));
  assert.deepEqual(got.y.dims, [3, 4, 5, 5]);
  assert.deepEqual(Array.from(x.data), Array.from(data), 'the caller keeps its input');
  assert.ok(worker.lastProfile.length > 0 && worker.lastProfile.every((p) => p.ms >= 0 && p.op));
  assert.equal(worker.stats.plansBuilt, 1);
  await assert.rejects(worker.run({ nope: x }), { code: 'InvalidInput', message: /unknown input 'nope'/ });
  assert.equal((await worker.run({ x })).y.dims[0], 3, 'still usable after an error');
  await worker.release();
  await assert.rejects(worker.run({ x }), { code: 'InvalidArgument', message: /released/ });
  await direct.release();
  await assert.rejects(InferenceSession.create(modelPath('testdata/unknown_ops.onnx'), { worker: true }),
    { code: 'UnsupportedOperator' });
});

test('worker: true on MobileNetV3 matches the direct session', async () => {
  const direct = await InferenceSession.create(mobilenet);
  const worker = await InferenceSession.create(await readFile(mobilenet), { worker: true });
  const x = new Tensor('float32', seededFloats(3 * 224 * 224, 1235), [1, 3, 224, 224]);
  const a = (await direct.run({ input: x })).output.data;
  const b = (await worker.run({ input: x })).output.data;
  assert.ok(relativeMaxError(b, a) <= 1e-6);
  await Promise.all([direct.release(), worker.release()]);
});

// Each case in a fresh process: the runtime is loaded once per process.
async function loadIn(child, options = '{}') {
  const script = `import { env, InferenceSession } from ${JSON.stringify(pathToFileURL(`${repoRoot}/js/index.mjs`).href)};
${child}
try { await InferenceSession.create(${JSON.stringify(tinyPath)}, ${options}); console.log('loaded'); }
catch (e) { console.log(e.code + ' | ' + e.message); }`;
  const { stdout } = await run('node', ['--input-type=module', '-e', script], { timeout: 30_000 });
  return stdout.trim();
}

test('env.wasmBinary holding an HTML page: WasmLoadFailed "got HTML instead of webnx.wasm"', async () => {
  const out = await loadIn(`env.wasmBinary = new TextEncoder().encode('<!DOCTYPE html><html>404</html>');`);
  assert.match(out, /^WasmLoadFailed \| WasmLoadFailed: got HTML instead of webnx\.wasm from env\.wasmBinary/);
});

test('env.wasmPaths pointing at a server that answers 404 with HTML', async () => {
  await withServer(new Uint8Array(0), async (base) => {
    // Node has threads, so the threaded build is fetched (from mt/ in that folder); one thread
    // asks for the single-threaded build.
    const threaded = await loadIn(`env.wasmPaths = '${base}/missing/';`);
    assert.match(threaded, new RegExp(`^WasmLoadFailed \\| .*got HTML instead of webnx\\.wasm from ${base}/missing/mt/webnx-mt\\.wasm \\(HTTP 404\\) — check env\\.wasmPaths`));
    const single = await loadIn(`env.wasmPaths = '${base}/missing/';`, '{ numThreads: 1 }');
    assert.match(single, new RegExp(`^WasmLoadFailed \\| .*got HTML instead of webnx\\.wasm from ${base}/missing/webnx\\.wasm \\(HTTP 404\\) — check env\\.wasmPaths`));
  });
});

test('env.wasmPaths as a folder path and env.wasmBinary as bytes both load', async () => {
  assert.equal(await loadIn(`env.wasmPaths = ${JSON.stringify(`${repoRoot}/dist/`)};`), 'loaded');
  assert.equal(await loadIn(`env.wasmBinary = (await import('node:fs')).readFileSync(${JSON.stringify(`${repoRoot}/dist/webnx.wasm`)});`), 'loaded');
  assert.match(await loadIn(`env.wasmBinary = new Uint8Array([1, 2, 3, 4, 5]);`), /WasmLoadFailed .*starts with 01 02 03 04/);
});
