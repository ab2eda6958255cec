// webnx/ort: onnxruntime-web's public surface over webnx (InferenceSession, Tensor and env as
// onnxruntime-common 1.30 defines them), so that a library written against 'onnxruntime-web'
// runs unchanged when a bundler alias or an import map resolves that name here. What maps one to
// one, what differs and what is not there yet: docs/migrating-from-onnxruntime-web.md.
import { InferenceSession as WebnxSession } from './session.mjs';
import { Tensor as WebnxTensor } from './tensor.mjs';
import { env as webnxEnv } from './env.mjs';
import { WebnxError } from './errors.mjs';
import { sessionRuntime } from './wasm-session.mjs';
import { nodeBuiltin } from './node-builtin.mjs'; // keeps node:* out of browser bundles
import { isNode } from './platform.mjs';
import { tensorFromImage, tensorToDataURL, tensorToImageData } from './ort-image.mjs';

// The onnxruntime-common release whose surface this module follows.
const SURFACE_VERSION = '1.30.0';

// onnxruntime-web's `env`: read when a session is created (the runtime's settings, wasm.*, only
// by the first one, as there).
export const env = {
  wasm: { numThreads: 0, simd: undefined, proxy: false, initTimeout: 0, trace: false,
    wasmPaths: undefined, wasmBinary: undefined },
  webgl: {},
  webgpu: { profiling: {} },
  logLevel: 'warning',
  debug: false,
  trace: false,
  versions: { common: SURFACE_VERSION, web: SURFACE_VERSION },
};

// A wasmPaths or wasmBinary that held no webnx build (onnxruntime-web's own files, often a
// library's CDN default, or its bytes): not forwarded again.
const ignored = { wasmPaths: undefined, wasmBinary: undefined };

// env.wasm's runtime settings onto webnx's env, before its runtime loads; true when a location
// of the .wasm came from there.
function applyWasmFlags() {
  const { simd, wasmPaths, wasmBinary } = env.wasm;
  let forwarded = false;
  for (const [key, value] of [['wasmPaths', wasmPaths], ['wasmBinary', wasmBinary]]) {
    if (value === undefined || value === ignored[key]) continue;
    webnxEnv[key] = value;
    forwarded = true;
  }
  // false and 'fixed' ask for the build without relaxed SIMD; webnx has no build without SIMD.
  if (simd === false || simd === 'fixed') webnxEnv.simd = 'simd';
  if (simd === 'relaxed') webnxEnv.simd = 'relaxed';
  return forwarded;
}

const TYPE_OF_ARRAY = new Map([
  [Float32Array, 'float32'], [Float64Array, 'float64'], [Int8Array, 'int8'], [Uint8Array, 'uint8'],
  [Int16Array, 'int16'], [Uint16Array, 'uint16'], [Int32Array, 'int32'], [Uint32Array, 'uint32'],
  [BigInt64Array, 'int64'], [BigUint64Array, 'uint64'],
]);
if (globalThis.Float16Array) TYPE_OF_ARRAY.set(globalThis.Float16Array, 'float16');

// (type, data) of the constructor form without a type: a typed array, a boolean array, or a
// Uint8ClampedArray (uint8, copied).
function inferType(data) {
  if (Array.isArray(data)) {
    if (data.length === 0) throw new TypeError('a tensor type cannot be inferred from an empty array');
    if (typeof data[0] === 'boolean') return ['bool', Uint8Array.from(data)];
    if (typeof data[0] === 'string') {
      throw new WebnxError('UnsupportedDtype', 'string tensors are not supported by webnx');
    }
    throw new TypeError(`a tensor type cannot be inferred from an array of ${typeof data[0]}`);
  }
  if (data instanceof Uint8ClampedArray) return ['uint8', Uint8Array.from(data)];
  const type = data && TYPE_OF_ARRAY.get(data.constructor);
  if (!type) throw new TypeError(`unsupported tensor data: ${data?.constructor?.name ?? data}`);
  return [type, data];
}

