// The worker backend of an InferenceSession (js/session.mjs, options.worker): the runtime in a
// dedicated Worker (browser) or a worker_threads worker (Node), so inference never blocks the
// page. The worker downloads the model itself (progress events are forwarded); bytes and
// tensors cross as transferred buffers.
import { WebnxError } from './errors.mjs';
import { Tensor } from './tensor.mjs';
import { env, singleFileConfigured } from './env.mjs';
import { wasmUrl } from './wasm-loader.mjs';
import { nodeBuiltin } from './node-builtin.mjs';
import { isNode } from './platform.mjs';

// Node takes the path through a variable so bundlers leave it alone (they handle the browser
// form below, `new Worker(new URL('./worker.mjs', import.meta.url), …)`, themselves).
const NODE_WORKER_FILE = './worker.mjs';

function revive(error) {
  const e = new WebnxError(error.code, '');
  e.message = error.message;
  return e;
}

// One worker and its pending calls, matched by id.
class Channel {
  #worker;
  #pending = new Map();
  #nextId = 1;
  #failure = null;
  #ready;
  #readyReject;

  constructor(worker) {
    this.#worker = worker;
    let readyResolve;
    this.#ready = new Promise((resolve, reject) => { readyResolve = resolve; this.#readyReject = reject; });
    this.#ready.catch(() => {}); // a failure is reported through the calls
    const onMessage = (msg) => {
      if (msg.type === 'ready') return readyResolve();
      const call = this.#pending.get(msg.id);
      if (!call) return;
      if (msg.type === 'progress') return call.onProgress?.({ loaded: msg.loaded, total: msg.total });
      this.#pending.delete(msg.id);
      this.#idle();
      if (msg.ok) call.resolve(msg.result);
      else call.reject(revive(msg.error));
    };
    const onError = (what) => this.#fail(new WebnxError('Internal',
      `the webnx worker stopped: ${what} — if you bundle webnx, make sure workers are emitted as ES modules ` +
      "(Vite: worker: { format: 'es' })"));
    if (isNode) {
      worker.on('message', onMessage);
      worker.on('error', (e) => onError(e.message));
      worker.on('exit', (code) => onError(`exit code ${code}`));
    } else {
      worker.addEventListener('message', (e) => onMessage(e.data));
      worker.addEventListener('error', (e) => { e.preventDefault?.(); onError(e.message || 'its script failed to load'); });
      worker.addEventListener('messageerror', () => onError('a message could not be decoded'));
    }
  }

  #fail(error) {
    if (this.#failure) return;
    this.#failure = error;
    this.#readyReject(error);
    for (const call of this.#pending.values()) call.reject(error);
    this.#pending.clear();
    this.#idle();
  }

  // Node: keep the process alive only while a call is in flight, so a session that is
  // never released does not hold the process open.
  #idle() {
    if (isNode && this.#pending.size === 0) this.#worker.unref();
  }

  async call(type, payload, transfer = [], onProgress = undefined) {
    if (this.#failure) throw this.#failure;
    await this.#ready;
    if (this.#failure) throw this.#failure;
    if (isNode) this.#worker.ref();
    const id = this.#nextId++;
    const result = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onProgress }));
    this.#worker.postMessage({ id, type, ...payload }, transfer);
    return result;
  }

  terminate() {
    this.#fail(new WebnxError('InvalidArgument', 'the session has been released'));
    this.#worker.terminate();
  }
}

async function startWorker() {
  if (isNode) {
    const { Worker } = await nodeBuiltin('worker_threads');
    return new Worker(new URL(NODE_WORKER_FILE, import.meta.url));
  }
  if (typeof Worker === 'undefined') {
    throw new WebnxError('InvalidArgument', 'worker: true needs Web Workers, which this environment lacks');
  }
  return new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
}

// What the worker needs to find webnx.wasm the way this page would: the bytes, or the folder or
// file made absolute (the worker would take a relative one from its own URL), and env.simd.
async function workerEnv() {
  const simd = env.simd === undefined ? {} : { simd: env.simd };
  const b = env.wasmBinary;
  if (b) return { ...simd, wasmBinary: b instanceof ArrayBuffer ? b.slice(0) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice() };
  if (singleFileConfigured()) return { ...simd, wasmPaths: { wasm: await wasmUrl() } };
  if (env.wasmPaths) return { ...simd, wasmPaths: await wasmUrl({ file: '' }) };
  return simd;
}

// The source as the worker should get it: paths and URLs as absolute strings (the worker
// fetches them, and finds a JSON model's side files next to them), a caller's bytes copied so
// its buffer stays usable, Blobs and JSON documents as they are (structured clone).
function modelForWorker(source) {
  if (typeof source === 'string' || source instanceof URL) {
    const text = String(source);
    const base = globalThis.location?.href;
    if (text.trimStart().startsWith('{') || !base) return { model: text, transfer: [] };
    return { model: new URL(text, base).href, transfer: [] };
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    const bytes = source instanceof ArrayBuffer ? new Uint8Array(source.slice(0))
      : new Uint8Array(source.buffer, source.byteOffset, source.byteLength).slice();
    return { model: bytes, transfer: [bytes.buffer] };
  }
  return { model: source, transfer: [] };
}

function plainOptions(options) {
  const out = {};
  for (const [k, v] of Object.entries(options)) if (k !== 'worker' && typeof v !== 'function') out[k] = v;
  return out;
}

class WorkerBackend {
  #channel;
  #stats;

  constructor(channel, created) {
    this.#channel = channel;
    this.inputMetadata = created.inputMetadata;
    this.outputMetadata = created.outputMetadata;
    this.warnings = created.warnings;
    this.#stats = created.stats;
  }

  // A snapshot taken after the last create/run (the worker owns the live counters).
  get stats() { return this.#stats; }

  // Feeds were checked by the session; they are copied (the caller keeps its arrays).
  async run(feeds, options) {
    const packed = {};
    const transfer = [];
    for (const [name, tensor] of Object.entries(feeds)) {
      const data = tensor.data.slice();
      packed[name] = { type: tensor.type, data, dims: tensor.dims };
      transfer.push(data.buffer);
    }
    const reply = await this.#channel.call('run', { feeds: packed, options }, transfer);
    this.#stats = reply.stats;
    const outputs = {};
    for (const [name, t] of Object.entries(reply.outputs)) outputs[name] = new Tensor(t.type, t.data, t.dims);
    return { outputs, profile: reply.lastProfile };
  }

  async release() {
    try {
      await this.#channel.call('release', {});
    } finally {
      this.#channel.terminate();
    }
  }
}

export async function createWorkerBackend(source, options) {
  const channel = new Channel(await startWorker());
  try {
    const wenv = await workerEnv();
    const { model, transfer } = modelForWorker(source);
    if (wenv.wasmBinary) transfer.push(wenv.wasmBinary.buffer ?? wenv.wasmBinary);
    const created = await channel.call('create', {
      model, env: wenv, options: plainOptions(options), progress: typeof options.onProgress === 'function',
    }, transfer, options.onProgress);
    return new WorkerBackend(channel, created);
  } catch (e) {
    channel.terminate();
    throw e;
  }
}
