// RNN, GRU and LSTM on a 3-D value read as the sequence ([seq, batch, input], or with layout 1
// from opset 14 [batch, seq, input]): any direction, hidden sizes 1-6, with or without the
// optional bias, initial states, peepholes and per-batch sequence lengths (only where seq and
// batch are fixed), clip, GRU's linear_before_reset and LSTM's input_forget. The node's first
// output (every step's hidden state) or its last hidden (or cell) state goes on.
import { allFixed, hasZero } from './ops-common.mjs';

const INT32 = 6;
const GATES = { RNN: 1, GRU: 3, LSTM: 4 };

function recurrent(op) {
  return {
    name: op,
    since: 7,
    build: (b, x) => {
      const dims = b.shapes.get(x);
      if (dims.length !== 3 || hasZero(dims) || typeof dims[2] !== 'number') return null;
      const layout = b.opset >= 14 && b.rng.chance(0.3) ? 1 : 0;
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
      if (layout) attrs.layout = 1;
      if (b.rng.chance(0.2)) attrs.clip = b.rng.pick([0.5, 1, 3]);
      if (op === 'GRU' && b.rng.chance(0.5)) attrs.linear_before_reset = 1;
      if (op === 'LSTM' && b.rng.chance(0.2)) attrs.input_forget = 1;
      const y = layout ? [batch, seq, dirs, hidden] : [seq, dirs, batch, hidden];
      const last = layout ? [batch, dirs, hidden] : [dirs, batch, hidden];
      const outputs = b.nodeOutputs(op, inputs, op === 'LSTM' ? [y, last, last] : [y, last], attrs, ['clip']);
      return b.rng.pick(outputs);
    },
  };
}

export const RECURRENT_OPS = [recurrent('RNN'), recurrent('GRU'), recurrent('LSTM')];
