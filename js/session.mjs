import { WebnxError, lastWasmError } from './errors.mjs';
import { DTYPES, Tensor, checkFeed } from './tensor.mjs';
import { getRuntime } from './runtime.mjs';
import { chooseThreads, getThreadedRuntime, noteBackend } from './backend.mjs';
import { openModel } from './fetch-model.mjs';
import { createWorkerSession } from './worker-session.mjs';
import { isJsonBytes, isJsonDocument, jsonModel, jsonSideFiles } from './json-source.mjs';

// A model from a path (Node), URL, ArrayBuffer, typed array or Blob/File, with progress:
// { bytes } or { heap } (read into the heap by create: heap-readers.mjs) for ONNX, or
// { json, doc, base } for a JSON graph document (docs/dsl.md).
async function readModel(source, onProgress) {
  if (isJsonDocument(source)) return jsonModel(source);
  const opened = await openModel(source, onProgress, isJsonBytes);
  if (opened.heap || !isJsonBytes(opened.bytes, source)) return opened;
  return jsonModel(opened.bytes, typeof source === 'string' || source instanceof URL ? source : null);
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

  // Loads a model: a path (Node), URL, ArrayBuffer, Uint8Array or Blob holding ONNX or a JSON
  // graph document, or the document as JSON text or a parsed object.
  // options.maxCachedPlans bounds the per-input-shape plan cache (default 8).
  // options.limits bounds what the model may ask for ({ maxNodes, maxTensorBytes, ... }: see
  // SessionLimits in index.d.ts); exceeding one fails with MalformedModel or OutOfMemory.
  // options.files maps the side files a JSON document names to their bytes (read from beside
  // a .json path or URL automatically).
  // options.numThreads: threads per run (default: the cores, at most 4, where SharedArrayBuffer
  // is usable — always in Node, in browsers on cross-origin-isolated pages; 1 elsewhere; never
  // more than the cores, nor 4); env.backend then says which build was loaded ('wasm-mt' or
  // 'wasm').
  // options.onProgress({ loaded, total }) follows the download; options.worker runs the session
  // in a dedicated Worker (worker_threads in Node) behind the same API.
  static async create(source, options = {}) {
    if (options.worker) return createWorkerSession(source, options);
    const threads = await chooseThreads(options.numThreads);
    const [runtime, model] = await Promise.all([
      threads > 1 ? getThreadedRuntime() : getRuntime(), readModel(source, options.onProgress)]);
    let files = null;
    try {
      noteBackend(threads);
      files = model.json === undefined ? null : await jsonSideFiles(model, options.files);
      return await InferenceSession.#load(runtime, model, files, threads, options);
    } finally {
      // Heap readers a failed load did not get to: their files close, their downloads stop.
      model.heap?.close();
      for (const file of files?.values() ?? []) file.close?.();
    }
  }

  static async #load(runtime, model, files, threads, options) {
    const wasm = new runtime.WasmSession();
    try {
      wasm.setNumThreads(Math.min(threads, runtime.WasmSession.maxThreads()));
      // Bytes enter the heap with one HEAPU8.set, a heap reader with reads into it; 0 from
      // stageBytes means the heap is full.
      const stage = async (bytes) => {
        const ptr = wasm.stageBytes(bytes instanceof Uint8Array ? bytes.byteLength : bytes.size);
        if (!ptr) return false;
        if (bytes instanceof Uint8Array) runtime.HEAPU8.set(bytes, ptr);
        else await bytes.readInto(() => runtime.HEAPU8, ptr);
        return true;
      };
      let status = wasm.setLimits(options.limits);
      for (const [name, bytes] of files ?? []) {
        if (status !== 0) break;
        if (await stage(bytes)) wasm.addExternalFile(name);
        else status = 1;
      }
      if (status === 0) {
        const json = typeof model.json === 'string' ? new TextEncoder().encode(model.json) : model.json;
        if (!(await stage(files ? json : model.heap ?? model.bytes))) status = 1;
        else status = files ? wasm.loadJson(options.maxCachedPlans ?? 0) : wasm.load(options.maxCachedPlans ?? 0);
      }
      if (status !== 0) throw lastWasmError(wasm);
    } catch (e) {
      wasm.delete();
      throw e;
    }
    await runtime.webnxWorkersLoaded;  // threaded build: its workers loaded beside the model
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
    // All or nothing: every feed is checked before any is staged, and a failure while staging
    // drops what was staged, so no later run can see this one's feeds.
    const entries = Object.entries(feeds);
    for (const [name, tensor] of entries) {
      if (!(tensor instanceof Tensor)) {
        throw new WebnxError('InvalidInput', `feed '${name}' is not a Tensor`);
      }
      checkFeed(name, tensor);
    }
    try {
      for (const [name, tensor] of entries) {
        const ptr = this.#wasm.allocInput(name, DTYPES[tensor.type].code, tensor.dims);
        if (!ptr) throw lastWasmError(this.#wasm);
        const src = tensor.data;
        this.#runtime.HEAPU8.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), ptr);
      }
    } catch (e) {
      this.#wasm.discardInputs();
      throw e;
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
