// Input tensors without file access (so the quantizer's calibration runs in browsers too):
// seeded random tensors shaped by a model input, and NumPy .npy bytes. Used by `webnx run` /
// `webnx bench` (js/cli-inputs.mjs) and by the quantizer (js/quantize-calibrate.mjs).
import { WebnxError } from './errors.mjs';
import { seededFloats } from './seeded-floats.mjs';
import { DTYPES, Tensor } from './tensor.mjs';

// Concrete dims: named dims from `bindings`, else 224 for the sides of a rank-4 input, else 1.
export function concreteDims(meta, bindings = {}) {
  if (!meta.dims) throw new WebnxError('InvalidArgument', `input '${meta.name}' has no known rank; give it with --input`);
  return meta.dims.map((d, i) => {
    if (typeof d === 'number') return d;
    if (typeof d === 'string' && d in bindings) return bindings[d];
    return meta.dims.length === 4 && i >= 2 ? 224 : 1;
  });
}

export function randomTensor(meta, dims, seed) {
  const size = dims.reduce((a, b) => a * b, 1);
  if (meta.type === 'float32') return new Tensor('float32', seededFloats(size, seed), dims);
  return new Tensor(meta.type, new DTYPES[meta.type].array(size), dims); // zeros for integer/bool inputs
}

const NPY_TYPES = { '<f4': 'float32', '<i4': 'int32', '<i8': 'int64', '|b1': 'bool', '|u1': 'bool' };

// NumPy's .npy (version 1-3, little-endian, C order).
export function parseNpy(bytes, file) {
  const magic = String.fromCharCode(...bytes.subarray(0, 6));
  if (magic !== '\x93NUMPY') throw new WebnxError('InvalidArgument', `${file} is not a .npy file`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = bytes[6];
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLen));
  const descr = header.match(/'descr':\s*'([^']+)'/)?.[1];
  const type = NPY_TYPES[descr];
  if (!type) throw new WebnxError('UnsupportedDtype', `${file}: numpy dtype '${descr}' is not supported; use float32, int32, int64 or bool`);
  if (/'fortran_order':\s*True/.test(header)) throw new WebnxError('InvalidArgument', `${file}: Fortran-ordered arrays are not supported`);
  const dims = (header.match(/'shape':\s*\(([^)]*)\)/)?.[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const body = bytes.slice(start + headerLen);
  return new Tensor(type, new DTYPES[type].array(body.buffer), dims);
}
