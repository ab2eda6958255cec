// Graph bookkeeping for the quantizer (js/quantize.mjs): reading float constants, building
// initializers and nodes, fresh names, dropping what a rewrite left unread, and the opset.
// Works on the plain objects of js/onnx-proto.mjs (camelCase fields).

export const FLOAT = 1;
export const UINT8 = 2;
export const INT8 = 3;
export const INT32 = 6;
export const INT64 = 7;

const ARRAYS = { [FLOAT]: Float32Array, [UINT8]: Uint8Array, [INT8]: Int8Array, [INT32]: Int32Array, [INT64]: BigInt64Array };

export const dimsOf = (tensor) => (tensor.dims ?? []).map(Number);

// A float32 tensor's values, or null when it holds another type or lives in an external file.
export function floatsOf(tensor) {
  if (tensor.dataType !== FLOAT || tensor.externalData?.length) return null;
  const count = dimsOf(tensor).reduce((a, b) => a * b, 1);
  let values;
  if (tensor.rawData) {
    if (tensor.rawData.byteLength !== count * 4) return null;
    // Copied: rawData may sit at an offset that is not a multiple of 4.
    values = new Float32Array(tensor.rawData.slice().buffer);
  } else {
    values = Float32Array.from(tensor.floatData ?? []);
  }
  return values.length === count ? values : null;
}

// An initializer of ONNX type `dataType` with little-endian raw data (the codec's rawData).
export function makeTensor(name, dataType, dims, values) {
  const data = values instanceof ARRAYS[dataType] ? values : ARRAYS[dataType].from(values);
  // Typed arrays are little-endian on every platform webnx runs on (wasm requires it).
  return { name, dims, dataType, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

export function makeNode(opType, input, output, name, attribute = []) {
  return { opType, input, output, name, attribute };
}

export const intAttr = (name, i) => ({ name, type: 2, i });
export const attrOf = (node, name) => node.attribute?.find((a) => a.name === name);

// Every name in a graph and its subgraphs, values and nodes alike.
function collectNames(graph, into) {
  for (const list of [graph.input, graph.output, graph.valueInfo, graph.initializer]) {
    for (const v of list ?? []) into.add(v.name);
  }
  for (const node of graph.node ?? []) {
    for (const n of [...(node.input ?? []), ...(node.output ?? []), node.name]) if (n) into.add(n);
    for (const a of node.attribute ?? []) {
      for (const g of [a.g, ...(a.graphs ?? [])]) if (g) collectNames(g, into);
    }
  }
  return into;
}

// Fresh names: `base` itself, else base_1, base_2 … , never one the model (or a subgraph) uses.
export function nameAllocator(graph) {
  const taken = collectNames(graph, new Set());
  return (base) => {
    let name = base;
    for (let k = 1; taken.has(name); k++) name = `${base}_${k}`;
    taken.add(name);
    return name;
  };
}

// Constant values by name: an initializer that is not also a graph input (those can be fed),
// a Constant node's `value`, or either through Identity nodes (PyTorch shares biases that way).
export function constantResolver(graph) {
  const inits = new Map((graph.initializer ?? []).map((t) => [t.name, t]));
  for (const i of graph.input ?? []) inits.delete(i.name);
  const producers = new Map();
  for (const node of graph.node) for (const o of node.output ?? []) producers.set(o, node);
  const resolve = (name, depth = 0) => {
    if (inits.has(name)) return inits.get(name);
    const node = producers.get(name);
    if (!node || depth > 16 || (node.domain && node.domain !== 'ai.onnx')) return null;
    if (node.opType === 'Identity') return resolve(node.input[0], depth + 1);
    if (node.opType === 'Constant' && node.attribute?.length === 1 && node.attribute[0].name === 'value') {
      return node.attribute[0].t;
    }
    return null;
  };
  return resolve;
}

// Names read anywhere in the graph, subgraphs included (they may read outer values).
function readNames(graph, into = new Set()) {
  for (const node of graph.node ?? []) {
    for (const n of node.input ?? []) if (n) into.add(n);
    for (const a of node.attribute ?? []) {
      for (const g of [a.g, ...(a.graphs ?? [])]) if (g) readNames(g, into);
    }
  }
  for (const o of graph.output ?? []) into.add(o.name);
  return into;
}

// Drops the initializers, Constant and Identity nodes among `candidates` (the float weights and
// biases a rewrite replaced) that nothing reads any more, then what those read, and so on.
export function dropUnread(graph, candidates) {
  let pending = new Set(candidates);
  while (pending.size) {
    const read = readNames(graph);
    const next = new Set();
    const dead = new Set([...pending].filter((n) => !read.has(n)));
    graph.initializer = (graph.initializer ?? []).filter((t) => !dead.has(t.name));
    graph.node = graph.node.filter((node) => {
      const unread = node.output.length === 1 && dead.has(node.output[0]) && !node.domain;
      if (!unread || !['Identity', 'Constant'].includes(node.opType)) return true;
      for (const i of node.input) next.add(i);
      return false;
    });
    graph.valueInfo = (graph.valueInfo ?? []).filter((v) => !dead.has(v.name));
    pending = next;
  }
}
