// Settings read when the wasm runtime is first loaded (like onnxruntime-web's `env.wasm`).
// Change them before the first InferenceSession.create(); later changes have no effect
// on the runtime already loaded in this page, worker or process.
export const env = {
  // Where webnx.wasm is served from: a folder URL ("/assets/webnx/", "https://cdn…/dist/"),
  // taken relative to the page, or { wasm: "full URL of the .wasm file" }.
  // Unset: next to the package's own files, found by bundlers through `new URL(…, import.meta.url)`.
  wasmPaths: undefined,
  // The .wasm bytes themselves (ArrayBuffer or Uint8Array); wins over wasmPaths.
  wasmBinary: undefined,
  // The SIMD build: 'auto' (unset: relaxed SIMD where the engine runs it, else plain SIMD),
  // 'relaxed' (an error where the engine lacks it) or 'simd'.
  simd: undefined,
  // Which build the last InferenceSession.create() used: 'wasm' (single-threaded), 'wasm-mt',
  // 'wasm-relaxed' or 'wasm-relaxed-mt'.
  backend: undefined,
  // How that build multiplies int8: 'relaxed-dot' (the relaxed builds, where the engine's
  // relaxed dot product is exact for every 8-bit value) or 'i16-dot'.
  int8Product: undefined,
};

// env.wasmBinary and env.wasmPaths = { wasm } name one .wasm file: the single-threaded build's
// (the plain one, unless env.simd is 'relaxed').
export function singleFileConfigured() {
  return Boolean(env.wasmBinary) || (typeof env.wasmPaths === 'object' && env.wasmPaths?.wasm);
}
