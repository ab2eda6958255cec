// Documents written the way NeatapticTS' exportToONNX writes them (../shared/seeds/000_*: the
// graph output 'output' that no node writes, 1-D inputs without a batch dimension, Concat on
// axis 0, fused LSTM/GRU nodes in its simplified layout beside the unfused path, Conv on a flat
// feature vector, pooling that the next layer's weights do not see), and the network's own
// forward pass computed from the same weights in plain JS (no ONNX semantics involved).
import { seededFloats } from './helpers.mjs';

const ACTIVATIONS = {
  Tanh: Math.tanh,
  Sigmoid: (v) => 1 / (1 + Math.exp(-v)),
  Relu: (v) => Math.max(v, 0),
  Identity: (v) => v,
};
const sigmoid = ACTIVATIONS.Sigmoid;

// A network: { inputSize, layers: [layer] } with layer = { size, act: 'Tanh' or one op per
// neuron (decomposed), recurrent?, conv?: { inC, inH, inW, k, outC }, pool?: true, flatten?,
// fused?: 'LSTM' | 'GRU' }. Weights are drawn from `seed`: W [size, prev], B [size], R a
// diagonal (self-connections only, as the exporter writes it).
export function makeNetwork(spec, seed = 1) {
  let prev = spec.inputSize;
  let s = seed;
  const draw = (n) => Array.from(seededFloats(n, s++), (v) => Math.round(v * 2000) / 1000);
  const layers = spec.layers.map((l) => {
    const layer = { ...l };
    if (l.conv) {
      const c = l.conv;
      layer.outH = c.inH - c.k + 1;
      layer.outW = c.inW - c.k + 1;
      layer.size = c.outC * layer.outH * layer.outW;
      layer.kernel = draw(c.outC * c.inC * c.k * c.k);
      layer.kernelBias = draw(c.outC);
      [layer.W, layer.B] = expandConv(layer);
    } else {
      layer.W = draw(l.size * prev);
      layer.B = draw(l.size);
    }
    if (l.recurrent) layer.Rdiag = draw(layer.size);
    if (l.fused) {
      const gates = l.fused === 'LSTM' ? 4 : 3;
      layer.H = layer.size / (gates + 1);
      layer.fW = draw(gates * layer.H * prev);
      layer.fR = draw(gates * layer.H * layer.H);
      layer.fB = draw(gates * layer.H);
    }
    layer.inputWidth = prev;
    prev = layer.size;
    return layer;
  });
  return { inputSize: spec.inputSize, layers };
}

// The dense weights a shared-kernel layer has in the network (NeatapticTS computes it densely).
function expandConv(layer) {
  const c = layer.conv;
  const inputs = c.inC * c.inH * c.inW;
  const W = new Array(layer.size * inputs).fill(0);
  const B = [];
  for (let o = 0; o < c.outC; o++) for (let y = 0; y < layer.outH; y++) for (let x = 0; x < layer.outW; x++) {
    const row = (o * layer.outH + y) * layer.outW + x;
    B.push(layer.kernelBias[o]);
    for (let i = 0; i < c.inC; i++) for (let u = 0; u < c.k; u++) for (let v = 0; v < c.k; v++) {
      W[row * inputs + (i * c.inH + y + u) * c.inW + x + v] = layer.kernel[((o * c.inC + i) * c.k + u) * c.k + v];
    }
  }
  return [W, B];
}

const recurrentInput = (k) => (k === 1 ? 'hidden_prev' : `hidden_prev_l${k}`);

// The network's forward pass for one sample: x and hidden[k] are plain arrays.
export function forwardOne(net, x, hidden = {}) {
  let prev = x;
  net.layers.forEach((layer, index) => {
    const k = index + 1;
    const acts = Array.isArray(layer.act) ? layer.act : new Array(layer.size).fill(layer.act);
    prev = Array.from({ length: layer.size }, (_, j) => {
      let z = layer.B[j];
      for (let i = 0; i < prev.length; i++) z += layer.W[j * prev.length + i] * prev[i];
      if (layer.recurrent) z += layer.Rdiag[j] * hidden[recurrentInput(k)][j];
      return ACTIVATIONS[acts[j]](z);
    });
  });
  return prev;
}

