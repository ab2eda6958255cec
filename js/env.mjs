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
  // Which build the last InferenceSession.create() used: 'wasm' (single-threaded) or 'wasm-mt'.
  backend: undefined,
};
