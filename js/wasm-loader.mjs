// Finds, fetches and checks webnx.wasm, then gives the instance to the Emscripten glue through
// its instantiateWasm hook, so a wrong URL fails with a clear WasmLoadFailed error instead of
// an Emscripten abort.
import { WebnxError } from './errors.mjs';
import { env } from './env.mjs';
import { nodeBuiltin } from './node-builtin.mjs';
import { isNode } from './platform.mjs';

// A literal `new URL(…, import.meta.url)` on purpose: bundlers (Vite, webpack 5, Parcel, Rollup
// plugins) see it, copy the .wasm into their output and rewrite the URL.
const DEFAULT_WASM_URL = new URL('../dist/webnx.wasm', import.meta.url);

function loadFailed(message) {
  return new WebnxError('WasmLoadFailed', message);
}

// Relative env.wasmPaths are taken relative to the page (browser) or the working directory (Node).
async function baseUrl() {
  if (globalThis.location?.href) return globalThis.location.href;
  if (isNode) return (await nodeBuiltin('url')).pathToFileURL(`${process.cwd()}/`).href;
  return undefined;
}

// file: the .wasm's name (a build variant may have its own); defaultUrl: where it is when
// env.wasmPaths is unset.
export async function wasmUrl({ file = 'webnx.wasm', defaultUrl = DEFAULT_WASM_URL } = {}) {
  const paths = env.wasmPaths;
  if (paths === undefined || paths === null || paths === '') return defaultUrl.href;
  let target;
  if (typeof paths === 'string' || paths instanceof URL) {
    const folder = String(paths);
    target = folder.endsWith('/') ? `${folder}${file}` : `${folder}/${file}`;
  } else if (typeof paths === 'object' && paths.wasm) {
    target = String(paths.wasm);
  } else {
    throw new WebnxError('InvalidArgument', 'env.wasmPaths must be a folder URL or { wasm: URL }');
  }
  try {
    return new URL(target, await baseUrl()).href;
  } catch {
    throw new WebnxError('InvalidArgument', `env.wasmPaths gives '${target}', which is not a URL`);
  }
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"

// Every .wasm starts with \0asm; a dev server or CDN answering a wrong path sends HTML instead.
export function checkWasmBytes(bytes, from, response) {
  if (bytes.length >= 4 && MAGIC.every((b, i) => bytes[i] === b)) return;
  const status = response ? ` (HTTP ${response.status})` : '';
  const type = response?.headers?.get('content-type') || '';
  const head = new TextDecoder().decode(bytes.subarray(0, 64)).replace(/^\uFEFF/, '').trimStart();
  const hint = "check env.wasmPaths / your bundler's asset handling";
  if (head.startsWith('<') || type.includes('text/html')) {
    throw loadFailed(`got HTML instead of webnx.wasm from ${from}${status} — ${hint}`);
  }
  if (bytes.length === 0) throw loadFailed(`got an empty response instead of webnx.wasm from ${from}${status} — ${hint}`);
  const hex = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw loadFailed(`${from}${status} is not WebAssembly: it starts with ${hex}, not 00 61 73 6d (\\0asm) — ${hint}`);
}

function asBytes(binary) {
  if (binary instanceof Uint8Array) return binary;
  if (binary instanceof ArrayBuffer) return new Uint8Array(binary);
  if (ArrayBuffer.isView(binary)) return new Uint8Array(binary.buffer, binary.byteOffset, binary.byteLength);
  throw new WebnxError('InvalidArgument', 'env.wasmBinary must be an ArrayBuffer or a Uint8Array');
}

async function instantiateBytes(bytes, imports, from) {
  try {
    return await WebAssembly.instantiate(bytes, imports);
  } catch (e) {
    // A LinkError here means the .wasm comes from another build than webnx.mjs.
    throw loadFailed(`cannot instantiate webnx.wasm from ${from}: ${e.message} — serve the .wasm of the same webnx version`);
  }
}

async function fetchOrFail(url) {
  try {
    return await fetch(url, { credentials: 'same-origin' });
  } catch (e) {
    throw loadFailed(`cannot fetch webnx.wasm from ${url}: ${e.message} — check env.wasmPaths`);
  }
}

// Resolves to { instance, module } of webnx.wasm built against the glue's imports.
export async function instantiateWebnxWasm(imports, variant) {
  if (env.wasmBinary) {
    const bytes = asBytes(env.wasmBinary);
    checkWasmBytes(bytes, 'env.wasmBinary');
    return instantiateBytes(bytes, imports, 'env.wasmBinary');
  }
  const url = await wasmUrl(variant);
  if (isNode && url.startsWith('file:')) {
    const { readFile } = await nodeBuiltin('fs/promises');
    let bytes;
    try {
      bytes = new Uint8Array(await readFile(new URL(url)));
    } catch (e) {
      throw loadFailed(`cannot read webnx.wasm at ${url}: ${e.message} — check env.wasmPaths`);
    }
    checkWasmBytes(bytes, url);
    return instantiateBytes(bytes, imports, url);
  }
  const response = await fetchOrFail(url);
  const type = response.headers.get('content-type') || '';
  if (response.ok && type.startsWith('application/wasm') && typeof WebAssembly.instantiateStreaming === 'function') {
    try {
      return await WebAssembly.instantiateStreaming(response, imports); // compiles while downloading
    } catch {
      // Fall through to the byte path (fetched again), which says what was wrong.
    }
  }
  const again = response.bodyUsed ? await fetchOrFail(url) : response;
  const bytes = new Uint8Array(await again.arrayBuffer());
  checkWasmBytes(bytes, url, again);
  if (!again.ok) throw loadFailed(`fetching webnx.wasm from ${url} failed: HTTP ${again.status} — check env.wasmPaths`);
  return instantiateBytes(bytes, imports, url);
}

// Runs the Emscripten factory with our loader; rejects (instead of hanging) when loading fails.
// variant: { file, defaultUrl } of another build's .wasm (see wasmUrl); settings: more fields
// of the Emscripten module object (webnxWorkers: the threaded build's pthread workers).
export function loadRuntime(factory, variant, settings = {}) {
  return new Promise((resolve, reject) => {
    const moduleArg = {
      ...settings,
      instantiateWasm(imports, receiveInstance) {
        // The module goes along too: a pthreads build hands it to its workers.
        instantiateWebnxWasm(imports, variant).then(({ instance, module }) => receiveInstance(instance, module), reject);
        return {}; // exports arrive later, through receiveInstance
      },
    };
    factory(moduleArg).then((runtime) => {
      // Gets V8 compiling the hot kernels while the model loads (kernels/simd/warm_up.h).
      runtime.warmUpKernels();
      resolve(runtime);
    }, reject);
  });
}
