import { WebnxError } from './errors.mjs';

// Element types and the typed arrays that hold them, as onnxruntime-web has them (float16 as its
// bits in a Uint16Array; a Float16Array is accepted where the engine has one); `code` is the
// ONNX dtype number.
export const DTYPES = {
  float32: { code: 1, array: Float32Array },
  uint8: { code: 2, array: Uint8Array },
  int8: { code: 3, array: Int8Array },
  uint16: { code: 4, array: Uint16Array },
  int16: { code: 5, array: Int16Array },
  int32: { code: 6, array: Int32Array },
  int64: { code: 7, array: BigInt64Array },
  bool: { code: 9, array: Uint8Array },
  float16: { code: 10, array: Uint16Array },
  float64: { code: 11, array: Float64Array },
  uint32: { code: 12, array: Uint32Array },
  uint64: { code: 13, array: BigUint64Array },
};

const Float16 = globalThis.Float16Array;

// Whether `data` is an array a tensor of `type` can hold as it is.
function holds(type, data) {
  return data instanceof DTYPES[type].array || (type === 'float16' && Float16 !== undefined && data instanceof Float16);
}

// A plain JS array as the typed array of `type`.
function fromArray(type, data) {
  if (type === 'int64' || type === 'uint64') return DTYPES[type].array.from(data, (v) => BigInt(v));
  if (type === 'float16') {
    if (Float16 === undefined) {
      throw new WebnxError('InvalidArgument', 'a float16 tensor takes its bits in a Uint16Array ' +
        '(this engine has no Float16Array to convert numbers with)');
    }
    return Float16.from(data);
  }
  return DTYPES[type].array.from(data);
}

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
    if (!holds(type, data)) {
      if (!Array.isArray(data)) {
        throw new WebnxError('InvalidArgument',
          `data for a ${type} tensor must be a ${spec.array.name} or an array`);
      }
      data = fromArray(type, data);
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
  if (!dtype || !holds(tensor.type, tensor.data) || tensor.data.length !== count) {
    throw new WebnxError('InvalidInput', `feed '${name}' does not match its type '${tensor.type}' ` +
      `and dims [${dims}] (was the Tensor changed after it was made?)`);
  }
}
