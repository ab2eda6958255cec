// NeatapticTS compatibility (docs/dsl.md, "NeatapticTS exports"): what its exportToONNX writes
// that is not valid ONNX, rewritten into ONNX that computes what the exporter meant, before the
// document reaches the wasm loader. Applied only to documents that are recognisably
// NeatapticTS's, each rule only where it is unambiguous; every rule that changes the graph
// returns a warning. json-source.mjs imports this module only for such documents, so it costs
// other users nothing (a C++ version cost each .wasm 15 KB).
import { WebnxError } from './errors.mjs';

const TENSOR_NAME = /^(ConvW|ConvB|LSTM_W|LSTM_R|LSTM_B|GRU_W|GRU_R|GRU_B|W|B|R)\d+(_n\d+)?$/;
const LAYER_NAME = /^Layer_\d+$/;
const POOLS = new Set(['MaxPool', 'AveragePool']);
const FUSED = new Set(['LSTM', 'GRU']);
// ONNX gate g is the exporter's gate SOURCE[op][g]: LSTM i,o,f,c from its i,f,c,o; GRU z,r,h is
// already its update, reset, candidate.
const GATE_SOURCE = { LSTM: [0, 3, 1, 2], GRU: [0, 1, 2] };

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNameList = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string');
// The first key of `keys` that `obj` has (the exporter writes plural graph lists; protobuf's
// printer singular ones).
const keyOf = (obj, ...keys) => keys.find((k) => k in obj) ?? keys[0];

// A working view of the graph: its lists under the keys the document uses, copied so that the
// caller's document is never changed.
function readGraph(doc) {
  const g = doc.graph;
  if (!isObject(g)) return null;
  const keys = { node: keyOf(g, 'node', 'nodes'), init: keyOf(g, 'initializer', 'initializers'),
    input: keyOf(g, 'inputs', 'input'), output: keyOf(g, 'outputs', 'output') };
  const lists = [g[keys.node] ?? [], g[keys.init] ?? [], g[keys.input] ?? [], g[keys.output] ?? []];
  if (!lists.every((l) => Array.isArray(l) && l.every(isObject))) return null;
  const [nodes, inits, inputs, outputs] = lists;
  const nodeKeys = nodes.map((n) => ({ input: keyOf(n, 'input', 'inputs'), output: keyOf(n, 'output', 'outputs') }));
  if (!nodes.every((n, i) => typeof n.op_type === 'string' && isNameList(n[nodeKeys[i].input] ?? []) &&
      isNameList(n[nodeKeys[i].output] ?? []))) {
    return null;
  }
  if (![...inits, ...inputs, ...outputs].every((v) => typeof v.name === 'string')) return null;
  // Names defined twice are the loader's to report: a map of them would keep one silently.
  if (new Set(inits.map((t) => t.name)).size !== inits.length) return null;
  return {
    keys,
    nodes: nodes.map((n, i) => {
      const { [nodeKeys[i].input]: input = [], [nodeKeys[i].output]: output = [], ...rest } = n;
      return { ...rest, input: [...input], output: [...output] };
    }),
    inits: new Map(inits.map((t) => [t.name, t])),
    inputs,
    outputs,
    warnings: [],
    names: null,  // every name in use, made by fresh()
  };
}

function metadataOf(doc) {
  const props = Array.isArray(doc.metadata_props) ? doc.metadata_props : [];
  return new Map(props.filter(isObject).map((p) => [p.key, p.value]));
}

function isNeataptic(doc, g) {
  if (typeof doc.producer_name === 'string' && /neataptic/i.test(doc.producer_name)) return true;
  return g.outputs.length === 1 && g.outputs[0].name === 'output' && g.inputs.some((i) => i.name === 'input') &&
    g.inits.size > 0 && [...g.inits.keys()].every((n) => TENSOR_NAME.test(n)) &&
    g.nodes.some((n) => n.output.some((o) => LAYER_NAME.test(o)));
}