// A webnx Tensor that also answers as onnxruntime's does: its data in 'cpu' memory, getData(),
// dispose() (after which its data is gone) and reshape() (the same data, other dims).
export class Tensor extends WebnxTensor {
  #data;

  constructor(typeOrData, dataOrDims, dims) {
    if (typeof typeOrData === 'string') {
      const data = typeOrData === 'uint8' && dataOrDims instanceof Uint8ClampedArray
        ? Uint8Array.from(dataOrDims) : dataOrDims;
      super(typeOrData, data, dims);
    } else {
      const [type, data] = inferType(typeOrData);
      super(type, data, dataOrDims);
    }
    this.#data = this.data;
    // data reads the private field: a disposed tensor says so instead of handing out nothing.
    Object.defineProperty(this, 'data', {
      get: () => {
        if (this.#data === undefined) throw new WebnxError('InvalidArgument', 'the tensor is disposed');
        return this.#data;
      },
      set: (value) => { this.#data = value; },
      enumerable: true,
    });
  }

  get location() { return 'cpu'; }
  get cpuData() { return this.data; }

  async getData(releaseData = false) {
    const data = this.data;
    if (releaseData) this.dispose();
    return data;
  }

  dispose() { this.#data = undefined; }

  reshape(dims) { return new Tensor(this.type, this.data, dims); }

  // Browsers (a canvas): js/ort-image.mjs.
  static fromImage(image, options) {
    return tensorFromImage(image, options, (type, data, dims) => new Tensor(type, data, dims));
  }
  toImageData(options) { return tensorToImageData(this, options); }
  toDataURL(options) { return tensorToDataURL(this, options); }
}

const CPU_PROVIDERS = new Set(['wasm', 'cpu']);
let warnedProviders = false;

// onnxruntime's levels: a warning is printed (and true returned) unless env.logLevel or the
// session's logSeverityLevel (0 verbose ... 2 warning, 3 error, 4 fatal) asks for errors only.
function warn(options, message) {
  if (env.logLevel === 'error' || env.logLevel === 'fatal' || options.logSeverityLevel >= 3) return false;
  console.warn(message);
  return true;
}

// The runtime a session of these options loads in this thread, within env.wasm.initTimeout ms
// (0: no limit), with onnxruntime-web's message when it takes longer. The session then takes
// the same loaded runtime.
async function initRuntime(options) {
  const timeout = env.wasm.initTimeout;
  if (!(typeof timeout === 'number' && timeout > 0) || options.worker) return;
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`WebAssembly backend initializing failed due to timeout: ${timeout}ms`)), timeout);
  });
  const loaded = sessionRuntime(options.numThreads).then(({ loading }) => loading);
  try {
    await Promise.race([loaded, expired]);
  } finally {
    clearTimeout(timer);
  }
}

// webnx's create() options from onnxruntime's session options and env.
function sessionOptions(options) {
  const providers = (options.executionProviders ?? []).map((p) => (typeof p === 'string' ? p : p?.name));
  const others = providers.filter((name) => !CPU_PROVIDERS.has(name));
  if (others.length && !warnedProviders) {
    warnedProviders = warn(options, `webnx: execution provider(s) ${others.join(', ')} are not available; running on wasm`);
  }
  const out = {};
  if (options.freeDimensionOverrides) {
    for (const value of Object.values(options.freeDimensionOverrides)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        throw new Error(`free dimension override value must be a non-negative integer: ${value}`);
      }
    }
    out.freeDimensionOverrides = options.freeDimensionOverrides;
  }
  if (env.wasm.numThreads > 0) out.numThreads = env.wasm.numThreads;
  if (env.wasm.proxy) out.worker = true;
  return out;
}

