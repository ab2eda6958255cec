// Loads the wasm runtime once per realm (page, worker or Node process).
import createWebnxRuntime from '../dist/webnx.mjs';

let runtimePromise = null;

export function getRuntime() {
  if (!runtimePromise) runtimePromise = createWebnxRuntime();
  return runtimePromise;
}
