// Converters between ONNX files and the two JSON dialects webnx loads (docs/dsl.md):
//   onnxToOnnxJson(bytes)      ONNX -> ONNX-JSON in protobuf's JSON mapping (camelCase, int64 as
//                              strings, enum names, base64 bytes)
//   onnxToWebnxGraph(bytes)    ONNX -> webnx-graph ("layout": "NCHW", ONNX ops by name), weights
//                              above a size threshold in a side .bin by file + offset
//   onnxJsonToOnnx(doc)        ONNX-JSON (any spelling webnx reads) -> ONNX bytes
import { WebnxError } from './errors.mjs';
import { SCHEMA, decodeModel, encodeModel } from './onnx-proto.mjs';

const DATA_TYPES = ['UNDEFINED', 'FLOAT', 'UINT8', 'INT8', 'UINT16', 'INT16', 'INT32', 'INT64',
  'STRING', 'BOOL', 'FLOAT16', 'DOUBLE', 'UINT32', 'UINT64', 'COMPLEX64', 'COMPLEX128', 'BFLOAT16',
  'FLOAT8E4M3FN', 'FLOAT8E4M3FNUZ', 'FLOAT8E5M2', 'FLOAT8E5M2FNUZ', 'UINT4', 'INT4', 'FLOAT4E2M1',
  'FLOAT8E8M0', 'UINT2', 'INT2'];
const ATTRIBUTE_TYPES = ['UNDEFINED', 'FLOAT', 'INT', 'STRING', 'TENSOR', 'GRAPH', 'FLOATS', 'INTS',
  'STRINGS', 'TENSORS', 'GRAPHS', 'SPARSE_TENSOR', 'SPARSE_TENSORS', 'TYPE_PROTO', 'TYPE_PROTOS'];
const ENUMS = { dataType: DATA_TYPES, elemType: DATA_TYPES, type: ATTRIBUTE_TYPES,
  dataLocation: ['DEFAULT', 'EXTERNAL'] };
// webnx-graph dtype names by ONNX data type (the loader widens float16, rejects the rest).
const DTYPE_NAMES = { 1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32',
  7: 'int64', 8: 'string', 9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
  16: 'bfloat16' };
// Defaults the loader applies to ONNX-JSON without them (docs/dsl.md).
const DEFAULT_OPSET = 13;
const DEFAULT_IR_VERSION = 8;

function malformed(message) {
  return new WebnxError('MalformedModel', message);
}

// --- base64 ----------------------------------------------------------------------------------

