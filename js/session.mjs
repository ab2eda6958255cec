// InferenceSession: one class over two backends, the wasm runtime in this thread
// (js/wasm-session.mjs) or in a dedicated worker (js/worker-session.mjs, options.worker). The
// session checks feeds and keeps the API; a backend loads, runs and releases.
import { WebnxError } from './errors.mjs';
import { Tensor, checkFeed } from './tensor.mjs';
import { getRuntime } from './runtime.mjs';
import { createWasmBackend } from './wasm-session.mjs';
import { createWorkerBackend } from './worker-session.mjs';

export class InferenceSession {
  #backend;
  #inputs;  // metadata, kept past release()
  #outputs;
  #warnings;
  // [{ node, op, ms, shape }] from the last run made with { profile: true }, else null.
  lastProfile = null;

  constructor(backend) {
    this.#backend = backend;
    this.#inputs = backend.inputMetadata;
    this.#outputs = backend.outputMetadata;
    this.#warnings = backend.warnings;
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
  // What the loader changed so that a document runs as its producer meant (NeatapticTS'
  // exports, docs/dsl.md) is printed with console.warn (by the worker in worker mode) and kept
  // in session.warnings.
  static async create(source, options = {}) {
    const backend = options.worker ? await createWorkerBackend(source, options)
      : await createWasmBackend(source, options);
    if (!options.worker) for (const w of backend.warnings) console.warn(`webnx: ${w}`);
    return new InferenceSession(backend);
  }

  get inputNames() { return this.#inputs.map((i) => i.name); }
  get outputNames() { return this.#outputs.map((o) => o.name); }
  // [{ name, type, dims }] with dims entries a number, a symbol name, or null when unknown.
  get inputMetadata() { return this.#inputs.map((m) => ({ ...m })); }
  get outputMetadata() { return this.#outputs.map((m) => ({ ...m })); }
  // The loader's warnings (see create), kept past release().
  get warnings() { return [...this.#warnings]; }

  // Counters of the plan cache and the last plan (plans built, cache hits, steps, folded nodes);
  // in worker mode a snapshot taken after the last create or run.
  get stats() {
    this.#checkOpen();
    return this.#backend.stats;
  }

  // options.profile: also time every node; the timings are in session.lastProfile.
  // options.outputs: the names of the outputs to compute and return (default: all).
  async run(feeds, options = {}) {
    this.#checkOpen();
    if (feeds === null || typeof feeds !== 'object') {
      throw new WebnxError('InvalidInput', 'run() takes an object mapping input names to Tensors');
    }
    const outputs = options.outputs;
    if (outputs !== undefined) {
      const names = this.outputMetadata.map((o) => o.name);
      if (!Array.isArray(outputs)) throw new WebnxError('InvalidArgument', 'options.outputs must be an array of output names');
      for (const name of outputs) {
        if (!names.includes(name)) {
          throw new WebnxError('InvalidArgument', `options.outputs names no output '${name}'; the outputs are ${names.join(', ')}`);
        }
      }
    }
    // Every feed is checked before anything is staged or sent.
    for (const [name, tensor] of Object.entries(feeds)) {
      if (!(tensor instanceof Tensor)) {
        throw new WebnxError('InvalidInput', `feed '${name}' is not a Tensor`);
      }
      checkFeed(name, tensor);
    }
    const result = await this.#backend.run(feeds, { profile: Boolean(options.profile), outputs });
    this.lastProfile = result.profile;
    return result.outputs;
  }

  // Frees everything the session holds in the wasm heap (and ends its worker). The session
  // cannot run afterwards.
  async release() {
    if (!this.#backend) return;
    const backend = this.#backend;
    this.#backend = null;
    await backend.release();
  }

  #checkOpen() {
    if (!this.#backend) throw new WebnxError('InvalidArgument', 'the session has been released');
  }
}

// Names of every operator the runtime implements ("Conv", "Relu", ...).
export async function supportedOps() {
  const runtime = await getRuntime();
  return runtime.supportedOps();
}
