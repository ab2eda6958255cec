// The in-thread backend of an InferenceSession (js/session.mjs): the wasm runtime in this
// thread. Loads a model into a WasmSession (wasm/bindings.cc), stages feeds in the heap and
// copies outputs out of it.
import { WebnxError, lastWasmError } from './errors.mjs';
import { DTYPES, Tensor } from './tensor.mjs';
import { getRuntime } from './runtime.mjs';
import { chooseThreads, getThreadedRuntime, noteBackend } from './backend.mjs';
import { openModel } from './fetch-model.mjs';
import { applyExporterRules, isJsonBytes, isJsonDocument, jsonModel, jsonSideFiles } from './json-source.mjs';

// A model from a path (Node), URL, ArrayBuffer, typed array or Blob/File, with progress:
// { bytes } or { heap } (read into the heap by create: heap-readers.mjs) for ONNX, or
// { json, doc, base, warnings } for a JSON graph document (docs/dsl.md), with its exporter's
// compatibility rules applied.
async function readModel(source, onProgress) {
  if (isJsonDocument(source)) return applyExporterRules(jsonModel(source));
  const opened = await openModel(source, onProgress, isJsonBytes);
  if (opened.heap || !isJsonBytes(opened.bytes, source)) return opened;
  return applyExporterRules(jsonModel(opened.bytes, typeof source === 'string' || source instanceof URL ? source : null));
}

// A limit or a dim size from JS: a non-negative integer a JS number holds exactly (up to 2^53).
const isCount = (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2 ** 53;

// options.limits onto a new WasmSession: keys are the runtime's limit names ("maxNodes"...),
// values non-negative integers. An unknown key or a bad value is InvalidArgument, so that a typo
// never silently keeps a default.
function setLimits(runtime, wasm, limits) {
  if (limits === undefined || limits === null) return;
  if (typeof limits !== 'object') throw new WebnxError('InvalidArgument', 'options.limits must be an object');
  const names = runtime.WasmSession.limitNames().split(',');
  for (const [key, value] of Object.entries(limits)) {
    const index = names.indexOf(key);
    if (index < 0) throw new WebnxError('InvalidArgument', `unknown limit '${key}'; the limits are ${names.join(', ')}`);
    if (!isCount(value)) throw new WebnxError('InvalidArgument', `limits.${key} must be a non-negative integer`);
    wasm.setLimit(index, value);
  }
}

// options.freeDimensionOverrides onto a new WasmSession: sizes, non-negative integers, for
// symbolic dims by name.
function overrideDims(wasm, sizes) {
  if (sizes === undefined || sizes === null) return;
  if (typeof sizes !== 'object') throw new WebnxError('InvalidArgument', 'options.freeDimensionOverrides must be an object');
  for (const [symbol, size] of Object.entries(sizes)) {
    if (!isCount(size)) {
      throw new WebnxError('InvalidArgument', `freeDimensionOverrides.${symbol} must be a non-negative integer`);
    }
    wasm.overrideDim(symbol, size);
  }
}

function metadata(infos) {
  return infos.map((i) => ({ name: i.name, type: i.dtype, dims: i.dims === null ? null : i.dims }));
}

class WasmBackend {
  #runtime;
  #wasm;

  constructor(runtime, wasm, warnings) {
    this.#runtime = runtime;
    this.#wasm = wasm;
    this.inputMetadata = metadata(wasm.inputs());
    this.outputMetadata = metadata(wasm.outputs());
    this.warnings = warnings;
  }

  get stats() { return this.#wasm.stats(); }

  // Feeds were checked by the session. All or nothing: a failure while staging drops what was
  // staged, so no later run can see this one's feeds.
  async run(feeds, options) {
    const wasm = this.#wasm;
    try {
      for (const [name, tensor] of Object.entries(feeds)) {
        const ptr = wasm.allocInput(name, DTYPES[tensor.type].code, tensor.dims);
        if (!ptr) throw lastWasmError(wasm);
        const src = tensor.data;
        this.#runtime.HEAPU8.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), ptr);
      }
    } catch (e) {
      wasm.discardInputs();
      throw e;
    }
    const fetched = options.outputs ? this.outputMetadata.map((o) => (options.outputs.includes(o.name) ? '1' : '0')) : [];
    if (wasm.run(Boolean(options.profile), fetched.join('')) !== 0) throw lastWasmError(wasm);
    const outputs = {};
    for (let i = 0; i < wasm.outputCount(); i++) {
      if (fetched[i] === '0') continue;
      const type = wasm.outputDtype(i);
      const ptr = wasm.outputPtr(i);
      const bytes = wasm.outputBytes(i);
      const copy = this.#runtime.HEAPU8.slice(ptr, ptr + bytes);
      const Array = DTYPES[type].array;
      outputs[this.outputMetadata[i].name] =
        new Tensor(type, new Array(copy.buffer, 0, bytes / Array.BYTES_PER_ELEMENT), wasm.outputDims(i));
    }
    return { outputs, profile: options.profile ? wasm.profile() : null };
  }

  async release() {
    this.#wasm.release();
    this.#wasm.delete();
  }
}

async function load(runtime, model, files, threads, options) {
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
    setLimits(runtime, wasm, options.limits);
    overrideDims(wasm, options.freeDimensionOverrides);
    let status = 0;
    for (const [name, bytes] of files ?? []) {
      if (status !== 0) break;
      if (await stage(bytes)) wasm.addExternalFile(name);
      else status = 1;
    }
    if (status === 0) {
      const json = typeof model.json === 'string' ? new TextEncoder().encode(model.json) : model.json;
      if (!(await stage(model.json !== undefined ? json : model.heap ?? model.bytes))) status = 1;
      else status = wasm.load(options.maxCachedPlans ?? 0, model.json !== undefined);
    }
    if (status !== 0) throw lastWasmError(wasm);
  } catch (e) {
    wasm.delete();
    throw e;
  }
  await runtime.webnxWorkersLoaded;  // threaded build: its workers loaded beside the model
  return new WasmBackend(runtime, wasm, model.warnings ?? []);
}

// The runtime build a session of `numThreads` threads runs in (the threaded one when more than
// one thread can be had): the thread count, and the runtime's loading.
export async function sessionRuntime(numThreads) {
  const threads = await chooseThreads(numThreads);
  return { threads, loading: threads > 1 ? getThreadedRuntime() : getRuntime() };
}

// Loads a model: the runtime build for the thread count, the model's bytes (and its side files:
// a JSON document's, or those options.files gives an ONNX model's external data), into a new
// WasmSession.
export async function createWasmBackend(source, options) {
  const { threads, loading } = await sessionRuntime(options.numThreads);
  const [runtime, model] = await Promise.all([loading, readModel(source, options.onProgress)]);
  let files = null;
  try {
    noteBackend(threads, runtime);
    files = model.json !== undefined ? await jsonSideFiles(model, options.files)
      : options.files ? await jsonSideFiles({ base: null }, options.files) : null;
    return await load(runtime, model, files, threads, options);
  } finally {
    // Heap readers a failed load did not get to: their files close, their downloads stop.
    model.heap?.close();
    for (const file of files?.values() ?? []) file.close?.();
  }
}
