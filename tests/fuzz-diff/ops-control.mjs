// Control flow: If (its condition the sign of the first graph input's sum against a threshold;
// each branch a short chain of elementwise ops on a value of the outer graph), Loop (a state
// updated 1-4 times from itself and an outer value, its per-iteration values stacked now and
// then) and Scan (a running state over the first axis of a value, every step's state stacked).
import { allFixed, hasZero, typed } from './ops-common.mjs';

const FLOAT = 1;
const INT64 = 7;
const BOOL = 9;

const UNARY = ['Tanh', 'Abs', 'Neg', 'Sigmoid', 'Relu', 'Softsign'];

const info = (name, elemType, dims) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: String(d) })) } } },
});
const graphAttr = (name, g) => ({ name, type: 'GRAPH', g });

// A node with graph attributes (nodeOutputs takes plain ones only).
function controlNode(b, opType, inputs, outputsDims, attribute, attrs) {
  const outputs = outputsDims.map(() => b.name('v'));
  b.nodes.push({ opType, input: inputs, output: outputs, name: b.name('n'), attribute });
  outputs.forEach((o, i) => b.shapes.set(o, outputsDims[i]));
  b.ops.push({ op: opType, attrs });
  return outputs;
}

// A chain of 1-2 unary ops from `from`, as nodes of a subgraph; the chain's last value.
function chain(b, nodes, from) {
  let value = from;
  for (let i = b.rng.int(1, 2); i > 0; i--) {
    const out = b.name('s');
    nodes.push({ opType: b.rng.pick(UNARY), input: [value], output: [out], name: b.name('n') });
    value = out;
  }
  return value;
}

const ifOp = {
  name: 'If', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (hasZero(dims) || hasZero(b.shapes.get('x0'))) return null;
    const sum = b.node('ReduceSum', ['x0'], [], { keepdims: 0 });
    const cond = typed(b, b.node('Greater', [sum, b.constant([], [b.rng.pick([-2, -0.5, 0.5, 2])])], []), BOOL);
    const branch = (label) => {
      const nodes = [];
      const out = chain(b, nodes, x);
      return { name: `${label}_${b.name('g')}`, node: nodes, output: [info(out, FLOAT, dims)] };
    };
    const [then, otherwise] = [branch('then'), branch('else')];
    // The coverage records a graph attribute by its node count.
    return controlNode(b, 'If', [cond], [dims], [graphAttr('then_branch', then), graphAttr('else_branch', otherwise)],
      { then_branch: `${then.node.length} nodes`, else_branch: `${otherwise.node.length} nodes` })[0];
  },
};

const loop = {
  name: 'Loop', since: 11,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (hasZero(dims)) return null;
    const trips = b.rng.int(1, 4), stacked = b.rng.chance(0.4);
    const [iteration, condIn, state] = [b.name('i'), b.name('c'), b.name('h')];
    const nodes = [];
    const updated = chain(b, nodes, state);
    const next = b.name('h');
    nodes.push({ opType: 'Add', input: [updated, x], output: [next], name: b.name('n') });  // x: outer scope
    const condOut = b.name('c');
    nodes.push({ opType: 'Identity', input: [condIn], output: [condOut], name: b.name('n') });
    const outputs = [info(condOut, BOOL, []), info(next, FLOAT, dims)];
    if (stacked) {  // a scan output: every iteration's state
      const copy = b.name('y');
      nodes.push({ opType: 'Identity', input: [next], output: [copy], name: b.name('n') });
      outputs.push(info(copy, FLOAT, dims));
    }
    const body = { name: b.name('body'), node: nodes,
      input: [info(iteration, INT64, []), info(condIn, BOOL, []), info(state, FLOAT, dims)], output: outputs };
    const tripCount = b.constant([], [trips], 'int');
    const cond = b.rng.chance(0.5) ? typed(b, b.node('Greater', [tripCount, b.constant([], [0], 'int')], []), BOOL) : '';
    const outs = controlNode(b, 'Loop', [tripCount, cond, x], stacked ? [dims, [trips, ...dims]] : [dims],
      [graphAttr('body', body)], { body: `${nodes.length} nodes` });
    return b.rng.pick(outs);
  },
};

