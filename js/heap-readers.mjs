// Model bytes that go straight into the wasm heap instead of into a JS buffer first: a file in
// Node, a download or a Blob (chunk by chunk when its size is known, else once it has all
// come). Each has `size`, `readInto(heap, ptr)` (fills heap()[ptr, ptr + size); heap() is asked
// again for every write, since the heap's view is replaced when memory grows and another session
// may load in between) and `close()` (after a load that failed before reading: stops the read).
//
// ResNet18 (46 MB) from its path, read + stage: 95-115 -> 27 ms, since the kernel fills the heap's
// new pages as it reads, and no second copy of the model is ever held.
import { WebnxError } from './errors.mjs';

// The most bytes the wasm heap can stage (wasm32: 4 GiB of memory in all).
export const MAX_MODEL_BYTES = 2 ** 32 - 1;

// The next { done, value } of a download or Blob with `loaded` bytes read so far. A failed read
// (a connection cut short) is an InvalidArgument naming the model, and a stream running past
// what the heap could hold is an OutOfMemory (its read stopped) instead of memory growing until
// the process dies.
async function nextChunk(reader, what, loaded) {
  let chunk;
  try {
    chunk = await reader.read();
  } catch (e) {
    throw new WebnxError('InvalidArgument', `reading model ${what} failed: ${e.message}`);
  }
  if (!chunk.done && loaded + chunk.value.length > MAX_MODEL_BYTES) {
    reader.cancel().catch(() => {});
    throw tooLarge(what);
  }
  return chunk;
}

// size: the bytes the model announced (undefined: it is still arriving).
export function tooLarge(what, size) {
  const holds = size === undefined ? 'more' : `${size} bytes, more`;
  return new WebnxError('OutOfMemory',
    `model ${what} holds ${holds} than the ${MAX_MODEL_BYTES} bytes the wasm heap can hold`);
}

// Reads a stream on from `chunks` (already read: `loaded` bytes) until it ends or holds at least
// `until` bytes, reporting (loaded, total) as it goes: { chunks, loaded, done }.
export async function readStream(reader, { chunks = [], loaded = 0, total, until = Infinity }, report, what) {
  const read = [...chunks];
  while (loaded < until) {
    const { done, value } = await nextChunk(reader, what, loaded);
    if (done) return { chunks: read, loaded, done: true };
    read.push(value);
    loaded += value.length;
    report(loaded, total);
  }
  return { chunks: read, loaded, done: false };
}

// Copies chunks one after another into heap()[ptr, ...).
export function copyChunks(chunks, heap, ptr) {
  let at = 0;
  for (const chunk of chunks) {
    heap().set(chunk, ptr + at);
    at += chunk.length;
  }
}

// what: the file for error messages ("model '<path>'", "side file 'w.bin' of model '<path>'").
export class FileIntoHeap {
  #fs;
  #fd;
  #what;
  #report;

  constructor(fs, fd, size, what, report = () => {}) {
    this.#fs = fs;
    this.#fd = fd;
    this.size = size;
    this.#what = what;
    this.#report = report;
  }

  // Opens path for reading into the heap; throws what open or fstat throws.
  static open(fs, path, what, report) {
    const fd = fs.openSync(path, 'r');
    try {
      return new FileIntoHeap(fs, fd, fs.fstatSync(fd).size, what, report);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  // The file's first bytes (at most `length`), to tell what it holds.
  readHead(length) {
    const head = new Uint8Array(Math.min(this.size, length));
    this.#fs.readSync(this.#fd, head, 0, head.length, 0);
    return head;
  }

  // 4 MB synchronous reads with a turn of the event loop between them: no read can be in
  // flight while memory grows (which may move it).
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
      throw new WebnxError('InvalidArgument', `cannot read ${this.#what}: ${e.message}`);
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

// Chunks read before the heap is ready (the runtime may still be starting) wait in a list; the
// stream is read on meanwhile, so a download never waits for the runtime.
export class StreamIntoHeap {
  #reader;
  #what;
  #pending = [];
  #sink;
  #done;

  // first: the chunks already read (to tell the model's kind from its first bytes).
  constructor(reader, size, first, report, what) {
    this.size = size;
    this.#reader = reader;
    this.#what = what;
    this.#sink = (chunk) => this.#pending.push(chunk);
    let loaded = 0;
    for (const chunk of first) {
      this.#sink(chunk);
      loaded += chunk.length;
    }
    this.#done = this.#pump(loaded, report);
    this.#done.catch(() => {});  // readInto reports it; after a failed load nobody asks
  }

  async #pump(loaded, report) {
    for (;;) {
      const { done, value } = await this.#reader.read();
      if (done) break;
      if (loaded + value.length > this.size) throw new Error(`it holds more than the ${this.size} bytes announced`);
      this.#sink(value, loaded);
      loaded += value.length;
      report(loaded, this.size);
    }
    if (loaded < this.size) throw new Error(`it ended after ${loaded} of the ${this.size} bytes announced`);
  }

  async readInto(heap, ptr) {
    copyChunks(this.#pending, heap, ptr);
    this.#pending = [];
    this.#sink = (chunk, offset) => heap().set(chunk, ptr + offset);
    try {
      await this.#done;
    } catch (e) {
      throw new WebnxError('InvalidArgument', `reading model ${this.#what} failed: ${e.message}`);
    }
  }

  close() {
    this.#reader.cancel().catch(() => {});
  }
}

// A download whose length is only known at its end (chunked, or compressed: Content-Length then
// counts the encoded bytes), read whole by readStream. Its chunks are kept as they came and
// copied into the heap once, with no JS buffer of the whole model grown along the way.
export class ChunksIntoHeap {
  #chunks;

  constructor(chunks, size) {
    this.#chunks = chunks;
    this.size = size;
  }

  async readInto(heap, ptr) {
    copyChunks(this.#chunks, heap, ptr);
    this.#chunks = [];
  }

  close() {
    this.#chunks = [];
  }
}