function fresh(g, base) {
  if (!g.names) {
    g.names = new Set([...g.inits.keys(), ...g.inputs.map((i) => i.name), ...g.nodes.flatMap((n) => [...n.output, n.name])]);
  }
  let name = base;
  for (let i = 1; g.names.has(name); i++) name = `${base}_${i}`;
  g.names.add(name);
  return name;
}

function addFloats(g, base, dims, values) {
  const name = fresh(g, base);
  g.inits.set(name, { name, data_type: 1, dims, float_data: Array.from(values) });
  return name;
}

// out = Reshape(x, shape); a fresh out when none is given.
function reshape(g, x, shape, out = fresh(g, `${x}_reshaped`)) {
  const shapeName = fresh(g, `${x}_shape`);
  g.inits.set(shapeName, { name: shapeName, data_type: 7, dims: [shape.length], int64_data: shape.map(String) });
  g.nodes.push({ op_type: 'Reshape', name: fresh(g, `neataptic_reshape_${x}`), input: [x, shapeName], output: [out] });
  return out;
}

const readNames = (g) => new Set([...g.nodes.flatMap((n) => n.input), ...g.outputs.map((o) => o.name)]);
const attr = (node, name) => (Array.isArray(node.attributes) ? node.attributes : []).find((a) => isObject(a) && a.name === name);
const intAttr = (node, name, fallback) => {
  const a = attr(node, name);
  return a && a.i !== undefined ? Number(a.i) : fallback;
};
const intsAttr = (node, name) => attr(node, name)?.ints?.map(Number);
const floatsOf = (t) => {
  const data = t?.float_data;
  return Number(t?.data_type) === 1 && (Array.isArray(data) || ArrayBuffer.isView(data)) ? Array.from(data, Number) : null;
};
const dimsOf = (t) => (Array.isArray(t?.dims) ? t.dims.map(Number) : null);
const rankOf = (info) => info.type?.tensor_type?.shape?.dim?.length;
const sameDims = (a, b) => a !== null && a.length === b.length && a.every((v, i) => v === b[i]);

// --- Rules about names ----------------------------------------------------------------------

function dropUnreadFusedNodes(g) {
  const read = readNames(g);
  g.nodes = g.nodes.filter((n) => {
    if (!FUSED.has(n.op_type) || (n.domain ?? '') !== '' || n.output.some((o) => o && read.has(o))) return true;
    g.warnings.push(`NeatapticTS document: dropped the experimental fused ${n.op_type} node '${n.name}': ` +
      `nothing reads its output '${n.output[0]}' (the unfused nodes beside it compute the layer)`);
    return false;
  });
}

function bindDanglingOutputs(g) {
  const defined = new Set([...g.inits.keys(), ...g.inputs.map((i) => i.name), ...g.nodes.flatMap((n) => n.output)]);
  g.outputs.forEach((out, index) => {
    if (defined.has(out.name)) return;
    const read = readNames(g);
    const unread = g.nodes.flatMap((n) => n.output.map((o, i) => ({ n, i, o }))).filter((u) => u.o && !read.has(u.o));
    if (unread.length === 0) return;  // the loader reports the dangling output
    if (unread.length > 1) {
      throw new WebnxError('MalformedModel', `/graph/${g.keys.output}/${index}/name: graph output '${out.name}' is ` +
        'written by no node, and the NeatapticTS rule that binds it to the last layer\'s output is ambiguous: ' +
        `${unread.map((u) => `'${u.o}'`).join(', ')} are all read by nothing`);
    }
    const { n, i, o } = unread[0];
    g.warnings.push(`NeatapticTS document: graph output '${out.name}' is written by no node; it is bound to ` +
      `'${o}' (written by node '${n.name}'), the one value nothing reads`);
    n.output[i] = out.name;
    defined.add(out.name);
  });
}

// --- Fused LSTM/GRU that something reads ----------------------------------------------------

