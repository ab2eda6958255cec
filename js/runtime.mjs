// Loads the single-threaded wasm runtime once per realm (page, worker or Node process): the
// relaxed-SIMD build where the engine runs it (js/simd-level.mjs), else the plain one. Both
// glue files are imported on demand, so a bundler emits both and a page downloads one.
import { singleFileConfigured } from './env.mjs';
import { chooseSimdLevel } from './simd-level.mjs';
import { loadRuntime } from './wasm-loader.mjs';

let runtimePromise = null;

async function load() {
  const simd = chooseSimdLevel(singleFileConfigured());
  let runtime;
  if (simd === 'relaxed') {
    // Found like webnx.wasm (bundlers see the literal URL; env.wasmPaths folders hold it too).
    const variant = { file: 'webnx-relaxed.wasm', defaultUrl: new URL('../dist/webnx-relaxed.wasm', import.meta.url) };
    runtime = await loadRuntime((await import('../dist/webnx-relaxed.mjs')).default, variant);
  } else {
    runtime = await loadRuntime((await import('../dist/webnx.mjs')).default);
  }
  runtime.webnxSimd = simd;
  return runtime;
}

export function getRuntime() {
  if (!runtimePromise) {
    runtimePromise = load();
    // After a failed load (say a wrong env.wasmPaths), the next call tries again.
    runtimePromise.catch(() => { runtimePromise = null; });
  }
  return runtimePromise;
}
