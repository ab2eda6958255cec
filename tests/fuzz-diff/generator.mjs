// Random valid ONNX graphs for differential testing against onnxruntime (tests/fuzz-diff/):
// chains and DAGs of 1-30 nodes over float32 values whose first dim may be the symbolic batch
// 'N' (so one session sees several input shapes), with attributes drawn from what the ONNX spec
// allows at the drawn opset, weights as initializers or Constant nodes. A case is
// { doc (ONNX-JSON), shapes (value -> dims, 'N' symbolic), ops (what it exercised) }.
import { OPS } from './ops.mjs';

export const MIN_OPSET = 7;
export const MAX_OPSET = 24;

// A small deterministic generator (xorshift32): the same seed gives the same graph.
export class Rng {
  constructor(seed) { this.state = (seed >>> 0) || 0x9e3779b9; }
  next() {
    let x = this.state;
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    this.state = x;
    return x;
  }
  int(lo, hi) {  // inclusive
    if (hi < lo) throw new Error(`Rng.int(${lo}, ${hi})`);
    return lo + (this.next() % (hi - lo + 1));
  }
  pick(list) { return list[this.next() % list.length]; }
  chance(p) { return this.next() / 4294967296 < p; }
  float(lo, hi) { return lo + (hi - lo) * (this.next() / 4294967296); }
  floats(n, lo = -1, hi = 1) { return Array.from({ length: n }, () => Math.round(this.float(lo, hi) * 4096) / 4096); }
}

export const numel = (dims) => dims.reduce((a, d) => a * d, 1);

// The builder ops use: fresh names, constants (initializers, or Constant nodes), nodes.
export class GraphBuilder {
  constructor(rng, opset) {
    this.rng = rng;
    this.opset = opset;
    this.nodes = [];
    this.initializers = [];
    this.domains = new Set();  // other than the default one
    this.types = new Map();    // value -> ONNX data type, for the values that are not float32
    this.shapes = new Map();  // value -> dims
    this.ops = [];            // { op, attrs } exercised
    // The com.webnx ops webnx's fusion passes make, by the patterns drawn that they fuse
    // ({ op, attrs: { pattern } }): counted apart from ops, which set the graph's size.
    this.patterns = [];
    this.count = 0;
  }

  name(prefix) { return `${prefix}${this.count++}`; }

  // A float32 (or int64) constant; now and then a Constant node instead of an initializer.
  constant(dims, values, type = 'float') {
    const tensor = type === 'float'
      ? { dims, dataType: 1, floatData: values }
      : { dims, dataType: 7, int64Data: values.map(String) };
    return this.addConstant(this.name(type === 'float' ? 'w' : 'k'), tensor);
  }

  // An integer constant of ONNX data type `dataType` that int32_data holds (uint8, int8, int32).
  typedConstant(dims, dataType, values) {
    return this.addConstant(this.name('q'), { dims, dataType, int32Data: values });
  }

  addConstant(name, tensor) {
    if (this.rng.chance(0.2)) {
      // From opset 12 a float32 or int64 scalar or list may be written as value_float(s) or
      // value_int(s) instead of a tensor.
      const int = tensor.dataType === 7, float = tensor.dataType === 1;
      const scalar = tensor.dims.length === 0, list = tensor.dims.length === 1;
      let attribute = { name: 'value', type: 'TENSOR', t: tensor };
      if (this.opset >= 12 && (int || float) && (scalar || list) && this.rng.chance(0.4)) {
        const values = int ? tensor.int64Data : tensor.floatData;
        if (scalar) {
          attribute = int ? { name: 'value_int', type: 'INT', i: values[0] } : { name: 'value_float', type: 'FLOAT', f: values[0] };
        } else {
          attribute = int ? { name: 'value_ints', type: 'INTS', ints: values } : { name: 'value_floats', type: 'FLOATS', floats: values };
        }
      }
      this.nodes.push({ opType: 'Constant', input: [], output: [name], name: this.name('const'), attribute: [attribute] });
      // Constant nodes count in the coverage (their attribute's kind and the value's dims).
      this.ops.push({ op: 'Constant', attrs: { [attribute.name]: `${tensor.dataType}[${tensor.dims}]` } });
    } else {
      this.initializers.push({ name, ...tensor });
    }
    return name;
  }

  floatConstant(dims, lo = -1, hi = 1) { return this.constant(dims, this.rng.floats(numel(dims), lo, hi)); }
  intConstant(values) { return this.constant([values.length], values, 'int'); }

