import { WebnxError } from './errors.mjs';

// Element types and the typed arrays that hold them; `code` is the ONNX dtype number.
export const DTYPES = {
  float32: { code: 1, array: Float32Array },
  int32: { code: 6, array: Int32Array },
  int64: { code: 7, array: BigInt64Array },
  bool: { code: 9, array: Uint8Array },
};

function checkDims(dims) {
  if (!Array.isArray(dims)) throw new WebnxError('InvalidArgument', 'dims must be an array of integers');
  let size = 1;
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new WebnxError('InvalidArgument', `dims must be non-negative integers, got [${dims}]`);
    }
    size *= d;
  }
  return size;
}

// A typed, shaped array of data: new Tensor("float32", Float32Array, [1, 3, 224, 224]).
export class Tensor {
  constructor(type, data, dims) {
    const spec = DTYPES[type];
    if (!spec) {
      throw new WebnxError('UnsupportedDtype',
        `tensor type '${type}' is not supported; use ${Object.keys(DTYPES).join(', ')}`);
    }
    if (dims === undefined) dims = [data.length];
    const size = checkDims(dims);
    if (!(data instanceof spec.array)) {
      if (!Array.isArray(data)) {
        throw new WebnxError('InvalidArgument',
          `data for a ${type} tensor must be a ${spec.array.name} or an array`);
      }
      data = type === 'int64' ? BigInt64Array.from(data, (v) => BigInt(v)) : spec.array.from(data);
    }
    if (data.length !== size) {
      throw new WebnxError('InvalidArgument',
        `data has ${data.length} elements but dims [${dims}] need ${size}`);
    }
    this.type = type;
    this.data = data;
    this.dims = dims.slice();
    this.size = size;
  }
}

// type, dims and data are public fields of a Tensor: one changed after it was made must not
// write past the heap buffer allocInput sizes from its dims.
export function checkFeed(name, tensor) {
  const dtype = DTYPES[tensor.type];
  const dims = tensor.dims;
  const dimsOk = Array.isArray(dims) && dims.every((d) => Number.isSafeInteger(d) && d >= 0);
  const count = dimsOk ? dims.reduce((n, d) => n * d, 1) : NaN;
  if (!dtype || !(tensor.data instanceof dtype.array) || tensor.data.length !== count) {
    throw new WebnxError('InvalidInput', `feed '${name}' does not match its type '${tensor.type}' ` +
      `and dims [${dims}] (was the Tensor changed after it was made?)`);
  }
}
