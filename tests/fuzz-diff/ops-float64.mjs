// float64 islands for the differential fuzzer: Cast to double, one op onnxruntime computes in
// double (elementwise, comparison, reduction, running sum), Cast back to float32, so the chain
// goes on in float32 and the double paths (kernels/float64_loops.cc, the reductions' and
// CumSum's double loops) meet onnxruntime on every shape the generator draws.
import { fixed, hasZero, isInput } from './ops-common.mjs';

const DOUBLE = 11;
const FLOAT = 1;

// As in ops-math.mjs: ops whose results jump (Floor, Ceil, Round, Less) read only graph inputs
// (exact in both runtimes: a computed value's last bit could flip the result); Log, Sqrt and
// Reciprocal read |x| + 0.25; Exp, Sin and Cos read tanh(x). Those guards run in float32,
// before the Cast.
const UNARY = [['Exp', 7, 'bounded'], ['Abs', 7], ['Neg', 7], ['Sqrt', 7, 'positive'], ['Log', 7, 'positive'],
  ['Reciprocal', 7, 'positive'], ['Sin', 7, 'bounded'], ['Cos', 7, 'bounded'], ['Floor', 7, 'input'],
  ['Ceil', 7, 'input'], ['Round', 11, 'input']];
const BINARY = [['Add', 7], ['Sub', 7], ['Mul', 7], ['Div', 7], ['Max', 8], ['Min', 8], ['Less', 9, 'input']];

const toDouble = (b, x) => b.node('Cast', [x], b.shapes.get(x), { to: DOUBLE });

// x as an op of that kind reads it, in float32: itself, |x| + 0.25 or tanh(x).
function guarded(b, x, kind) {
  const dims = b.shapes.get(x);
  if (kind === 'positive') return b.node('Add', [b.node('Abs', [x], dims), b.constant([], [0.25])], dims);
  return kind === 'bounded' ? b.node('Tanh', [x], dims) : x;
}

function unaryIsland(b, x, allowed) {
  const [op, , kind] = b.rng.pick(UNARY.filter(allowed));
  const xd = toDouble(b, guarded(b, x, kind));
  return b.node(op, [xd], b.shapes.get(xd));
}

function binaryIsland(b, x, allowed) {
  const [op] = b.rng.pick(BINARY.filter(allowed));
  const dims = b.shapes.get(x);
  // The other operand: a float32 constant of a shape that broadcasts, cast to double too.
  const shape = dims.map((d) => (!fixed(d) || b.rng.chance(0.4) ? 1 : d)).slice(b.rng.int(0, dims.length));
  const constant = op === 'Div' ? b.constant(shape, b.rng.floats(shape.reduce((a, d) => a * d, 1), 0.5, 2))
    : b.floatConstant(shape);
  const y = b.node(op, [toDouble(b, x), toDouble(b, constant)], dims);
  return op === 'Less' ? b.node('Cast', [y], dims, { to: DOUBLE }) : y;
}

function reduceIsland(b, x) {
  const dims = b.shapes.get(x);
  const axis = b.rng.int(0, dims.length - 1);
  const out = dims.map((d, i) => (i === axis ? 1 : d));
  const axes = b.intConstant([axis - (b.rng.chance(0.5) ? dims.length : 0)]);
  return b.node('ReduceSum', [toDouble(b, x), axes], out);
}

function cumSumIsland(b, x) {
  const dims = b.shapes.get(x);
  const attrs = {};
  if (b.rng.chance(0.3)) attrs.exclusive = 1;
  if (b.rng.chance(0.3)) attrs.reverse = 1;
  return b.node('CumSum', [toDouble(b, x), b.constant([], [b.rng.int(0, dims.length - 1)], 'int')], dims, attrs);
}

export const FLOAT64_OPS = [{
  name: 'Cast', since: 7,
  build(b, x) {
    if (b.shapes.get(x).length === 0) return null;
    const fromInput = isInput(b, x);
    const allowed = ([, since, kind]) => since <= b.opset && (kind !== 'input' || fromInput);
    const islands = [unaryIsland, binaryIsland];
    // onnxruntime 1.30 reduces an axis a Slice emptied to the wrong shape (ops-common.mjs).
    if (b.opset >= 13 && !hasZero(b.shapes.get(x))) islands.push(reduceIsland);
    if (b.opset >= 11) islands.push(cumSumIsland);
    const y = b.rng.pick(islands)(b, x, allowed);
    // No saturate (opset 19): it applies to float 8 targets only, and onnxruntime 1.30 rejects it
    // on others ("Attribute saturate is only used for cast to float 8 types").
    return b.node('Cast', [y], b.shapes.get(y), { to: FLOAT });
  },
}];