// One step of the fused node from a zero state, in the exporter's gate order.
export function fusedStepOne(layer, x) {
  const { H, fW, fB } = layer;
  const gate = (g, j) => {
    let z = fB[g * H + j];
    for (let i = 0; i < x.length; i++) z += fW[(g * H + j) * x.length + i] * x[i];
    return z;
  };
  return Array.from({ length: H }, (_, j) => {
    if (layer.fused === 'LSTM') {  // input, forget, cell, output
      const c = sigmoid(gate(0, j)) * Math.tanh(gate(2, j));
      return sigmoid(gate(3, j)) * Math.tanh(c);
    }
    return (1 - sigmoid(gate(0, j))) * Math.tanh(gate(2, j));  // update, reset, candidate
  });
}

const tensor = (name, dims, data) => ({ name, data_type: 1, dims, float_data: Array.from(data) });
const valueInfo = (name, features, batch) => ({
  name,
  type: { tensor_type: { elem_type: 1, shape: { dim: [...(batch ? [{ dim_param: 'N' }] : []), { dim_value: features }] } } },
});
const gemmAttrs = () => [
  { name: 'alpha', type: 'FLOAT', f: 1 }, { name: 'beta', type: 'FLOAT', f: 1 }, { name: 'transB', type: 'INT', i: 1 }];
const ints = (name, values) => ({ name, type: 'INTS', ints: values });

function emitDense(g, layer, k, prevOut, batch) {
  if (!Array.isArray(layer.act)) {
    g.initializer.push(tensor(`W${k - 1}`, [layer.size, layer.inputWidth], layer.W), tensor(`B${k - 1}`, [layer.size], layer.B));
    g.node.push({ op_type: 'Gemm', input: [prevOut, `W${k - 1}`, `B${k - 1}`], output: [`Gemm_${k}`], name: `gemm_l${k}`, attributes: gemmAttrs() });
    g.node.push({ op_type: layer.act, input: [`Gemm_${k}`], output: [`Layer_${k}`], name: `act_l${k}` });
    return;
  }
  const outs = layer.act.map((act, n) => {
    const w = `W${k - 1}_n${n}`, b = `B${k - 1}_n${n}`;
    g.initializer.push(tensor(w, [1, layer.inputWidth], layer.W.slice(n * layer.inputWidth, (n + 1) * layer.inputWidth)),
      tensor(b, [1], [layer.B[n]]));
    g.node.push({ op_type: 'Gemm', input: [prevOut, w, b], output: [`Gemm_${k}_n${n}`], name: `gemm_l${k}_n${n}`, attributes: gemmAttrs() });
    g.node.push({ op_type: act, input: [`Gemm_${k}_n${n}`], output: [`Layer_${k}_n${n}`], name: `act_l${k}_n${n}` });
    return `Layer_${k}_n${n}`;
  });
  g.node.push({ op_type: 'Concat', input: outs, output: [`Layer_${k}`], name: `concat_l${k}`,
    attributes: [{ name: 'axis', type: 'INT', i: batch ? 1 : 0 }] });
}

function emitRecurrent(g, layer, k, prevOut, batch) {
  const R = new Array(layer.size * layer.size).fill(0);
  layer.Rdiag.forEach((v, j) => { R[j * layer.size + j] = v; });
  g.initializer.push(tensor(`W${k - 1}`, [layer.size, layer.inputWidth], layer.W), tensor(`B${k - 1}`, [layer.size], layer.B),
    tensor(`R${k - 1}`, [layer.size, layer.size], R));
  g.inputs.push(valueInfo(recurrentInput(k), layer.size, batch));
  g.node.push(
    { op_type: 'Gemm', input: [prevOut, `W${k - 1}`, `B${k - 1}`], output: [`Gemm_in_${k}`], name: `gemm_in_l${k}`, attributes: gemmAttrs() },
    { op_type: 'Gemm', input: [recurrentInput(k), `R${k - 1}`], output: [`Gemm_rec_${k}`], name: `gemm_rec_l${k}`, attributes: gemmAttrs() },
    { op_type: 'Add', input: [`Gemm_in_${k}`, `Gemm_rec_${k}`], output: [`RecurrentSum_${k}`], name: `add_recurrent_l${k}` },
    { op_type: layer.act, input: [`RecurrentSum_${k}`], output: [`Layer_${k}`], name: `act_l${k}` });
}