function reorderGates(values, source, block, total) {
  const out = new Array(total).fill(0);
  source.forEach((from, to) => {
    for (let i = 0; i < block; i++) out[to * block + i] = values[from * block + i];
  });
  return out;
}

function convertFusedNode(g, node, oneD) {
  const source = GATE_SOURCE[node.op_type];
  const gates = source.length;
  const [x, wName, rName, bName] = node.input;
  const [w, r, b] = [wName, rName, bName].map((n) => floatsOf(g.inits.get(n)));
  const [wDims, rDims, bDims] = [wName, rName, bName].map((n) => dimsOf(g.inits.get(n)));
  if (!w || wDims.length !== 2) return;  // not the simplified layout: ONNX's rules apply
  const hidden = intAttr(node, 'hidden_size', wDims[0] / gates);
  const gh = gates * hidden, inSize = wDims[1];
  if (!(hidden > 0) || wDims[0] !== gh || !r || !sameDims(rDims, [gh, hidden]) ||
      (bName && (!b || !sameDims(bDims, [gh]))) || node.output.length !== 1 || intAttr(node, 'layout', 0) !== 0) {
    throw new WebnxError('MalformedModel', `node '${node.name}' (${node.op_type}): its NeatapticTS fused weights do not ` +
      `have the exporter's layout (W [${gates}*H, I], R [${gates}*H, H], B [${gates}*H], layout 0, one output) for hidden_size ${hidden}`);
  }
  const yH = fresh(g, `${node.output[0]}_y_h`);
  reshape(g, yH, oneD ? [-1] : [-1, hidden], node.output[0]);
  node.input = [
    reshape(g, x, [1, -1, inSize]),
    addFloats(g, `${wName}_onnx`, [1, gh, inSize], reorderGates(w, source, hidden * inSize, gh * inSize)),
    addFloats(g, `${rName}_onnx`, [1, gh, hidden], reorderGates(r, source, hidden * hidden, gh * hidden)),
    addFloats(g, `${node.name}_B_onnx`, [1, 2 * gh], b ? reorderGates(b, source, hidden, 2 * gh) : new Array(2 * gh).fill(0)),
  ];
  node.output = ['', yH];
  node.attributes = [...(node.attributes ?? []).filter((a) => !['layout', 'hidden_size'].includes(a?.name)),
    { name: 'hidden_size', type: 'INT', i: hidden }];
  g.warnings.push(`NeatapticTS document: the fused ${node.op_type} node '${node.name}' runs one time step in ONNX's ` +
    `layout (${node.op_type === 'LSTM' ? 'gates i,f,c,o reordered to i,o,f,c, ' : ''}a num_directions axis and a zero recurrent bias)`);
}

// --- Conv layers over flat features (conv2d_specs) ------------------------------------------

function convSpecs(meta) {
  let specs = meta.get('conv2d_specs');
  if (typeof specs === 'string') {
    try { specs = JSON.parse(specs); } catch { return []; }
  }
  const fields = ['layerIndex', 'inChannels', 'inHeight', 'inWidth', 'outChannels', 'outHeight', 'outWidth'];
  return Array.isArray(specs) ? specs.filter((s) => isObject(s) &&
    fields.every((f) => Number.isInteger(s[f]) && s[f] > 0 && s[f] <= 1 << 24)) : [];
}