const scan = {
  name: 'Scan', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || hasZero(dims)) return null;
    // Scanned along the batch axis, or (scan_input_axes) along a fixed one; then the initial
    // state, shaped like a step with the batch in it, is the mean over that axis.
    const axes = dims.map((d, i) => i).filter((i) => i > 0 && typeof dims[i] === 'number');
    const axis = axes.length && b.rng.chance(0.4) ? b.rng.pick(axes) : 0;
    const step = dims.filter((d, i) => i !== axis);
    if (axis === 0 && !allFixed(step)) return null;
    const { body, nodes } = scanBody(b, step);
    const mean = () => (b.opset >= 18 ? b.node('ReduceMean', [x, b.intConstant([axis])], step, { keepdims: 0 })
      : b.node('ReduceMean', [x], step, { axes: [axis], keepdims: 0 }));
    const initial = axis === 0 ? b.floatConstant(step, -0.5, 0.5) : mean();
    const attrs = { num_scan_inputs: 1 };
    // The batch stays the first axis of the stacked output: at 0 when scanning it, after it otherwise.
    const outAxis = axis === 0 ? 0 : b.rng.int(1, step.length);
    const signed = (a, rank) => (b.opset >= 11 && b.rng.chance(0.3) ? a - rank : a);
    if (axis !== 0 || b.rng.chance(0.2)) attrs.scan_input_axes = [signed(axis, dims.length)];
    if (outAxis !== 0 || b.rng.chance(0.2)) attrs.scan_output_axes = [signed(outAxis, dims.length)];
    if (b.rng.chance(0.4)) attrs.scan_input_directions = [b.rng.int(0, 1)];
    if (b.rng.chance(0.4)) attrs.scan_output_directions = [b.rng.int(0, 1)];
    const stacked = [...step];
    stacked.splice(outAxis, 0, dims[axis]);
    const ints = Object.entries(attrs).filter(([k]) => k !== 'num_scan_inputs')
      .map(([name, v]) => ({ name, type: 'INTS', ints: v.map(String) }));
    const outs = controlNode(b, 'Scan', [initial, x], [step, stacked],
      [graphAttr('body', body), { name: 'num_scan_inputs', type: 'INT', i: '1' }, ...ints],
      { ...attrs, body: `${nodes.length} nodes` });
    return b.rng.pick(outs);
  },
};

// A Scan body over one state and one scanned slice, both shaped `step`: h' = h + chain(slice),
// scanned out as well.
function scanBody(b, step) {
  const [state, slice] = [b.name('h'), b.name('t')];
  const nodes = [];
  const mixed = chain(b, nodes, slice);
  const next = b.name('h');
  nodes.push({ opType: 'Add', input: [state, mixed], output: [next], name: b.name('n') });
  const stepOut = b.name('y');
  nodes.push({ opType: 'Identity', input: [next], output: [stepOut], name: b.name('n') });
  const body = { name: b.name('body'), node: nodes, input: [info(state, FLOAT, step), info(slice, FLOAT, step)],
    output: [info(next, FLOAT, step), info(stepOut, FLOAT, step)] };
  return { body, nodes };
}

// Scan-8 (opset 8 only): batched, the batch axis first in every state and scanned input, the
// sequence the second; no sequence lengths (''), the scan direction per scanned input.
const scan8 = {
  name: 'Scan', since: 8, until: 8, weight: 4,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length < 2 || typeof dims[1] !== 'number' || hasZero(dims)) return null;
    const step = dims.slice(2);
    const { body, nodes } = scanBody(b, step);
    const stateDims = [dims[0], ...step];
    const initial = b.node('ReduceMean', [x], stateDims, { axes: [1], keepdims: 0 });
    const attrs = { num_scan_inputs: 1 };
    const attribute = [graphAttr('body', body), { name: 'num_scan_inputs', type: 'INT', i: '1' }];
    if (b.rng.chance(0.6)) {
      attrs.directions = [b.rng.int(0, 1)];
      attribute.push({ name: 'directions', type: 'INTS', ints: attrs.directions.map(String) });
    }
    const outs = controlNode(b, 'Scan', ['', initial, x], [stateDims, dims], attribute, { ...attrs, body: `${nodes.length} nodes` });
    return b.rng.pick(outs);
  },
};

export const CONTROL_OPS = [ifOp, loop, scan, scan8];