function emitConv(g, layer, k, prevOut) {
  const c = layer.conv;
  g.initializer.push(tensor(`ConvW${k - 1}`, [c.outC, c.inC, c.k, c.k], layer.kernel), tensor(`ConvB${k - 1}`, [c.outC], layer.kernelBias));
  g.node.push({ op_type: 'Conv', input: [prevOut, `ConvW${k - 1}`, `ConvB${k - 1}`], output: [`Conv_${k}`], name: `conv_l${k}`,
    attributes: [ints('kernel_shape', [c.k, c.k]), ints('strides', [1, 1]), ints('pads', [0, 0, 0, 0])] });
  g.node.push({ op_type: layer.act, input: [`Conv_${k}`], output: [`Layer_${k}`], name: `act_conv_l${k}` });
}

function emitFused(g, layer, k, prevOut) {
  const op = layer.fused, gates = op === 'LSTM' ? 4 : 3;
  g.initializer.push(tensor(`${op}_W${k - 1}`, [gates * layer.H, layer.inputWidth], layer.fW),
    tensor(`${op}_R${k - 1}`, [gates * layer.H, layer.H], layer.fR), tensor(`${op}_B${k - 1}`, [gates * layer.H], layer.fB));
  g.node.push({ op_type: op, input: [prevOut, `${op}_W${k - 1}`, `${op}_R${k - 1}`, `${op}_B${k - 1}`],
    output: [`Layer_${k}_${op.toLowerCase()}_hidden`], name: `${op.toLowerCase()}_l${k}`,
    attributes: [{ name: 'hidden_size', type: 'INT', i: layer.H }, { name: 'layout', type: 'INT', i: 0 }] });
}

// The document; options.metadata adds what includeMetadata does (producer, opset, specs).
export function exportDocument(net, { batch = true, metadata = false } = {}) {
  const g = { inputs: [], outputs: [], initializer: [], node: [] };
  g.inputs.push(valueInfo('input', net.inputSize, batch));
  const props = { layer_sizes: net.layers.slice(0, -1).map((l) => l.size), conv2d_layers: [], conv2d_specs: [],
    pool2d_layers: [], pool2d_specs: [], recurrent_single_step: [], lstm_emitted_layers: [], gru_emitted_layers: [] };
  let prevOut = 'input';
  net.layers.forEach((layer, index) => {
    const k = index + 1;
    if (layer.conv) {
      emitConv(g, layer, k, prevOut);
      const c = layer.conv;
      props.conv2d_layers.push(k);
      props.conv2d_specs.push({ layerIndex: k, inHeight: c.inH, inWidth: c.inW, inChannels: c.inC, kernelHeight: c.k,
        kernelWidth: c.k, strideHeight: 1, strideWidth: 1, outHeight: layer.outH, outWidth: layer.outW, outChannels: c.outC });
    } else if (layer.recurrent) {
      emitRecurrent(g, layer, k, prevOut, batch);
      props.recurrent_single_step.push(k);
    } else {
      emitDense(g, layer, k, prevOut, batch);
    }
    if (layer.fused) {
      emitFused(g, layer, k, prevOut);
      props[`${layer.fused.toLowerCase()}_emitted_layers`].push(k);
    }
    prevOut = `Layer_${k}`;
    if (layer.pool) {
      g.node.push({ op_type: 'MaxPool', input: [prevOut], output: [`Pool_${k}`], name: `pool_after_l${k}`,
        attributes: [ints('kernel_shape', [2, 2]), ints('strides', [2, 2]), ints('pads', [0, 0, 0, 0])] });
      props.pool2d_layers.push(k);
      props.pool2d_specs.push({ afterLayerIndex: k, type: 'MaxPool', kernelHeight: 2, kernelWidth: 2, strideHeight: 2, strideWidth: 2 });
      prevOut = `Pool_${k}`;
      if (layer.flatten) {
        g.node.push({ op_type: 'Flatten', input: [prevOut], output: [`PoolFlat_${k}`], name: `flatten_after_l${k}`,
          attributes: [{ name: 'axis', type: 'INT', i: 1 }] });
        prevOut = `PoolFlat_${k}`;
      }
    }
  });
  g.outputs.push(valueInfo('output', net.layers.at(-1).size, batch));
  const doc = { graph: g };
  if (!metadata) return doc;
  return {
    ir_version: 9, opset_import: [{ version: 18, domain: '' }], producer_name: 'neataptic-ts', producer_version: '0.3.0',
    doc_string: 'exportToONNX', metadata_props: Object.entries(props).filter(([, v]) => v.length > 0)
      .map(([key, value]) => ({ key, value: JSON.stringify(value) })),
    graph: g,
  };
}
