// Model bytes from a path (Node), URL, ArrayBuffer, typed array or Blob/File, with progress
// events { loaded, total } while they arrive (total is undefined when the size is unknown).
// openModel leaves an ONNX model to be read straight into the wasm heap (heap-readers.mjs);
// readModelBytes gathers any source in a JS buffer.
import { WebnxError } from './errors.mjs';
import {
  ChunksIntoHeap, FileIntoHeap, MAX_MODEL_BYTES, StreamIntoHeap, copyChunks, readStream, tooLarge,
} from './heap-readers.mjs';
import { nodeBuiltin } from './node-builtin.mjs';
import { isNode } from './platform.mjs';

const HEAD_BYTES = 64;  // enough to tell JSON, HTML and protobuf apart

function reporter(onProgress) {
  if (typeof onProgress !== 'function') return () => {};
  return (loaded, total) => onProgress({ loaded, total });
}

function concat(chunks, length) {
  const bytes = new Uint8Array(length);
  copyChunks(chunks, () => bytes, 0);
  return bytes;
}

// The first chunks of a stream, up to HEAD_BYTES or its end.
function readHead(reader, report, total, what) {
  report(0, total);
  return readStream(reader, { total, until: HEAD_BYTES }, report, what);
}

function looksLikeHtml(bytes) {
  const head = new TextDecoder().decode(bytes.subarray(0, HEAD_BYTES)).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  return head.startsWith('<!doctype') || head.startsWith('<html') || head.startsWith('<head') || head.startsWith('<body');
}

// A stream of `total` bytes (undefined: unknown): { heap } when it holds an ONNX model, else
// { bytes }. checkHead throws for first bytes that cannot be a model.
async function fromStream(reader, total, report, what, isJson, checkHead = () => {}) {
  const head = await readHead(reader, report, total, what);
  const first = concat(head.chunks, head.loaded);
  checkHead(first);
  if (head.done) return { bytes: first };
  const json = isJson(first);
  if (total !== undefined && !json) return { heap: new StreamIntoHeap(reader, total, head.chunks, report, what) };
  const all = await readStream(reader, { chunks: head.chunks, loaded: head.loaded, total }, report, what);
  return json ? { bytes: concat(all.chunks, all.loaded) } : { heap: new ChunksIntoHeap(all.chunks, all.loaded) };
}

async function fetchModel(url, report, isJson) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new WebnxError('InvalidArgument', `fetching model '${url}' failed: ${e.message}`);
  }
  if (!response.ok) {
    throw new WebnxError('InvalidArgument', `fetching model '${url}' failed: HTTP ${response.status}`);
  }
  // An SPA fallback or a 404 page served with status 200 is not a model.
  const checkHead = (bytes) => {
    if (looksLikeHtml(bytes)) {
      throw new WebnxError('InvalidArgument', `got HTML instead of a model from '${url}' — check the model's URL`);
    }
  };
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    report(bytes.length, bytes.length);
    checkHead(bytes);
    return { bytes };
  }
  // With Content-Encoding the header counts compressed bytes, not the ones we read.
  const encoded = (response.headers.get('content-encoding') || 'identity') !== 'identity';
  const length = Number(response.headers.get('content-length'));
  const total = !encoded && length > 0 ? length : undefined;
  if (total > MAX_MODEL_BYTES) {
    response.body.cancel().catch(() => {});
    throw tooLarge(`'${url}'`, total);
  }
  return fromStream(response.body.getReader(), total, report, `'${url}'`, isJson, checkHead);
}

// A file in Node: { heap } unless it is empty or JSON, which are read whole.
async function openFile(path, source, report, isJson) {
  const fs = await nodeBuiltin('fs');
  let file = null;
  try {
    file = FileIntoHeap.open(fs, path, `model '${source}'`, report);
    if (file.size > 0 && !isJson(file.readHead(HEAD_BYTES))) return { heap: file };
  } catch (e) {
    file?.close();
    throw new WebnxError('InvalidArgument', `cannot read model '${source}': ${e.message}`);
  }
  const bytes = new Uint8Array(file.size);  // the same reads, into a JS buffer
  await file.readInto(() => bytes, 0);
  return { bytes };
}

function nodeFilePath(source) {
  if (!isNode) return null;
  const text = String(source);
  if (/^(https?|data|blob):/i.test(text)) return null;
  return text.startsWith('file:') ? new URL(text) : text;
}

// { heap } (a FileIntoHeap or StreamIntoHeap) for an ONNX model whose size is known before it
// is read, else { bytes }. isJson(firstBytes, source) says whether the bytes are a JSON document.
export async function openModel(source, onProgress, isJson) {
  const report = reporter(onProgress);
  const whole = (bytes) => {
    report(bytes.byteLength, bytes.byteLength);
    return { bytes };
  };
  const json = (head) => isJson(head, source);
  if (source instanceof Uint8Array) return whole(source);
  if (source instanceof ArrayBuffer) return whole(new Uint8Array(source));
  if (ArrayBuffer.isView(source)) return whole(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    if (typeof source.stream !== 'function') return whole(new Uint8Array(await source.arrayBuffer()));
    return fromStream(source.stream().getReader(), source.size, report, 'from a Blob', json);
  }
  if (typeof source === 'string' || source instanceof URL) {
    const path = nodeFilePath(source);
    if (path !== null) return openFile(path, source, report, json);
    const base = globalThis.location?.href;
    return fetchModel(base ? new URL(String(source), base).href : String(source), report, json);
  }
  throw new WebnxError('InvalidArgument',
    'InferenceSession.create takes a path, URL, ArrayBuffer, Uint8Array or Blob');
}

// The whole model in a JS buffer, whatever its source.
export async function readModelBytes(source, onProgress) {
  const opened = await openModel(source, onProgress, () => true);
  return opened.bytes;
}