// Lays out conv layer k: its input reshaped to NCHW, its layer value flat again; returns the
// layer's { flat, nchw, channels, height, width } or null when there is no such conv.
function layOutConv(g, spec, oneD) {
  const conv = g.nodes.find((n) => n.op_type === 'Conv' && n.name === `conv_l${spec.layerIndex}` && n.input.length > 0 &&
    n.output.length === 1);
  if (!conv) return null;
  // The layer value: the conv's activation when that is its one reader.
  const readers = g.nodes.filter((n) => n.input.includes(conv.output[0]));
  const act = readers.length === 1 && readers[0].input.length === 1 && readers[0].output.length === 1 &&
    !POOLS.has(readers[0].op_type) && !['Flatten', 'Reshape'].includes(readers[0].op_type) &&
    !g.outputs.some((o) => o.name === conv.output[0]) ? readers[0] : conv;
  const flat = act.output[0];
  const layer = { flat, nchw: flat, channels: spec.outChannels, height: spec.outHeight, width: spec.outWidth };
  const features = layer.channels * layer.height * layer.width;
  // A document that gives Conv its 4-D input and reads the layer only by pooling is valid
  // ONNX as written.
  const input = g.inputs.find((i) => i.name === conv.input[0]);
  const flatReaders = g.nodes.some((n) => !POOLS.has(n.op_type) && n.input.includes(flat)) ||
    g.outputs.some((o) => o.name === flat);
  if (rankOf(input ?? {}) === 4 && !flatReaders) return layer;
  conv.input[0] = reshape(g, conv.input[0], [-1, spec.inChannels, spec.inHeight, spec.inWidth]);
  layer.nchw = fresh(g, `${flat}_nchw`);
  act.output[0] = layer.nchw;
  reshape(g, layer.nchw, oneD ? [-1] : [-1, features], flat);
  for (const n of g.nodes) if (POOLS.has(n.op_type) && n.input[0] === flat) n.input[0] = layer.nchw;
  g.warnings.push(`NeatapticTS document: conv node '${conv.name}' reads its flat features as [${spec.inChannels}, ` +
    `${spec.inHeight}, ${spec.inWidth}] and '${flat}' holds its ${features} outputs as a flat vector, as conv2d_specs describe`);
  return layer;
}

// --- Pooling as a structural annotation -----------------------------------------------------

// Values a pooling node writes over `layer`, or -1 when that cannot be told.
function pooledFeatures(pool, layer) {
  const kernel = intsAttr(pool, 'kernel_shape');
  if (!kernel || kernel.length !== 2) return -1;
  const strides = intsAttr(pool, 'strides') ?? [1, 1], pads = intsAttr(pool, 'pads') ?? [0, 0, 0, 0];
  const dilations = intsAttr(pool, 'dilations') ?? [1, 1];
  const autoPad = attr(pool, 'auto_pad')?.s ?? 'NOTSET';
  const ceil = intAttr(pool, 'ceil_mode', 0) !== 0;
  let features = layer.channels;
  [layer.height, layer.width].forEach((size, d) => {
    if (autoPad.startsWith('SAME')) {
      features *= Math.ceil(size / strides[d]);
      return;
    }
    const span = size + (autoPad === 'VALID' ? 0 : pads[d] + pads[d + 2]) - ((kernel[d] - 1) * dilations[d] + 1);
    features *= span < 0 ? NaN : (ceil ? Math.ceil(span / strides[d]) : Math.floor(span / strides[d])) + 1;
  });
  return Number.isFinite(features) ? features : -1;
}

// Width of a flat layer value from the weights that make it, or -1.
function flatWidth(g, producer, spatial, value, depth = 0) {
  const s = spatial.find((l) => l.flat === value);
  if (s) return s.channels * s.height * s.width;
  const node = producer.get(value);
  if (!node || depth > 8) return -1;
  if (node.op_type === 'Gemm') {
    const dims = dimsOf(g.inits.get(node.input[1]));
    return dims?.length === 2 ? dims[intAttr(node, 'transB', 0) ? 0 : 1] : -1;
  }
  if (node.op_type === 'Concat') {
    const widths = node.input.map((i) => flatWidth(g, producer, spatial, i, depth + 1));
    return widths.includes(-1) ? -1 : widths.reduce((a, b) => a + b, 0);
  }
  if (node.input.length === 0 || node.output.length !== 1 || POOLS.has(node.op_type)) return -1;
  return flatWidth(g, producer, spatial, node.input[0], depth + 1);  // activations, Add
}

