// webnx: ONNX inference in WebAssembly, for browsers and Node.js.
export { InferenceSession, supportedOps } from './session.mjs';
export { Tensor } from './tensor.mjs';
export { WebnxError } from './errors.mjs';
export { env } from './env.mjs';
export { inspectModel } from './inspect.mjs';
