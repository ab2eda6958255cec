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
    const text = String(source);
    if (isNode && !/^(https?|data|blob):/i.test(text)) {
      return readFileWithProgress(text.startsWith('file:') ? new URL(text) : text, report);
    }
    const base = globalThis.location?.href;
    return fetchModel(base ? new URL(text, base).href : text, report);
  }
  throw new WebnxError('InvalidArgument',
    'InferenceSession.create takes a path, URL, ArrayBuffer, Uint8Array or Blob');
}
