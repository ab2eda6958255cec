// Inputs for `webnx run` / `webnx bench`: seeded random tensors shaped by the model (named
// dims bound with --dim N=4), or tensors read from .npy, .json or raw .bin files.
import { readFile } from 'node:fs/promises';
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
function parseNpy(bytes, file) {
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

// .json: nested arrays (float32), or { "type", "dims", "data" }.
function parseJson(bytes, meta, file) {
  const doc = JSON.parse(new TextDecoder().decode(bytes));
  if (Array.isArray(doc)) {
    const dims = [];
    for (let a = doc; Array.isArray(a); a = a[0]) dims.push(a.length);
    return new Tensor(meta.type === 'float32' ? 'float32' : meta.type, doc.flat(Infinity), dims);
  }
  if (!doc.data || !doc.dims) throw new WebnxError('InvalidArgument', `${file}: expected nested arrays or { type, dims, data }`);
  return new Tensor(doc.type ?? meta.type, doc.data, doc.dims);
}

// Reads --input name=file for one model input.
export async function tensorFromFile(file, meta, bindings) {
  const bytes = new Uint8Array(await readFile(file));
  if (file.endsWith('.npy')) return parseNpy(bytes, file);
  if (file.endsWith('.json')) return parseJson(bytes, meta, file);
  // Raw little-endian bytes of the input's dtype, in the model's (bound) shape.
  const dims = concreteDims(meta, bindings);
  const Array = DTYPES[meta.type].array;
  if (bytes.byteLength !== dims.reduce((a, b) => a * b, Array.BYTES_PER_ELEMENT)) {
    throw new WebnxError('InvalidArgument', `${file} has ${bytes.byteLength} bytes; ${meta.type} [${dims}] needs ` +
      `${dims.reduce((a, b) => a * b, Array.BYTES_PER_ELEMENT)} (bind named dims with --dim)`);
  }
  return new Tensor(meta.type, new Array(bytes.slice().buffer), dims);
}

// --dim N=4 --dim H=320 → { N: 4, H: 320 }
export function parseBindings(list = []) {
  const out = {};
  for (const item of list) {
    const m = /^([^=]+)=(\d+)$/.exec(item);
    if (!m) throw new WebnxError('InvalidArgument', `--dim takes NAME=SIZE, got '${item}'`);
    out[m[1]] = Number(m[2]);
  }
  return out;
}

// Feeds for every model input: from --input files where given, seeded random otherwise.
export async function makeFeeds(session, { inputs = [], dims = [], seed = 1 } = {}) {
  const bindings = parseBindings(dims);
  const files = {};
  for (const item of inputs) {
    const i = item.indexOf('=');
    if (i < 0 && session.inputNames.length !== 1) {
      throw new WebnxError('InvalidArgument', `--input takes NAME=FILE (inputs: ${session.inputNames.join(', ')})`);
    }
    files[i < 0 ? session.inputNames[0] : item.slice(0, i)] = i < 0 ? item : item.slice(i + 1);
  }
  const feeds = {};
  const described = [];
  for (const [k, meta] of session.inputMetadata.entries()) {
    const file = files[meta.name];
    const tensor = file ? await tensorFromFile(file, meta, bindings)
      : randomTensor(meta, concreteDims(meta, bindings), seed + k);
    feeds[meta.name] = tensor;
    described.push({ name: meta.name, type: tensor.type, dims: tensor.dims, from: file ?? `random (seed ${seed + k})` });
  }
  for (const name of Object.keys(files)) {
    if (!session.inputNames.includes(name)) {
      throw new WebnxError('InvalidArgument', `--input names '${name}'; the model's inputs are ${session.inputNames.join(', ')}`);
    }
  }
  return { feeds, described };
}