// options.externalData ([{ path, data }], data bytes, a Blob, or a URL or path to read) as
// webnx's files option: the side files an ONNX model's external initializers name.
async function externalFiles(descriptions) {
  const files = new Map();
  for (const { path, data } of descriptions) {
    let bytes = data;
    if (typeof data === 'string') {
      const isUrl = /^[a-z][a-z0-9+.-]*:/i.test(data);
      bytes = isNode && (!isUrl || /^file:/i.test(data))
        ? await (await nodeBuiltin('fs')).promises.readFile(isUrl ? new URL(data) : data)
        : await (await fetch(new URL(data, globalThis.location?.href))).arrayBuffer();
    } else if (typeof Blob !== 'undefined' && data instanceof Blob) {
      bytes = await data.arrayBuffer();
    }
    files.set(path, bytes);
  }
  return files;
}

// The model source of create()'s forms: (path or URL), (ArrayBuffer[, byteOffset[, byteLength]]),
// (Uint8Array), each with options last; checked as onnxruntime checks them.
function createArgs(arg0, arg1, arg2, arg3) {
  if (typeof arg0 === 'string' || arg0 instanceof URL) return { source: arg0, options: arg1 ?? {} };
  if (arg0 instanceof Uint8Array) return { source: arg0, options: arg1 ?? {} };
  const isBuffer = arg0 instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && arg0 instanceof SharedArrayBuffer);
  if (!isBuffer) throw new TypeError("create() takes a path, a URL, an ArrayBuffer or a Uint8Array");
  if (arg1 === undefined || arg1 === null || typeof arg1 === 'object') {
    return { source: new Uint8Array(arg0), options: arg1 ?? {} };
  }
  if (typeof arg1 !== 'number') throw new TypeError("'byteOffset' must be a number");
  if (!Number.isSafeInteger(arg1)) throw new RangeError("'byteOffset' must be an integer");
  if (arg1 < 0 || arg1 >= arg0.byteLength) {
    throw new RangeError(`'byteOffset' is out of range [0, ${arg0.byteLength})`);
  }
  let length = arg0.byteLength - arg1, options = arg3 ?? {};
  if (typeof arg2 === 'number') {
    if (!Number.isSafeInteger(arg2)) throw new RangeError("'byteLength' must be an integer");
    if (arg2 <= 0 || arg1 + arg2 > arg0.byteLength) {
      throw new RangeError(`'byteLength' is out of range (0, ${arg0.byteLength - arg1}]`);
    }
    length = arg2;
  } else if (arg2 !== undefined && arg2 !== null && typeof arg2 === 'object') {
    options = arg2;
  } else if (arg2 !== undefined) {
    throw new TypeError("'byteLength' must be a number");
  }
  return { source: new Uint8Array(arg0, arg1, length), options };
}

export class InferenceSession {
  #session;
  #outputNames;
  #scalarInputs;  // the inputs the model declares scalar (see #asDeclared)
  #profiling;
  #profile = [];

  constructor(session, options) {
    this.#session = session;
    this.#outputNames = session.outputNames;
    this.#scalarInputs = session.inputMetadata.filter((m) => Array.isArray(m.dims) && m.dims.length === 0)
      .map((m) => m.name);
    this.#profiling = Boolean(options.enableProfiling);
  }

  static async create(arg0, arg1, arg2, arg3) {
    const { source, options } = createArgs(arg0, arg1, arg2, arg3);
    if (typeof options !== 'object') throw new TypeError("'options' must be an object");
    const forwarded = applyWasmFlags();
    const webnxOptions = sessionOptions(options);
    if (options.externalData?.length) webnxOptions.files = await externalFiles(options.externalData);
    try {
      await initRuntime(webnxOptions);
      return new InferenceSession(await WebnxSession.create(source, webnxOptions), options);
    } catch (e) {
      // Libraries point env.wasm.wasmPaths at onnxruntime-web's files (vad-web's default is a
      // CDN folder of them; transformers.js may fetch its binary into wasmBinary): where they
      // hold no webnx build, webnx's own files load.
      if (e.code !== 'WasmLoadFailed' || !forwarded) throw e;
      for (const key of ['wasmPaths', 'wasmBinary']) {
        ignored[key] = env.wasm[key];
        webnxEnv[key] = undefined;
      }
      warn(options, `webnx: env.wasm's ${env.wasm.wasmBinary ? 'wasmBinary' : 'wasmPaths'} holds no webnx build ` +
        `(${e.message}); loading webnx's own files`);
      return new InferenceSession(await WebnxSession.create(source, webnxOptions), options);
    }
  }

