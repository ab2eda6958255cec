// RNN, GRU and LSTM on a 3-D value read as the sequence ([seq, batch, input], or with layout 1
// from opset 14 [batch, seq, input]): any direction, hidden sizes 1-6, with or without the
// optional bias, initial states, peepholes and per-batch sequence lengths (only where seq and
// batch are fixed), clip, GRU's linear_before_reset and LSTM's input_forget. The node's first
// output (every step's hidden state) or its last hidden (or cell) state goes on.
import { allFixed, hasZero } from './ops-common.mjs';

const INT32 = 6;
const GATES = { RNN: 1, GRU: 3, LSTM: 4 };
// The activation functions the spec lists, with whether they take alpha and beta.
const ACTIVATIONS = { Relu: [0, 0], Tanh: [0, 0], Sigmoid: [0, 0], Affine: [1, 1], LeakyRelu: [1, 0], ThresholdedRelu: [1, 0],
  ScaledTanh: [1, 1], HardSigmoid: [1, 1], Elu: [1, 0], Softsign: [0, 0], Softplus: [0, 0] };
// Functions per direction: RNN's f; GRU's f and g; LSTM's f, g and h.
const FUNCTIONS = { RNN: 1, GRU: 2, LSTM: 3 };

// activations (per direction), and activation_alpha and activation_beta, consumed in order by
// the functions that take them. Every function that takes one gets it: where the lists leave
// one out, the spec takes the default of the ONNX operator of the same name (LeakyRelu's alpha
// 0.01, ThresholdedRelu's 1), onnxruntime 1.30 takes 0 (fuzz-diff seeds 23010776, 23013941).
function activations(b, op, dirs) {
  // GRU's and LSTM's f makes their gates: a function above 1 (Relu, Affine, LeakyRelu, ... up
  // to the clip) grows the cell by up to that factor a step, and the runtimes part on its last
  // bits (inf - inf, or a discontinuous ThresholdedRelu gate flipped: fuzz-diff seeds 25017152,
  // 25069091): gates from the continuous functions within [-1, 1].
  const gates = ['Sigmoid', 'HardSigmoid', 'Tanh', 'Softsign'];
  const names = Array.from({ length: FUNCTIONS[op] * dirs },
    (_, i) => b.rng.pick(op !== 'RNN' && i % FUNCTIONS[op] === 0 ? gates : Object.keys(ACTIVATIONS)));
  const attrs = { activations: names };
  // Values no clipped product reaches exactly: the RNN operators' own definition of
  // ThresholdedRelu is x >= alpha (webnx follows it), the ThresholdedRelu operator's and
  // onnxruntime 1.30's x > alpha; a clip (0.5, 1, 3) pins values, and their products, to where
  // the two part (fuzz-diff seeds 23803654, 24443188: c = 0.2 * 0.5 = alpha = 0.1).
  const alphas = names.filter((n) => ACTIVATIONS[n][0]).map(() => b.rng.pick([0.1234, 0.4321, 1.357]));
  const betas = names.filter((n) => ACTIVATIONS[n][1]).map(() => b.rng.pick([0, 0.25, 1]));
  if (alphas.length) attrs.activation_alpha = alphas;
  if (betas.length) attrs.activation_beta = betas;
  return attrs;
}

function recurrent(op) {
  return {
    name: op,
    since: 7,
    build: (b, x) => {
      const dims = b.shapes.get(x);
      if (dims.length !== 3 || hasZero(dims) || typeof dims[2] !== 'number') return null;
      // layout = 1 (batch first, opset 14) onnxruntime 1.30 does not run ("Batchwise recurrent
      // operations (layout == 1) are not supported"): only layout = 0 is written.
      const layout = 0;
      const [seq, batch] = layout ? [dims[1], dims[0]] : [dims[0], dims[1]];
      const input = dims[2];
      const hidden = b.rng.int(1, 6);
      const direction = b.rng.pick(['forward', 'reverse', 'bidirectional']);
      const dirs = direction === 'bidirectional' ? 2 : 1;
      const gates = GATES[op] * hidden;
      const weights = (shape) => b.floatConstant(shape, -0.7, 0.7);
      const state = () => (b.rng.chance(0.4) && typeof batch === 'number'
        ? weights(layout ? [batch, dirs, hidden] : [dirs, batch, hidden]) : '');
      const inputs = [x, weights([dirs, gates, input]), weights([dirs, gates, hidden])];
      inputs.push(b.rng.chance(0.6) ? weights([dirs, 2 * gates]) : '');
      const lengths = allFixed([seq, batch]) && b.rng.chance(0.3)
        ? b.typedConstant([batch], INT32, Array.from({ length: batch }, () => b.rng.int(1, seq))) : '';
      inputs.push(lengths, state());
      if (op === 'LSTM') inputs.push(state(), b.rng.chance(0.3) ? weights([dirs, 3 * hidden]) : '');
      while (inputs.at(-1) === '') inputs.pop();
      const attrs = { hidden_size: hidden, direction };
      if (layout || (b.opset >= 14 && b.rng.chance(0.1))) attrs.layout = layout;
      if (b.rng.chance(0.2)) attrs.clip = b.rng.pick([0.5, 1, 3]);
      if (op === 'GRU' && b.rng.chance(0.6)) attrs.linear_before_reset = b.rng.chance(0.8) ? 1 : 0;
      if (op === 'LSTM' && b.rng.chance(0.3)) attrs.input_forget = b.rng.chance(0.7) ? 1 : 0;
      if (b.rng.chance(0.3)) {
        Object.assign(attrs, activations(b, op, dirs));
        // An unbounded function (Relu, Affine, Elu, ...) as a gate or over a growing state
        // overflows within a few steps (the runtimes then part on inf - inf): clip bounds the
        // functions' inputs.
        const bounded = ['Tanh', 'Sigmoid', 'HardSigmoid', 'ScaledTanh', 'Softsign'];
        if (!attrs.clip && attrs.activations.some((n) => !bounded.includes(n))) attrs.clip = b.rng.pick([0.5, 1, 3]);
      }
      const y = layout ? [batch, seq, dirs, hidden] : [seq, dirs, batch, hidden];
      const last = layout ? [batch, dirs, hidden] : [dirs, batch, hidden];
      const outputs = b.nodeOutputs(op, inputs, op === 'LSTM' ? [y, last, last] : [y, last], attrs, ['clip']);
      const node = b.nodes.at(-1);
      // Lists of strings and floats: nodeOutputs writes INTS for lists.
      for (const a of node.attribute) {
        if (a.name === 'activations') Object.assign(a, { type: 'STRINGS', strings: attrs.activations.map((n) => Buffer.from(n).toString('base64')) });
        if (a.name.startsWith('activation_')) Object.assign(a, { type: 'FLOATS', floats: attrs[a.name] });
        if (a.type !== 'INTS') delete a.ints;
      }
      return b.rng.pick(outputs);
    },
  };
}

export const RECURRENT_OPS = [recurrent('RNN'), recurrent('GRU'), recurrent('LSTM')];
