// Inputs for `webnx run` / `webnx bench`: seeded random tensors shaped by the model (named
// dims bound with --dim N=4), or tensors read from .npy, .json or raw .bin files.
import { readFile } from 'node:fs/promises';
import { WebnxError } from './errors.mjs';
import { DTYPES, Tensor } from './tensor.mjs';
import { concreteDims, parseNpy, randomTensor } from './input-tensors.mjs';

export { concreteDims, parseNpy, randomTensor };

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
