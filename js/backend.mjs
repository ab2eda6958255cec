// Chooses between the wasm builds: the multi-threaded one (dist/mt/) when SharedArrayBuffer is
// usable (always in Node; in browsers only on cross-origin-isolated pages) and more than one
// thread is wanted, the single-threaded one otherwise; each in its relaxed-SIMD form where the
// engine runs it (js/simd-level.mjs).
import { WebnxError } from './errors.mjs';
import { env, singleFileConfigured } from './env.mjs';
import { nodeBuiltin } from './node-builtin.mjs';
import { chooseSimdLevel } from './simd-level.mjs';
import { loadRuntime } from './wasm-loader.mjs';
import { isNode } from './platform.mjs';

const MAX_DEFAULT_THREADS = 4;

let warnedNoThreads = false;
let threadedRuntime = null;

function threadsUsable() {
  if (typeof SharedArrayBuffer !== 'function' || singleFileConfigured()) return false;
  return isNode || globalThis.crossOriginIsolated === true;
}

async function cores() {
  if (isNode) {
    const os = await nodeBuiltin('os');
    return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  }
  return globalThis.navigator?.hardwareConcurrency || 1;
}

// The thread count a session gets: options.numThreads, else the cores (at most 4); 1 where
// threads cannot be had, with a one-time warning saying why when more were asked for.
export async function chooseThreads(requested) {
  if (requested !== undefined && (!Number.isInteger(requested) || requested < 1)) {
    throw new WebnxError('InvalidArgument', `numThreads must be a positive integer, got ${requested}`);
  }
  if (!threadsUsable()) {
    if (requested > 1 && !warnedNoThreads && !singleFileConfigured()) {
      warnedNoThreads = true;
      console.warn('webnx: running single-threaded: this page is not cross-origin isolated, so ' +
        'SharedArrayBuffer is unavailable. Serve it with "Cross-Origin-Opener-Policy: same-origin" ' +
        'and "Cross-Origin-Embedder-Policy: require-corp" to use threads.');
    }
    return 1;
  }
  return requested ?? Math.max(1, Math.min(MAX_DEFAULT_THREADS, await cores()));
}

// The threaded runtime, loaded once per realm. In Node its pthread workers are unref'd, so a
// process whose work is done exits without waiting for the idle pool.
export function getThreadedRuntime() {
  if (!threadedRuntime) {
    const simd = chooseSimdLevel(false);
    // Found like webnx.wasm (bundlers see the literal URLs; env.wasmPaths folders hold mt/ too).
    const variant = simd === 'relaxed'
      ? { file: 'mt/webnx-relaxed-mt.wasm', defaultUrl: new URL('../dist/mt/webnx-relaxed-mt.wasm', import.meta.url) }
      : { file: 'mt/webnx-mt.wasm', defaultUrl: new URL('../dist/mt/webnx-mt.wasm', import.meta.url) };
    const glue = simd === 'relaxed' ? import('../dist/mt/webnx-relaxed-mt.mjs') : import('../dist/mt/webnx-mt.mjs');
    // Workers for every core but the caller's, at most MAX_DEFAULT_THREADS - 1: each one loads
    // and instantiates the module, while the runtime starts and the model loads.
    const workers = cores().then((n) => Math.max(1, Math.min(MAX_DEFAULT_THREADS, n) - 1));
    threadedRuntime = Promise.all([glue, workers])
      .then(([module, webnxWorkers]) => loadRuntime(module.default, variant, { webnxWorkers })
        .then((runtime) => {
          runtime.setWorkersStarted(webnxWorkers);
          runtime.webnxSimd = simd;
          return runtime;
        }))
      .then((runtime) => {
        // Unref'd only once loaded: an unref'd worker's messages do not keep Node waiting.
        runtime.webnxWorkersLoaded = workersLoaded(runtime.PThread).then(() => {
          if (isNode && runtime.PThread) {
            for (const worker of [...runtime.PThread.unusedWorkers, ...runtime.PThread.runningWorkers]) {
              worker.unref?.();
            }
          }
        });
        return runtime;
      });
    threadedRuntime.catch(() => { threadedRuntime = null; });
  }
  return threadedRuntime;
}

// Resolves once every pool worker has loaded the module, or failed to. The threaded build does
// not wait for them (-sPTHREAD_POOL_DELAY_LOAD), so they load while the model does; a session
// waits for this before it is ready, since a thread started on a worker still loading begins
// only when the event loop next turns, which back-to-back runs may never let it do.
function workersLoaded(pthreads) {
  const loading = (pthreads?.unusedWorkers ?? []).filter((worker) => !worker.loaded);
  return Promise.all(loading.map((worker) => new Promise((resolve) => {
    // Emscripten calls these properties for every message and error, in Node too.
    const { onmessage, onerror } = worker;
    const done = () => {
      worker.onmessage = onmessage;
      worker.onerror = onerror;
      resolve();
    };
    worker.onmessage = (e) => {
      onmessage?.call(worker, e);
      if (worker.loaded) done();
    };
    worker.onerror = (e) => {
      done();
      onerror?.call(worker, e);
    };
  })));
}

// Records which build the last session loaded ('wasm', 'wasm-mt', 'wasm-relaxed' or
// 'wasm-relaxed-mt') and how it multiplies int8 ('relaxed-dot' or 'i16-dot').
export function noteBackend(threads, runtime) {
  env.backend = `wasm${runtime.webnxSimd === 'relaxed' ? '-relaxed' : ''}${threads > 1 ? '-mt' : ''}`;
  env.int8Product = runtime.int8Product();
}