export function toBase64(bytes) {
  if (typeof Buffer !== 'undefined') {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  }
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

// Standard or URL-safe, padded or not; null when not base64.
export function fromBase64(text) {
  const s = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) return null;
  if (typeof Buffer !== 'undefined') return new Uint8Array(Buffer.from(s, 'base64'));
  const binary = atob(s.padEnd(Math.ceil(s.length / 4) * 4, '='));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

// A protobuf-JSON `bytes` string attribute is base64; JS exporters write the text itself. The
// loader decides the same way (core/loaders/json_base64.cc).
function attributeBytes(text) {
  if (text.length > 0 && text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    const bytes = fromBase64(text);
    if (bytes && bytes.every((b) => b >= 0x20 && b <= 0x7e)) return bytes;
  }
  return utf8Encoder.encode(text);
}

// --- ONNX -> ONNX-JSON -----------------------------------------------------------------------

function jsonNumber(v) {
  if (Number.isFinite(v)) return v;
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

function toJsonValue(type, field, v) {
  if (SCHEMA[type]) return toProtoJson(type, v);
  switch (type) {
    case 'int64': case 'uint64': return String(v);
    case 'enum': return ENUMS[field]?.[v] ?? v;
    case 'float': case 'double': return jsonNumber(v);
    case 'bytes': return toBase64(v);
    default: return v;
  }
}

function toProtoJson(message, value) {
  const out = {};
  for (const [name, [, type, repeated]] of Object.entries(SCHEMA[message])) {
    const v = value[name];
    if (v === undefined) continue;
    out[name] = repeated ? v.map((x) => toJsonValue(type, name, x)) : toJsonValue(type, name, v);
  }
  return out;
}

function decode(bytes) {
  try {
    return decodeModel(bytes);
  } catch (e) {
    throw malformed(`not a valid ONNX model: ${e.message}`);
  }
}

export function onnxToOnnxJson(bytes) {
  return toProtoJson('Model', decode(bytes));
}

// --- ONNX-JSON -> ONNX -----------------------------------------------------------------------

// Field spellings the loader accepts besides camelCase.
const ALIASES = {
  Graph: { node: ['nodes'], input: ['inputs'], output: ['outputs'], initializer: ['initializers'] },
  Node: { input: ['inputs'], output: ['outputs'], attribute: ['attributes'] },
};

function snakeCase(name) {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function pick(obj, message, name, path) {
  const keys = [...new Set([name, snakeCase(name), ...(ALIASES[message]?.[name] ?? [])])];
  const present = keys.filter((k) => obj[k] !== undefined);
  if (present.length > 1) throw malformed(`${path}: both '${present[0]}' and '${present[1]}' are given`);
  return present.length ? [obj[present[0]], `${path}/${present[0]}`] : [undefined, null];
}

function int64From(v, path) {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^[-+]?\d+$/.test(v)) {
    const big = BigInt(v);
    return Number.isSafeInteger(Number(big)) ? Number(big) : big;
  }
  if (typeof v === 'bigint') return v;
  throw malformed(`${path}: expected an integer, got ${JSON.stringify(v)}`);
}

function floatFrom(v, path) {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  throw malformed(`${path}: expected a number, got ${JSON.stringify(v)}`);
}

function scalarFrom(message, field, type, v, path) {
  switch (type) {
    case 'int64': case 'uint64': case 'int32': return int64From(v, path);
    case 'enum': {
      if (typeof v === 'number') return v;
      const index = ENUMS[field]?.indexOf(String(v).toUpperCase()) ?? -1;
      if (index < 0) throw malformed(`${path}: '${v}' is not a known ${field}`);
      return index;
    }
    case 'float': case 'double': return floatFrom(v, path);
    case 'bytes': {
      if (typeof v !== 'string') throw malformed(`${path}: expected a base64 string`);
      if (message === 'Attribute') return attributeBytes(v);
      const bytes = fromBase64(v);
      if (!bytes) throw malformed(`${path}: not valid base64`);
      return bytes;
    }
    case 'string':
      if (typeof v !== 'string') throw malformed(`${path}: expected a string, got ${JSON.stringify(v)}`);
      return v;
    default: return v;
  }
}

function fromProtoJson(message, obj, path) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw malformed(`${path || '(document)'}: expected an object`);
  }
  const out = {};
  for (const [name, [, type, repeated]] of Object.entries(SCHEMA[message])) {
    const [v, at] = pick(obj, message, name, path);
    if (v === undefined) continue;
    const one = (x, p) => (SCHEMA[type] ? fromProtoJson(type, x, p) : scalarFrom(message, name, type, x, p));
    if (repeated) {
      if (!Array.isArray(v)) throw malformed(`${at}: expected an array`);
      out[name] = v.map((x, i) => one(x, `${at}/${i}`));
    } else {
      out[name] = one(v, at);
    }
  }
  if (message === 'Attribute' && out.type === undefined) {
    // Old models and hand-written JSON leave the type out: the field that is set says it.
    const inferred = [['f', 1], ['i', 2], ['s', 3], ['t', 4], ['g', 5], ['floats', 6], ['ints', 7],
      ['strings', 8], ['tensors', 9], ['graphs', 10]].find(([k]) => out[k] !== undefined);
    if (inferred) out.type = inferred[1];
  }
  if (message === 'Node' && out.domain === 'ai.onnx') out.domain = '';
  return out;
}

// ONNX-JSON (object or text; a ModelProto, { graph }, or a bare GraphProto) -> ONNX bytes. A
// document without opset_import imports opset 13, as the loader assumes.
export function onnxJsonToOnnx(doc) {
  if (typeof doc === 'string') doc = JSON.parse(doc);
  if (doc?.format === 'webnx-graph') {
    throw new WebnxError('InvalidArgument', 'this is a webnx-graph document; only ONNX-JSON converts to .onnx');
  }
  const wrapped = doc && doc.graph === undefined ? { graph: doc } : doc;
  const model = fromProtoJson('Model', wrapped, '');
  if (!model.graph) throw malformed('/graph: the document has no graph');
  if (!model.opsetImport?.some((o) => (o.domain ?? '') === '' || o.domain === 'ai.onnx')) {
    model.opsetImport = [...(model.opsetImport ?? []), { domain: '', version: DEFAULT_OPSET }];
  }
  model.irVersion ??= DEFAULT_IR_VERSION;
  return encodeModel(model);
}

// --- ONNX -> webnx-graph ---------------------------------------------------------------------

function toNumber(v) {
  return typeof v === 'bigint' ? Number(v) : v;
}

