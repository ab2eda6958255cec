// A look inside a model without running it: inputs, outputs, opsets, op histogram, weight dtypes.
// Reads the ONNX protobuf wire format directly (only the fields named below), or a JSON graph,
// so it works on models the runtime rejects — that is what `webnx check` and the lab need.
import { WebnxError } from './errors.mjs';

const DTYPE_NAMES = ['undefined', 'float32', 'uint8', 'int8', 'uint16', 'int16', 'int32', 'int64', 'string',
  'bool', 'float16', 'float64', 'uint32', 'uint64', 'complex64', 'complex128', 'bfloat16', 'float8e4m3fn',
  'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'uint4', 'int4', 'float4e2m1'];
export const VALUE_DTYPES = ['float32', 'int32', 'int64', 'bool'];
const WEIGHT_DTYPES = [...VALUE_DTYPES, 'float16']; // float16 weights are widened at load

const dtypeName = (code) => DTYPE_NAMES[code] ?? `dtype ${code}`;

// Protobuf wire format: yields [field, wireType, value] where value is a number (varint and
// fixed) or a Uint8Array (length-delimited).
function* fields(bytes) {
  let pos = 0;
  const varint = () => {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new WebnxError('MalformedModel', 'not an ONNX model (truncated protobuf)');
      const b = bytes[pos++];
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
  };
  while (pos < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) yield [field, wire, varint()];
    else if (wire === 1) { pos += 8; yield [field, wire, 0]; }
    else if (wire === 5) { pos += 4; yield [field, wire, 0]; }
    else if (wire === 2) {
      const len = varint();
      if (pos + len > bytes.length) throw new WebnxError('MalformedModel', 'not an ONNX model (truncated protobuf)');
      yield [field, wire, bytes.subarray(pos, pos + len)];
      pos += len;
    } else {
      throw new WebnxError('MalformedModel', `not an ONNX model (protobuf wire type ${wire})`);
    }
  }
}

const utf8 = new TextDecoder();
const str = (b) => utf8.decode(b);

function packedVarints(value) {
  if (typeof value === 'number') return [value];
  return Array.from(fields(prefixVarints(value)), ([, , v]) => v);
}
// Packed varints have no keys; give each one a field-1 key so fields() can read them.
function prefixVarints(bytes) {
  const out = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] < 0x80) {
      out.push(8, ...bytes.subarray(start, i + 1));
      start = i + 1;
    }
  }
  return Uint8Array.from(out);
}

function readValueInfo(bytes) {
  const info = { name: '', type: 'unknown', dims: null };
  for (const [f, , v] of fields(bytes)) {
    if (f === 1) info.name = str(v);
    if (f !== 2) continue;
    for (const [tf, , tv] of fields(v)) {
      if (tf !== 1) { info.type = tf === 4 ? 'sequence' : tf === 5 ? 'map' : tf === 9 ? 'optional' : 'other'; continue; }
      for (const [ef, , ev] of fields(tv)) {
        if (ef === 1) info.type = dtypeName(ev);
        if (ef !== 2) continue;
        info.dims = [];
        for (const [, , dim] of fields(ev)) {
          let d = null;
          for (const [df, , dv] of fields(dim)) {
            if (df === 1) d = dv;
            if (df === 2) d = str(dv);
          }
          info.dims.push(d);
        }
      }
    }
  }
  return info;
}

function readTensorHeader(bytes) {
  const t = { name: '', type: 'float32', dims: [] };
  for (const [f, , v] of fields(bytes)) {
    if (f === 1) t.dims.push(...packedVarints(v));
    if (f === 2) t.type = dtypeName(v);
    if (f === 8) t.name = str(v);
  }
  return t;
}

function readNode(bytes, addSubgraph) {
  const node = { name: '', op: '', domain: '' };
  for (const [f, , v] of fields(bytes)) {
    if (f === 3) node.name = str(v);
    if (f === 4) node.op = str(v);
    if (f === 7) node.domain = str(v);
    if (f === 5) {
      for (const [af, , av] of fields(v)) if (af === 6 || af === 11) addSubgraph(av); // g, graphs
    }
  }
  return node;
}

function readGraph(bytes, summary, top) {
  const inputs = [];
  const initializers = new Set();
  for (const [f, , v] of fields(bytes)) {
    if (f === 1) summary.nodes.push(readNode(v, (g) => readGraph(g, summary, false)));
    else if (f === 5) {
      const t = readTensorHeader(v);
      initializers.add(t.name);
      summary.weights.push(t);
    } else if (top && f === 11) inputs.push(readValueInfo(v));
    else if (top && f === 12) summary.outputs.push(readValueInfo(v));
  }
  // Before IR 4, initializers were also listed as graph inputs.
  if (top) summary.inputs = inputs.filter((i) => !initializers.has(i.name));
}

