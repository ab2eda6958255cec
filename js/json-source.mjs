// JSON graph documents (webnx-graph or ONNX-JSON, docs/dsl.md) as InferenceSession.create
// sources: recognising them, turning them into the text the wasm loader parses, and gathering
// the side files their tensors name ("file" + "offset", ONNX external data "location").
import { WebnxError } from './errors.mjs';
import { FileIntoHeap } from './heap-readers.mjs';
import { nodeBuiltin } from './node-builtin.mjs'; // keeps node:* out of browser bundles
import { isNode } from './platform.mjs';

// A parsed document, or JSON text: an object that is not bytes, a Blob or a URL, or a string
// that starts with '{'.
export function isJsonDocument(source) {
  if (typeof source === 'string') return source.trimStart().startsWith('{');
  return source !== null && typeof source === 'object' && !ArrayBuffer.isView(source) &&
    !(source instanceof ArrayBuffer) && !(source instanceof URL) &&
    !(typeof Blob !== 'undefined' && source instanceof Blob);
}

// JSON starts with '{' after an optional byte order mark and white space; ONNX's protobuf
// never does. A path or URL ending in .json is JSON whatever it holds.
export function isJsonBytes(bytes, source) {
  if ((typeof source === 'string' || source instanceof URL) &&
      /\.json$/i.test(String(source).replace(/[?#].*$/, ''))) {
    return true;
  }
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return bytes[i] === 0x7b;
}

// Typed arrays in a document object become JSON lists; int64 BigInts become decimal strings.
function replacer(key, value) {
  if (typeof value === 'bigint') return value.toString();
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value);
  return value;
}

// { json: text or UTF-8 bytes for the loader, doc: the object when given one, base: the path
// or URL side files are relative to (null when there is none) }.
export function jsonModel(source, base = null) {
  if (typeof source === 'string') return { json: source, doc: null, base };
  if (source instanceof Uint8Array) return { json: source, doc: null, base };
  let json;
  try {
    json = JSON.stringify(source, replacer);
  } catch (e) {
    // A document nested past the engine's stack (RangeError) or holding a cycle (TypeError):
    // the same MalformedModel its text would get.
    const why = e instanceof RangeError ? 'is nested too deeply' : `cannot be serialized (${e.message})`;
    throw new WebnxError('MalformedModel', `the JSON document object ${why}`);
  }
  return { json, doc: source, base };
}

// Where `pattern` (ASCII) starts in `bytes`, or -1.
function indexOfBytes(bytes, pattern) {
  const first = pattern.charCodeAt(0);
  for (let at = bytes.indexOf(first); at >= 0 && at + pattern.length <= bytes.length; at = bytes.indexOf(first, at + 1)) {
    let i = 1;
    while (i < pattern.length && bytes[at + i] === pattern.charCodeAt(i)) i++;
    if (i === pattern.length) return at;
  }
  return -1;
}

// NeatapticTS' producer name near the top, or its layer naming: a cheap look at the text (or
// bytes) before anything is parsed for the compatibility rules.
function mayBeNeataptic(json) {
  if (typeof json === 'string') return /neataptic/i.test(json.slice(0, 4096)) || json.includes('"Layer_');
  return /neataptic/i.test(new TextDecoder().decode(json.subarray(0, 4096))) || indexOfBytes(json, '"Layer_') >= 0;
}

// The model with its exporter's compatibility rules applied (NeatapticTS: js/neataptic.mjs,
// imported only for documents that may be its) and their warnings in model.warnings.
export async function applyExporterRules(model) {
  if (!mayBeNeataptic(model.json)) return model;
  let doc = model.doc;
  if (doc === null) {
    try {
      doc = JSON.parse(typeof model.json === 'string' ? model.json : new TextDecoder().decode(model.json));
    } catch {
      return model;  // the loader reports the syntax error with its position
    }
  }
  const { applyNeatapticRules } = await import('./neataptic.mjs');
  const applied = applyNeatapticRules(doc);
  if (!applied || applied.warnings.length === 0) return model;
  return { ...model, json: JSON.stringify(applied.doc, replacer), doc: applied.doc, warnings: applied.warnings };
}

// Names of the side files a document refers to.
function referencedFiles(value, names = new Set()) {
  if (Array.isArray(value)) {
    for (const item of value) if (item !== null && typeof item === 'object') referencedFiles(item, names);
  } else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    if (typeof value.file === 'string') names.add(value.file);
    if (value.key === 'location' && typeof value.value === 'string') names.add(value.value);
    for (const v of Object.values(value)) if (v !== null && typeof v === 'object') referencedFiles(v, names);
  }
  return names;
}

function asBytes(data, name) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new WebnxError('InvalidArgument', `options.files['${name}'] must be an ArrayBuffer or a typed array`);
}

// A side file beside the document: read from disk in Node, fetched elsewhere. Only plain
// relative names: a document must not reach outside its folder.
async function readSideFile(base, name) {
  if (/^([a-z][a-z0-9+.-]*:|[\\/])/i.test(name) || name.split(/[\\/]/).includes('..')) {
    throw new WebnxError('InvalidArgument', `side file '${name}' must be a relative path beside the model`);
  }
  const baseText = String(base);
  const isUrl = base instanceof URL || /^[a-z][a-z0-9+.-]*:/i.test(baseText);
  try {
    if (isNode && (!isUrl || baseText.startsWith('file:'))) {
      // Read straight into the heap when it is staged (heap-readers.mjs).
      const [fs, path, { fileURLToPath }] = await Promise.all([
        nodeBuiltin('fs'), nodeBuiltin('path'), nodeBuiltin('url')]);
      const basePath = isUrl ? fileURLToPath(baseText) : baseText;
      return FileIntoHeap.open(fs, path.join(path.dirname(basePath), name),
        `side file '${name}' of model '${baseText}'`);
    }
    const response = await fetch(new URL(name, new URL(baseText, globalThis.location?.href)));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    throw new WebnxError('InvalidArgument', `cannot read side file '${name}' of model '${baseText}': ${e.message}`);
  }
}

// The side files for the loader: options.files (an object or a Map of name -> bytes), plus,
// for a document read from a path or URL, each referenced file not given, read from beside it
// (in Node a FileIntoHeap, which the caller closes if it does not read it).
export async function jsonSideFiles(model, given) {
  const files = new Map();
  const entries = given instanceof Map ? given.entries() : Object.entries(given ?? {});
  for (const [name, data] of entries) files.set(name, asBytes(data, name));
  if (model.base === null) return files;
  const text = typeof model.json === 'string' ? model.json : new TextDecoder().decode(model.json);
  if (!text.includes('"file"') && !text.includes('"location"')) return files;
  let doc;
  try {
    doc = model.doc ?? JSON.parse(text);
  } catch {
    return files;  // the loader reports the syntax error with its position
  }
  try {
    for (const name of referencedFiles(doc)) {
      if (!files.has(name)) files.set(name, await readSideFile(model.base, name));
    }
  } catch (e) {
    for (const file of files.values()) file.close?.();
    throw e;
  }
  return files;
}
