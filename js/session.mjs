import { WebnxError, lastWasmError } from './errors.mjs';
import { DTYPES, Tensor } from './tensor.mjs';
import { getRuntime } from './runtime.mjs';

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

// Model bytes from a path (Node), URL, ArrayBuffer, typed array or Blob/File.
async function readModel(source) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (typeof Blob !== 'undefined' && source instanceof Blob) return new Uint8Array(await source.arrayBuffer());
  if (typeof source === 'string' || source instanceof URL) {
    const isFileUrl = source instanceof URL ? source.protocol === 'file:' : source.startsWith('file:');
    const isHttp = /^https?:/i.test(String(source));
    if (isNode && !isHttp) {
      const { readFile } = await import('node:fs/promises');
      try {
        return new Uint8Array(await readFile(isFileUrl ? new URL(source) : source));
      } catch (e) {
        throw new WebnxError('InvalidArgument', `cannot read model '${source}': ${e.message}`);
      }
    }
    const response = await fetch(source);
    if (!response.ok) {
      throw new WebnxError('InvalidArgument', `fetching model '${source}' failed: HTTP ${response.status}`);
    }
    return new Uint8Array(await response.arrayBuffer());
  }
  throw new WebnxError('InvalidArgument',
    'InferenceSession.create takes a path, URL, ArrayBuffer, Uint8Array or Blob');
}

function dimsOf(info) {
  return info.dims === null ? null : info.dims;
}

export class InferenceSession {
  #runtime;
  #wasm;
  #inputs;
  #outputs;
  // [{ node, op, ms, shape }] from the last run made with { profile: true }, else null.
  lastProfile = null;

  constructor(runtime, wasm) {
    this.#runtime = runtime;
    this.#wasm = wasm;
    this.#inputs = wasm.inputs();
    this.#outputs = wasm.outputs();
  }

  // Loads a model: a path (Node), URL, ArrayBuffer, Uint8Array or Blob.
  // options.maxCachedPlans bounds the per-input-shape plan cache (default 8).
  static async create(source, options = {}) {
    const [runtime, bytes] = await Promise.all([getRuntime(), readModel(source)]);
    const wasm = new runtime.WasmSession();
    if (wasm.load(bytes, options.maxCachedPlans ?? 0) !== 0) {
      const error = lastWasmError(wasm);
      wasm.delete();
      throw error;
    }
    return new InferenceSession(runtime, wasm);
  }

  get inputNames() { return this.#inputs.map((i) => i.name); }
  get outputNames() { return this.#outputs.map((o) => o.name); }
  // [{ name, type, dims }] with dims entries a number, a symbol name, or null when unknown.
  get inputMetadata() { return this.#inputs.map((i) => ({ name: i.name, type: i.dtype, dims: dimsOf(i) })); }
  get outputMetadata() { return this.#outputs.map((o) => ({ name: o.name, type: o.dtype, dims: dimsOf(o) })); }

  // Counters of the plan cache and the last plan (plans built, cache hits, steps, folded nodes).
  get stats() {
    this.#checkOpen();
    return this.#wasm.stats();
  }

  // options.profile: also time every node; the timings are in session.lastProfile.
  async run(feeds, options = {}) {
    this.#checkOpen();
    if (feeds === null || typeof feeds !== 'object') {
      throw new WebnxError('InvalidInput', 'run() takes an object mapping input names to Tensors');
    }
    for (const [name, tensor] of Object.entries(feeds)) {
      if (!(tensor instanceof Tensor)) {
        throw new WebnxError('InvalidInput', `feed '${name}' is not a Tensor`);
      }
      const ptr = this.#wasm.allocInput(name, DTYPES[tensor.type].code, tensor.dims);
      if (!ptr) throw lastWasmError(this.#wasm);
      const src = tensor.data;
      this.#runtime.HEAPU8.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), ptr);
    }
    if (this.#wasm.run(Boolean(options.profile)) !== 0) throw lastWasmError(this.#wasm);
    this.lastProfile = options.profile ? this.#wasm.profile() : null;
    const results = {};
    const count = this.#wasm.outputCount();
    for (let i = 0; i < count; i++) {
      const type = this.#wasm.outputDtype(i);
      const dims = this.#wasm.outputDims(i);
      const ptr = this.#wasm.outputPtr(i);
      const bytes = this.#wasm.outputBytes(i);
      const copy = this.#runtime.HEAPU8.slice(ptr, ptr + bytes);
      const Array = DTYPES[type].array;
      results[this.#outputs[i].name] = new Tensor(type, new Array(copy.buffer, 0, bytes / Array.BYTES_PER_ELEMENT), dims);
    }
    return results;
  }

  // Frees everything the session holds in the wasm heap. The session cannot run afterwards.
  async release() {
    if (!this.#wasm) return;
    this.#wasm.release();
    this.#wasm.delete();
    this.#wasm = null;
  }

  #checkOpen() {
    if (!this.#wasm) throw new WebnxError('InvalidArgument', 'the session has been released');
  }
}

// Names of every operator the runtime implements ("Conv", "Relu", ...).
export async function supportedOps() {
  const runtime = await getRuntime();
  return runtime.supportedOps();
}