// A Gemm reading a pooling node's output (or its Flatten) takes the layer itself when its
// weights are as wide as the unpooled layer and not as the pooled one: NeatapticTS' own forward
// pass never pools; its exporter marks where a pool would go.
function bypassAnnotationPools(g, spatial) {
  const producer = new Map(g.nodes.flatMap((n) => n.output.map((o) => [o, n])));
  for (const pool of g.nodes.filter((n) => POOLS.has(n.op_type))) {
    const s = spatial.find((l) => l.nchw === pool.input[0]);
    const layer = s ? s.flat : pool.input[0];
    const width = flatWidth(g, producer, spatial, layer);
    if (width < 0 || (s && width === pooledFeatures(pool, s))) continue;
    const pooled = new Set([pool.output[0], ...g.nodes.filter((n) => n.op_type === 'Flatten' && n.input[0] === pool.output[0])
      .map((n) => n.output[0])]);
    const readers = g.nodes.filter((n) => {
      const dims = dimsOf(g.inits.get(n.input[1]));
      return n.op_type === 'Gemm' && pooled.has(n.input[0]) && dims?.length === 2 &&
        dims[intAttr(n, 'transB', 0) ? 1 : 0] === width;
    });
    for (const n of readers) n.input[0] = layer;
    if (readers.length === 0) continue;
    g.warnings.push(`NeatapticTS document: pooling node '${pool.name}' is the exporter's structural annotation: the ` +
      `weights of ${readers.map((n) => `'${n.name}'`).join(', ')} take the ${width} values of '${layer}', not the pooled ` +
      `ones, so they read '${layer}'`);
  }
}

// --- No batch dimension ---------------------------------------------------------------------

function runGemmsAsBatchOfOne(g) {
  const gemms = g.nodes.filter((n) => n.op_type === 'Gemm' && (n.domain ?? '') === '' && n.input.length > 0 &&
    n.output.length === 1);
  for (const n of gemms) {
    n.input[0] = reshape(g, n.input[0], [1, -1]);
    const y = n.output[0];
    n.output[0] = fresh(g, `${y}_2d`);
    reshape(g, n.output[0], [-1], y);
  }
  if (gemms.length > 0) {
    g.warnings.push(`NeatapticTS document: it has no batch dimension (input '${g.inputs[0].name}' is 1-D); its ` +
      `${gemms.length} Gemm nodes run on a batch of one and return 1-D results`);
  }
}

// The document with NeatapticTS' rules applied and their warnings, or null when it is not a
// NeatapticTS document (or not one these rules can read: the loader then reports what is wrong).
export function applyNeatapticRules(doc) {
  if (!isObject(doc)) return null;
  const g = readGraph(doc);
  if (!g || !isNeataptic(doc, g)) return null;
  dropUnreadFusedNodes(g);
  bindDanglingOutputs(g);
  const oneD = g.inputs.length > 0 && g.inputs.every((i) => rankOf(i) === 1);
  for (const n of [...g.nodes]) {
    if (FUSED.has(n.op_type) && (n.domain ?? '') === '' && n.input.length >= 3) convertFusedNode(g, n, oneD);
  }
  const spatial = convSpecs(metadataOf(doc)).map((spec) => layOutConv(g, spec, oneD)).filter(Boolean);
  bypassAnnotationPools(g, spatial);
  if (oneD) runGemmsAsBatchOfOne(g);
  if (g.warnings.length === 0) return { doc, warnings: [] };
  const graph = { ...doc.graph, [g.keys.node]: g.nodes, [g.keys.init]: [...g.inits.values()] };
  for (const [key, list] of [[g.keys.input, g.inputs], [g.keys.output, g.outputs]]) if (key in doc.graph) graph[key] = list;
  return { doc: { ...doc, graph }, warnings: g.warnings };
}

// Cheap test on JSON text before it is parsed for the rules: NeatapticTS' producer name or its
// layer naming.
export function mayBeNeataptic(text) {
  return /neataptic/i.test(text.slice(0, 4096)) || text.includes('"Layer_');
}