  // Adds a node; attrs is { name: value } with value a number (int unless float: true is in
  // `floats`), a list of ints, or a string.
  node(opType, inputs, outputDims, attrs = {}, floats = []) {
    return this.nodeOutputs(opType, inputs, [outputDims], attrs, floats)[0];
  }

  // A node of com.microsoft (opset 1 of that domain), onnxruntime's contrib ops.
  msNode(opType, inputs, outputDims, attrs = {}, floats = []) {
    const out = this.node(opType, inputs, outputDims, attrs, floats);
    this.nodes.at(-1).domain = 'com.microsoft';
    this.domains.add('com.microsoft');
    return out;
  }

  // A node with several outputs (dims per output); their names.
  nodeOutputs(opType, inputs, outputsDims, attrs = {}, floats = []) {
    const outputs = outputsDims.map(() => this.name('v'));
    const attribute = Object.entries(attrs).map(([name, value]) => {
      if (typeof value === 'string') return { name, type: 'STRING', s: Buffer.from(value).toString('base64') };
      if (Array.isArray(value)) return { name, type: 'INTS', ints: value.map(String) };
      return floats.includes(name) ? { name, type: 'FLOAT', f: value } : { name, type: 'INT', i: String(value) };
    });
    this.nodes.push({ opType, input: inputs, output: outputs, name: this.name('n'), attribute });
    outputs.forEach((o, i) => this.shapes.set(o, outputsDims[i]));
    this.ops.push({ op: opType, attrs });
    return outputs;
  }
}

const valueInfo = (name, dims) => ({
  name,
  type: { tensorType: { elemType: 1, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: String(d) })) } } },
});

function graphInputs(rng) {
  const rank = rng.pick([2, 2, 3, 4, 4, 4]);
  const dims = ['N'];
  if (rank === 2) dims.push(rng.int(1, 17));
  if (rank === 3) dims.push(rng.int(1, 6), rng.int(1, 9));
  if (rank === 4) dims.push(rng.int(1, 6), rng.int(1, 9), rng.int(1, 9));
  const count = rng.chance(0.3) ? 2 : 1;
  return Array.from({ length: count }, (_, i) => ({ name: `x${i}`, dims }));
}

// Each op drawn in proportion to its weight (1 unless it says otherwise): ops whose builders
// often decline (a 4-D input with the right channel count, opset 23 and on) weigh more, so that
// every op comes in >= 1000 of 200,000 graphs.
const WEIGHTED = OPS.flatMap((o) => new Array(o.weight ?? 1).fill(o));

// One case from `seed`: { doc, shapes, ops, inputs: [{ name, dims }] }.
export function generateCase(seed) {
  const rng = new Rng(seed);
  // A quarter of the graphs at opset 21 and on, where the newest ops are (the rest uniform).
  // (rng.int, not rng.chance: a small seed's first value is small, and chance() of it true.)
  const opset = rng.int(0, 3) === 0 ? rng.int(21, MAX_OPSET) : rng.int(MIN_OPSET, MAX_OPSET);
  const b = new GraphBuilder(rng, opset);
  const inputs = graphInputs(rng);
  for (const i of inputs) b.shapes.set(i.name, i.dims);
  const values = inputs.map((i) => i.name);
  const target = rng.chance(0.3) ? rng.int(1, 4) : rng.int(1, 30);
  for (let attempts = 0; b.ops.length < target && attempts < target * 20; attempts++) {
    const op = rng.pick(WEIGHTED);
    if (op.since > opset || (op.until && opset > op.until)) continue;
    // Recent values are likelier inputs: chains, with branches now and then.
    const x = values[Math.max(0, values.length - 1 - (rng.chance(0.7) ? 0 : rng.int(0, values.length - 1)))];
    if (b.shapes.get(x).length === 0) continue;  // scalars end a chain
    const out = op.build(b, x, values);
    if (out) values.push(out);
  }
  const produced = values.slice(inputs.length);
  if (produced.length === 0) return null;
  const outputs = new Set([produced.at(-1)]);
  for (let i = rng.int(0, 2); i > 0; i--) outputs.add(rng.pick(produced));
  const doc = {
    irVersion: '8',
    opsetImport: [{ domain: '', version: String(opset) }, ...[...b.domains].map((domain) => ({ domain, version: '1' }))],
    graph: {
      name: `fuzz_${seed}`,
      node: b.nodes,
      initializer: b.initializers,
      input: inputs.map((i) => valueInfo(i.name, i.dims)),
      output: [...outputs].map((o) => valueInfo(o, b.shapes.get(o))),
    },
  };
  return { seed, opset, doc, shapes: b.shapes, types: b.types, ops: b.ops, patterns: b.patterns, inputs };
}
