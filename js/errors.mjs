// Errors thrown by webnx: a standard Error with a string `code` (UnsupportedOpset,
// UnsupportedDtype, UnsupportedOperator, MalformedModel, InvalidInput, ShapeMismatch,
// OutOfMemory, InvalidArgument, Internal, WasmLoadFailed: webnx.wasm could not be fetched or
// is not WebAssembly, e.g. a server sent an HTML page for it; UnsupportedFeature: env.simd asks
// for a build the engine cannot run).
export class WebnxError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = 'WebnxError';
    this.code = code;
  }
}

// The error the wasm side recorded for its last failed call.
export function lastWasmError(wasmSession) {
  return new WebnxError(wasmSession.errorCode(), wasmSession.errorMessage());
}
