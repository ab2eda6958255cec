// Loads the wasm runtime once per realm (page, worker or Node process).
import createWebnxRuntime from '../dist/webnx.mjs';
import { loadRuntime } from './wasm-loader.mjs';

let runtimePromise = null;

export function getRuntime() {
  if (!runtimePromise) {
    runtimePromise = loadRuntime(createWebnxRuntime);
    // After a failed load (say a wrong env.wasmPaths), the next call tries again.
    runtimePromise.catch(() => { runtimePromise = null; });
  }
  return runtimePromise;
}