  get inputNames() { return this.#session.inputNames; }
  get outputNames() { return [...this.#outputNames]; }
  // { name, isTensor, type, shape }: a dim is a number, its symbol, or '' when unknown.
  get inputMetadata() { return this.#session.inputMetadata.map(metadataOf); }
  get outputMetadata() { return this.#session.outputMetadata.map(metadataOf); }

  // run(feeds[, fetches][, options]): fetches a list of output names, or a map of names to
  // null or a Tensor the output is written into; RunOptions are accepted and change nothing.
  async run(feeds, arg1) {
    // An object naming an output is a fetches map; any other object is RunOptions.
    const outputNames = this.#outputNames;
    const isMap = arg1 && typeof arg1 === 'object' && !Array.isArray(arg1) &&
      Object.keys(arg1).some((k) => outputNames.includes(k));
    const fetches = Array.isArray(arg1) || isMap ? arg1 : null;
    const names = fetches === null ? outputNames : Array.isArray(fetches) ? fetches : Object.keys(fetches);
    for (const name of names) {
      if (!outputNames.includes(name)) throw new RangeError(`'fetches' names no output '${name}'`);
    }
    // Only the fetched outputs are computed (a plan per set of them).
    const outputs = await this.#session.run(this.#asDeclared(feeds),
      { profile: this.#profiling, outputs: fetches === null ? undefined : [...new Set(names)] });
    if (this.#profiling) this.#profile.push(this.#session.lastProfile);
    const result = {};
    for (const name of names) {
      const got = outputs[name];
      const into = fetches && !Array.isArray(fetches) ? fetches[name] : null;
      result[name] = into ? writeInto(into, got, name) : new Tensor(got.type, got.data, got.dims);
    }
    return result;
  }

  // onnxruntime takes a one-element tensor of any rank for an input declared scalar (vad-web
  // feeds its sample rate as [16000n]): so does this, as the scalar.
  #asDeclared(feeds) {
    if (feeds === null || typeof feeds !== 'object') return feeds;
    let out = feeds;
    for (const name of this.#scalarInputs) {
      const t = feeds[name];
      if (!(t instanceof WebnxTensor) || t.size !== 1 || t.dims.length === 0) continue;
      if (out === feeds) out = { ...feeds };
      out[name] = new WebnxTensor(t.type, t.data, []);
    }
    return out;
  }

  startProfiling() { this.#profiling = true; }

  // Prints the node timings of the runs since profiling started (onnxruntime-web logs them too).
  endProfiling() {
    for (const run of this.#profile) console.log(JSON.stringify(run));
    this.#profile = [];
    this.#profiling = false;
  }

  async release() { await this.#session.release(); }
}

function metadataOf(m) {
  return { name: m.name, isTensor: true, type: m.type, shape: (m.dims ?? []).map((d) => (d === null ? '' : d)) };
}

// An output written into the Tensor a fetches map gave for it.
function writeInto(tensor, got, name) {
  if (tensor.type !== got.type || tensor.size !== got.size) {
    throw new WebnxError('InvalidArgument', `the tensor given for output '${name}' is ${tensor.type} ` +
      `[${tensor.dims}], the output ${got.type} [${got.dims}]`);
  }
  tensor.data.set(got.data);
  return tensor;
}