// Little-endian element bytes of a TensorProto, whichever field holds them.
function tensorBytes(t, what) {
  if (t.dataLocation === 1) throw new WebnxError('InvalidArgument', `${what} keeps its data in an external file; convert a model with embedded weights`);
  if (t.rawData) return t.rawData;
  const typed = {
    1: () => Float32Array.from(t.floatData ?? []),
    6: () => Int32Array.from(t.int32Data ?? []),
    7: () => BigInt64Array.from(t.int64Data ?? [], (x) => BigInt(x)),
    9: () => Uint8Array.from(t.int32Data ?? []),
    10: () => Uint16Array.from(t.int32Data ?? []),
    11: () => Float64Array.from(t.doubleData ?? []),
    2: () => Uint8Array.from(t.int32Data ?? []),
    3: () => Int8Array.from(t.int32Data ?? []),
  }[t.dataType ?? 0];
  if (!typed) throw new WebnxError('UnsupportedDtype', `${what} has data type ${DATA_TYPES[t.dataType] ?? t.dataType}`);
  const array = typed();
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function tensorObject(t, what, sink) {
  const bytes = tensorBytes(t, what);
  const out = { dtype: DTYPE_NAMES[t.dataType ?? 0] ?? `onnx-type-${t.dataType}`, shape: (t.dims ?? []).map(toNumber) };
  const file = sink?.(bytes);
  if (file) Object.assign(out, file);
  else out.base64 = toBase64(bytes);
  return out;
}

// JSON numbers do not say int or float: a float attribute that looks integral is written in
// the typed form the loader reads ({ "type": "FLOAT", "f": 1 }).
function attributeValue(a, where) {
  const type = a.type ?? 0;
  switch (type) {
    case 1: return Number.isFinite(a.f) && !Number.isInteger(a.f) ? a.f : { type: 'FLOAT', f: jsonNumber(a.f ?? 0) };
    case 2: return typeof a.i === 'bigint' ? { type: 'INT', i: String(a.i) } : (a.i ?? 0);
    case 3: return utf8.decode(a.s ?? new Uint8Array());
    case 4: return tensorObject(a.t ?? {}, where, null);
    case 6: {
      const floats = a.floats ?? [];
      return floats.length && floats.every(Number.isFinite) && floats.some((f) => !Number.isInteger(f))
        ? floats : { type: 'FLOATS', floats: floats.map(jsonNumber) };
    }
    case 7: {
      const ints = a.ints ?? [];
      return ints.some((i) => typeof i === 'bigint') ? { type: 'INTS', ints: ints.map(String) } : ints;
    }
    case 8: return a.strings?.length ? a.strings.map((s) => utf8.decode(s)) : { type: 'STRINGS' };
    default:
      throw new WebnxError('InvalidArgument', `${where} is a ${ATTRIBUTE_TYPES[type] ?? type} attribute, which webnx-graph cannot hold`);
  }
}

function declaration(v) {
  const out = { name: v.name };
  const tt = v.type?.tensorType;
  if (tt?.elemType !== undefined) out.dtype = DTYPE_NAMES[tt.elemType] ?? `onnx-type-${tt.elemType}`;
  if (tt?.shape) {
    out.shape = (tt.shape.dim ?? []).map((d) => (d.dimValue !== undefined ? toNumber(d.dimValue) : d.dimParam ?? null));
  }
  return out;
}

// ONNX bytes -> { doc, bin }: a webnx-graph document in NCHW with ONNX ops, and the side file
// (or null) holding every tensor larger than `threshold` bytes, 64-byte aligned.
export function onnxToWebnxGraph(bytes, { binName = 'weights.bin', threshold = 4096 } = {}) {
  const model = decode(bytes);
  const g = model.graph ?? {};
  const opsets = {};
  for (const o of model.opsetImport ?? []) opsets[o.domain === 'ai.onnx' ? '' : (o.domain ?? '')] = toNumber(o.version);
  const doc = { format: 'webnx-graph', version: 1, layout: 'NCHW' };
  const domains = Object.keys(opsets);
  if (domains.length) doc.opset = domains.length === 1 && domains[0] === '' ? opsets[''] : opsets;
  if (model.producerName) doc.producer = model.producerName;
  if (model.metadataProps?.length) {
    doc.metadata = Object.fromEntries(model.metadataProps.map((p) => [p.key ?? '', p.value ?? '']));
  }
  const initializers = new Set((g.initializer ?? []).map((t) => t.name));
  doc.inputs = (g.input ?? []).filter((v) => !initializers.has(v.name)).map(declaration);
  doc.outputs = (g.output ?? []).map((v) => v.name);

  const parts = [];
  let size = 0;
  const sink = (data) => {
    if (data.length <= threshold) return null;
    const offset = Math.ceil(size / 64) * 64;
    if (offset > size) parts.push(new Uint8Array(offset - size));
    parts.push(data);
    size = offset + data.length;
    return { file: binName, offset };
  };
  doc.tensors = {};
  for (const t of g.initializer ?? []) doc.tensors[t.name] = tensorObject(t, `initializer '${t.name}'`, sink);
  doc.nodes = (g.node ?? []).map((n, i) => {
    const node = { id: n.name || `${n.opType}_${i}`, op: n.opType };
    if (n.domain && n.domain !== 'ai.onnx') node.domain = n.domain;
    node.inputs = n.input ?? [];
    node.outputs = n.output ?? [];
    if (n.attribute?.length) {
      node.attrs = Object.fromEntries(n.attribute.map((a) => [a.name, attributeValue(a, `attribute '${a.name}' of node '${node.id}'`)]));
    }
    return node;
  });
  let bin = null;
  if (parts.length) {
    bin = new Uint8Array(size);
    let at = 0;
    for (const p of parts) { bin.set(p, at); at += p.length; }
  }
  return { doc, bin };
}