function inspectOnnx(bytes) {
  const summary = { format: 'onnx', irVersion: null, producer: '', opsets: [], inputs: [], outputs: [],
    nodes: [], weights: [], metadata: {} };
  let graph = null;
  for (const [f, , v] of fields(bytes)) {
    if (f === 1) summary.irVersion = v;
    else if (f === 2) summary.producer = str(v) + summary.producer;
    else if (f === 3) summary.producer += ` ${str(v)}`;
    else if (f === 7) graph = v;
    else if (f === 8) {
      const opset = { domain: '', version: 0 };
      for (const [of, , ov] of fields(v)) {
        if (of === 1) opset.domain = str(ov);
        if (of === 2) opset.version = ov;
      }
      summary.opsets.push(opset);
    } else if (f === 14) {
      let key = '';
      let value = '';
      for (const [mf, , mv] of fields(v)) {
        if (mf === 1) key = str(mv);
        if (mf === 2) value = str(mv);
      }
      summary.metadata[key] = value;
    }
  }
  if (!graph) throw new WebnxError('MalformedModel', 'not a valid ONNX model: it has no graph');
  readGraph(graph, summary, true);
  return summary;
}

// JSON graphs: the webnx-graph dialect ({ format, inputs, outputs, nodes: [{ op }] }) or
// ONNX-JSON ({ graph: { node: [{ op_type | opType }] } }). Best effort: names and ops only.
function inspectJson(doc) {
  const summary = { format: 'json', irVersion: null, producer: '', opsets: [], inputs: [], outputs: [],
    nodes: [], weights: [], metadata: {} };
  const asInfo = (v) => (typeof v === 'string' ? { name: v, type: 'unknown', dims: null }
    : { name: v.name ?? v.id ?? '', type: v.dtype ?? v.type ?? 'unknown', dims: v.shape ?? v.dims ?? null });
  if (doc.graph) {
    const g = doc.graph;
    summary.format = 'onnx-json';
    const inits = new Set((g.initializer ?? []).map((t) => t.name));
    summary.inputs = (g.input ?? g.inputs ?? []).map(asInfo).filter((i) => !inits.has(i.name));
    summary.outputs = (g.output ?? g.outputs ?? []).map(asInfo);
    summary.nodes = (g.node ?? g.nodes ?? []).map((n) => ({ name: n.name ?? '', op: n.op_type ?? n.opType ?? '', domain: n.domain ?? '' }));
    summary.opsets = (doc.opset_import ?? doc.opsetImport ?? []).map((o) => ({ domain: o.domain ?? '', version: Number(o.version) }));
  } else {
    summary.format = doc.format ?? 'json';
    summary.inputs = (doc.inputs ?? []).map(asInfo);
    summary.outputs = (doc.outputs ?? []).map(asInfo);
    summary.nodes = (doc.nodes ?? []).map((n) => ({ name: n.id ?? n.name ?? '', op: n.op ?? '', domain: 'webnx-graph' }));
  }
  return summary;
}

// Ops by count, most used first: [{ op, domain, count }].
function histogram(nodes) {
  const counts = new Map();
  for (const n of nodes) {
    const key = `${n.domain}\u0000${n.op}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => {
    const [domain, op] = key.split('\u0000');
    return { op, domain, count };
  }).sort((a, b) => b.count - a.count || a.op.localeCompare(b.op));
}

// bytes (Uint8Array) or a parsed JSON graph → { format, inputs, outputs, opsets, ops, nodeCount,
// parameters, weightDtypes, metadata }.
export function inspectModel(source) {
  let summary;
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
    const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
    if (first === 0x7b) { // '{'
      let doc;
      try {
        doc = JSON.parse(utf8.decode(bytes));
      } catch (e) {
        throw new WebnxError('MalformedModel', `not valid JSON: ${e.message}`);
      }
      summary = inspectJson(doc);
    } else {
      summary = inspectOnnx(bytes);
    }
  } else if (source && typeof source === 'object') {
    summary = inspectJson(source);
  } else {
    throw new WebnxError('InvalidArgument', 'inspectModel takes model bytes or a JSON graph object');
  }
  const parameters = summary.weights.reduce((n, w) => n + w.dims.reduce((a, d) => a * d, 1), 0);
  return {
    format: summary.format,
    irVersion: summary.irVersion,
    producer: summary.producer.trim(),
    opsets: summary.opsets,
    inputs: summary.inputs,
    outputs: summary.outputs,
    ops: histogram(summary.nodes),
    nodeCount: summary.nodes.length,
    parameters,
    weightDtypes: [...new Set(summary.weights.map((w) => w.type))],
    metadata: summary.metadata,
  };
}

// What a static look can tell is unsupported: ops missing from the registry, dtypes the runtime
// does not take. (Opset ranges and everything else come from the runtime's own error.)
export function findUnsupported(info, registry) {
  const known = new Set(registry);
  const problems = [];
  for (const { op, domain, count } of info.ops) {
    const isDefault = domain === '' || domain === 'ai.onnx' || domain === 'webnx-graph';
    if (!isDefault || !known.has(op)) {
      const name = isDefault ? op : `${domain}:${op}`;
      problems.push({ kind: 'operator', name, count,
        reason: isDefault ? 'no kernel registered for this op' : `custom domain '${domain}' is not supported` });
    }
  }
  for (const v of [...info.inputs, ...info.outputs]) {
    if (v.type !== 'unknown' && !VALUE_DTYPES.includes(v.type)) {
      problems.push({ kind: 'dtype', name: v.name, reason: `${v.type}; webnx takes ${VALUE_DTYPES.join(', ')}` });
    }
  }
  for (const t of info.weightDtypes) {
    if (!WEIGHT_DTYPES.includes(t)) problems.push({ kind: 'dtype', name: `weights of type ${t}`, reason: `webnx takes ${WEIGHT_DTYPES.join(', ')}` });
  }
  return problems;
}
