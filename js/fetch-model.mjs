// Model bytes from a path (Node), URL, ArrayBuffer, typed array or Blob/File, with progress
// events { loaded, total } while they arrive (total is undefined when the size is unknown).
import { WebnxError } from './errors.mjs';
import { nodeBuiltin } from './node-builtin.mjs';

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

function reporter(onProgress) {
  if (typeof onProgress !== 'function') return () => {};
  return (loaded, total) => onProgress({ loaded, total });
}

// Reads a stream of Uint8Array chunks into one array, reporting as it goes.
async function readChunks(reader, total, report) {
  let buffer = new Uint8Array(total > 0 ? total : 1 << 16);
  let loaded = 0;
  report(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (loaded + value.length > buffer.length) {
      const grown = new Uint8Array(Math.max(buffer.length * 2, loaded + value.length));
      grown.set(buffer.subarray(0, loaded));
      buffer = grown;
    }
    buffer.set(value, loaded);
    loaded += value.length;
    report(loaded, total);
  }
  return loaded === buffer.length ? buffer : buffer.slice(0, loaded);
}

function looksLikeHtml(bytes) {
  const head = new TextDecoder().decode(bytes.subarray(0, 64)).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  return head.startsWith('<!doctype') || head.startsWith('<html') || head.startsWith('<head') || head.startsWith('<body');
}

async function fetchModel(url, report) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new WebnxError('InvalidArgument', `fetching model '${url}' failed: ${e.message}`);
  }
  if (!response.ok) {
    throw new WebnxError('InvalidArgument', `fetching model '${url}' failed: HTTP ${response.status}`);
  }
  // With Content-Encoding the header counts compressed bytes, not the ones we read.
  const encoded = (response.headers.get('content-encoding') || 'identity') !== 'identity';
  const length = Number(response.headers.get('content-length'));
  const total = !encoded && length > 0 ? length : undefined;
  const bytes = response.body
    ? await readChunks(response.body.getReader(), total, report)
    : new Uint8Array(await response.arrayBuffer());
  if (!response.body) report(bytes.length, bytes.length);
  // An SPA fallback or a 404 page served with status 200 is not a model.
  if (looksLikeHtml(bytes)) {
    throw new WebnxError('InvalidArgument', `got HTML instead of a model from '${url}' — check the model's URL`);
  }
  return bytes;
}

async function readFileWithProgress(source, report) {
  const { open } = await nodeBuiltin('fs/promises');
  let handle;
  try {
    handle = await open(source, 'r');
    const { size } = await handle.stat();
    const bytes = new Uint8Array(size);
    const step = 1 << 20;
    report(0, size);
    for (let loaded = 0; loaded < size;) {
      const { bytesRead } = await handle.read(bytes, loaded, Math.min(step, size - loaded), loaded);
      if (bytesRead === 0) return bytes.subarray(0, loaded);
      loaded += bytesRead;
      report(loaded, size);
    }
    if (size === 0) report(0, 0);
    return bytes;
  } catch (e) {
    throw new WebnxError('InvalidArgument', `cannot read model '${source}': ${e.message}`);
  } finally {
    await handle?.close();
  }
}

// A model file in Node, read straight into the wasm heap rather than into a JS buffer that is
// then copied there: the kernel fills the heap's new pages as it reads, and no second copy of
// the model is ever held. ResNet18 (46 MB): read + stage 95-115 -> 27 ms.
class ModelFile {
  #fs;
  #fd;
  #path;
  #report;

  constructor(fs, fd, size, path, report) {
    this.#fs = fs;
    this.#fd = fd;
    this.size = size;
    this.#path = path;
    this.#report = report;
  }

  // Reads the whole file to heap()[ptr...]. heap() is asked again for every chunk: the heap's
  // view is replaced when memory grows (another session may load between chunks). The reads
  // are synchronous so that no write can land in memory that moved while one was in flight.
  async readInto(heap, ptr) {
    const step = 4 << 20;
    try {
      this.#report(0, this.size);
      for (let loaded = 0; loaded < this.size;) {
        const length = Math.min(step, this.size - loaded);
        const read = this.#fs.readSync(this.#fd, heap(), ptr + loaded, length, loaded);
        if (read === 0) throw new Error(`the file ended at byte ${loaded} of ${this.size} (was it changed while loading?)`);
        loaded += read;
        this.#report(loaded, this.size);
        if (loaded < this.size) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      throw new WebnxError('InvalidArgument', `cannot read model '${this.#path}': ${e.message}`);
    } finally {
      this.close();
    }
  }

  close() {
    if (this.#fd === null) return;
    this.#fs.closeSync(this.#fd);
    this.#fd = null;
  }
}

function nodeFilePath(source) {
  if (!isNode || !(typeof source === 'string' || source instanceof URL)) return null;
  const text = String(source);
  if (/^(https?|data|blob):/i.test(text)) return null;
  return text.startsWith('file:') ? new URL(text) : text;
}

// A ModelFile for a path in Node whose bytes are not JSON (isJson(head, source) says), else
// null: JSON documents, other sources and URLs are read by readModelBytes.
export async function openModelFile(source, onProgress, isJson) {
  const path = nodeFilePath(source);
  if (path === null) return null;
  const fs = await nodeBuiltin('fs');
  let fd = null;
  try {
    fd = fs.openSync(path, 'r');
    const size = fs.fstatSync(fd).size;
    const head = new Uint8Array(Math.min(size, 64));
    fs.readSync(fd, head, 0, head.length, 0);
    if (size === 0 || isJson(head, source)) {
      fs.closeSync(fd);
      return null;
    }
    return new ModelFile(fs, fd, size, String(source), reporter(onProgress));
  } catch (e) {
    if (fd !== null) fs.closeSync(fd);
    throw new WebnxError('InvalidArgument', `cannot read model '${source}': ${e.message}`);
  }
}

export async function readModelBytes(source, onProgress) {
  const report = reporter(onProgress);
  const whole = (bytes) => {
    report(bytes.byteLength, bytes.byteLength);
    return bytes;
  };
  if (source instanceof Uint8Array) return whole(source);
  if (source instanceof ArrayBuffer) return whole(new Uint8Array(source));
  if (ArrayBuffer.isView(source)) return whole(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    if (typeof source.stream !== 'function') return whole(new Uint8Array(await source.arrayBuffer()));
    return readChunks(source.stream().getReader(), source.size, report);
  }
  if (typeof source === 'string' || source instanceof URL) {
    const path = nodeFilePath(source);
    if (path !== null) return readFileWithProgress(path, report);
    const base = globalThis.location?.href;
    return fetchModel(base ? new URL(String(source), base).href : String(source), report);
  }
  throw new WebnxError('InvalidArgument',
    'InferenceSession.create takes a path, URL, ArrayBuffer, Uint8Array or Blob');
}
