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
    return controlNode(b, 'If', [cond], [dims], [graphAttr('then_branch', branch('then')), graphAttr('else_branch', branch('else'))],
      {})[0];
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
      [graphAttr('body', body)], {});
    return b.rng.pick(outs);
  },
};

const scan = {
  name: 'Scan', since: 9,
  build(b, x) {
    const dims = b.shapes.get(x);
    const step = dims.slice(1);
    if (dims.length < 2 || !allFixed(step) || hasZero(dims)) return null;
    const [state, slice] = [b.name('h'), b.name('t')];
    const nodes = [];
    const mixed = chain(b, nodes, slice);
    const next = b.name('h');
    nodes.push({ opType: 'Add', input: [state, mixed], output: [next], name: b.name('n') });
    const stepOut = b.name('y');
    nodes.push({ opType: 'Identity', input: [next], output: [stepOut], name: b.name('n') });
    const body = { name: b.name('body'), node: nodes, input: [info(state, FLOAT, step), info(slice, FLOAT, step)],
      output: [info(next, FLOAT, step), info(stepOut, FLOAT, step)] };
    const initial = b.floatConstant(step, -0.5, 0.5);
    const outs = controlNode(b, 'Scan', [initial, x], [step, dims],
      [graphAttr('body', body), { name: 'num_scan_inputs', type: 'INT', i: '1' }], { num_scan_inputs: 1 });
    return b.rng.pick(outs);
  },
};

export const CONTROL_OPS = [ifOp, loop, scan];
