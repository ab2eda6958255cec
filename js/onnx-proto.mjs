// A small protobuf codec for the part of onnx.proto a model file uses (ModelProto, GraphProto,
// NodeProto, AttributeProto, TensorProto, ValueInfoProto and their parts), so the converters
// need no dependency. Messages decode to plain objects keyed by protobuf's JSON (camelCase)
// field names; int64 values are Numbers when exact, else BigInts; bytes are Uint8Arrays.
// Unknown fields are skipped (training info, functions, sparse tensors).

// name -> [field number, type, repeated?]; a type is a scalar name or another message.
export const SCHEMA = {
  Model: {
    irVersion: [1, 'int64'], opsetImport: [8, 'OperatorSetId', true], producerName: [2, 'string'],
    producerVersion: [3, 'string'], domain: [4, 'string'], modelVersion: [5, 'int64'],
    docString: [6, 'string'], graph: [7, 'Graph'], metadataProps: [14, 'StringStringEntry', true],
  },
  OperatorSetId: { domain: [1, 'string'], version: [2, 'int64'] },
  StringStringEntry: { key: [1, 'string'], value: [2, 'string'] },
  Graph: {
    node: [1, 'Node', true], name: [2, 'string'], initializer: [5, 'Tensor', true],
    docString: [10, 'string'], input: [11, 'ValueInfo', true], output: [12, 'ValueInfo', true],
    valueInfo: [13, 'ValueInfo', true],
  },
  Node: {
    input: [1, 'string', true], output: [2, 'string', true], name: [3, 'string'],
    opType: [4, 'string'], domain: [7, 'string'], attribute: [5, 'Attribute', true],
    docString: [6, 'string'],
  },
  Attribute: {
    name: [1, 'string'], refAttrName: [21, 'string'], docString: [13, 'string'], type: [20, 'enum'],
    f: [2, 'float'], i: [3, 'int64'], s: [4, 'bytes'], t: [5, 'Tensor'], g: [6, 'Graph'],
    floats: [7, 'float', true], ints: [8, 'int64', true], strings: [9, 'bytes', true],
    tensors: [10, 'Tensor', true], graphs: [11, 'Graph', true],
  },
  Tensor: {
    dims: [1, 'int64', true], dataType: [2, 'enum'], floatData: [4, 'float', true],
    int32Data: [5, 'int32', true], stringData: [6, 'bytes', true], int64Data: [7, 'int64', true],
    name: [8, 'string'], docString: [12, 'string'], rawData: [9, 'bytes'],
    externalData: [13, 'StringStringEntry', true], dataLocation: [14, 'enum'],
    doubleData: [10, 'double', true], uint64Data: [11, 'uint64', true],
  },
  ValueInfo: { name: [1, 'string'], type: [2, 'Type'], docString: [3, 'string'] },
  Type: { tensorType: [1, 'TypeTensor'], denotation: [6, 'string'] },
  TypeTensor: { elemType: [1, 'enum'], shape: [2, 'TensorShape'] },
  TensorShape: { dim: [1, 'Dimension', true] },
  Dimension: { dimValue: [1, 'int64'], dimParam: [2, 'string'], denotation: [3, 'string'] },
};

// field number -> [name, type, repeated] per message, for decoding.
const BY_NUMBER = Object.fromEntries(Object.entries(SCHEMA).map(([message, fields]) => [
  message, new Map(Object.entries(fields).map(([name, [num, type, rep]]) => [num, [name, type, !!rep]])),
]));

const VARINT_TYPES = new Set(['int64', 'uint64', 'int32', 'enum', 'bool']);
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });
const utf8Encoder = new TextEncoder();

class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.pos = 0;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  byte() {
    if (this.pos >= this.bytes.length) throw new Error('truncated protobuf');
    return this.bytes[this.pos++];
  }

  // A Number when it is exact, else a signed 64-bit BigInt.
  varint() {
    let result = 0;
    for (let shift = 0; shift < 49; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
    }
    let big = BigInt(result);
    for (let shift = 49n; shift < 70n; shift += 7n) {
      const b = this.byte();
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        const signed = BigInt.asIntN(64, big);
        const n = Number(signed);
        return Number.isSafeInteger(n) ? n : signed;
      }
    }
    throw new Error('malformed varint');
  }

  take(n) {
    if (n > this.bytes.length - this.pos) throw new Error('truncated protobuf');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.take(8);
    else if (wire === 2) this.take(this.varint());
    else if (wire === 5) this.take(4);
    else throw new Error(`unsupported wire type ${wire}`);
  }

  scalar(type) {
    switch (type) {
      case 'float': { const v = this.view.getFloat32(this.pos, true); this.take(4); return v; }
      case 'double': { const v = this.view.getFloat64(this.pos, true); this.take(8); return v; }
      case 'string': return utf8Decoder.decode(this.take(this.varint()));
      case 'bytes': return this.take(this.varint()).slice();
      case 'uint64': { const v = this.varint(); return typeof v === 'bigint' ? BigInt.asUintN(64, v) : v < 0 ? BigInt.asUintN(64, BigInt(v)) : v; }
      case 'int32': case 'enum': { const v = this.varint(); return typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : v; }
      default: return this.varint();
    }
  }
}

function decodeMessage(reader, end, message) {
  const fields = BY_NUMBER[message];
  const out = {};
  while (reader.pos < end) {
    const key = reader.varint();
    const num = Math.floor(key / 8);
    const wire = key % 8;
    const field = fields.get(num);
    if (!field) { reader.skip(wire); continue; }
    const [name, type, repeated] = field;
    let value;
    if (SCHEMA[type]) {
      const len = reader.varint();
      value = decodeMessage(reader, reader.pos + len, type);
    } else if (repeated && wire === 2 && type !== 'string' && type !== 'bytes') {
      // Packed scalars.
      const len = reader.varint();
      const stop = reader.pos + len;
      if (stop > reader.bytes.length) throw new Error('truncated protobuf');
      const list = out[name] ?? (out[name] = []);
      while (reader.pos < stop) list.push(reader.scalar(type));
      continue;
    } else {
      value = reader.scalar(type);
    }
    if (repeated) (out[name] ?? (out[name] = [])).push(value);
    else out[name] = value;
  }
  if (reader.pos !== end) throw new Error('truncated protobuf');
  return out;
}

export function decodeModel(bytes) {
  const reader = new Reader(bytes);
  return decodeMessage(reader, bytes.length, 'Model');
}

// A serialized TensorProto (the ONNX node tests' input_N.pb / output_N.pb).
export function decodeTensor(bytes) {
  const reader = new Reader(bytes);
  return decodeMessage(reader, bytes.length, 'Tensor');
}

class Writer {
  constructor() {
    this.chunks = [];
    this.buf = new Uint8Array(1024);
    this.len = 0;
  }

  ensure(n) {
    if (this.len + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) this.buf = new Uint8Array(Math.max(n, this.buf.length * 2));
  }

  flush() {
    if (this.len) this.chunks.push(this.buf.slice(0, this.len));
    this.len = 0;
  }

  varint(value) {
    this.ensure(10);
    if (typeof value === 'number' && value >= 0 && value < 2 ** 53) {
      while (value >= 0x80) {
        this.buf[this.len++] = (value % 0x80) | 0x80;
        value = Math.floor(value / 0x80);
      }
      this.buf[this.len++] = value;
    } else {
      let v = BigInt.asUintN(64, BigInt(value));
      while (v >= 0x80n) {
        this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
        v >>= 7n;
      }
      this.buf[this.len++] = Number(v);
    }
  }

  raw(bytes) {
    if (bytes.length > 4096) {
      this.flush();
      this.chunks.push(bytes);
      return;
    }
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  fixed(type, value) {
    this.ensure(8);
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.len);
    if (type === 'float') { view.setFloat32(0, value, true); this.len += 4; }
    else { view.setFloat64(0, value, true); this.len += 8; }
  }

  finish() {
    this.flush();
    const size = this.chunks.reduce((s, c) => s + c.length, 0);
    const out = new Uint8Array(size);
    let at = 0;
    for (const c of this.chunks) { out.set(c, at); at += c.length; }
    return out;
  }
}

function wireOf(type) {
  if (type === 'float') return 5;
  if (type === 'double') return 1;
  if (VARINT_TYPES.has(type)) return 0;
  return 2;
}

function writeScalar(w, type, value) {
  if (type === 'float' || type === 'double') w.fixed(type, Number(value));
  else if (type === 'string') { const b = utf8Encoder.encode(value); w.varint(b.length); w.raw(b); }
  else if (type === 'bytes') { w.varint(value.length); w.raw(value); }
  else w.varint(typeof value === 'boolean' ? Number(value) : value);
}

function encodeMessage(message, value) {
  const w = new Writer();
  for (const [name, [num, type, repeated]] of Object.entries(SCHEMA[message])) {
    const v = value[name];
    if (v === undefined || v === null) continue;
    const list = repeated ? v : [v];
    if (repeated && list.length === 0) continue;
    if (SCHEMA[type]) {
      for (const item of list) {
        const body = encodeMessage(type, item);
        w.varint(num * 8 + 2);
        w.varint(body.length);
        w.raw(body);
      }
    } else if (repeated && type !== 'string' && type !== 'bytes') {
      const packed = new Writer();
      for (const item of list) writeScalar(packed, type, item);
      const body = packed.finish();
      w.varint(num * 8 + 2);
      w.varint(body.length);
      w.raw(body);
    } else {
      for (const item of list) {
        w.varint(num * 8 + wireOf(type));
        writeScalar(w, type, item);
      }
    }
  }
  return w.finish();
}

export function encodeModel(model) {
  return encodeMessage('Model', model);
}
