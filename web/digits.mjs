// The digits page: pointer strokes → 8x8 ink counts → the trained model, on every stroke.
import { InferenceSession, Tensor } from '../js/index.mjs';
import { drawStrokes, strokesToDigit } from './digits-image.mjs';

const $ = (id) => document.getElementById(id);
const pad = $('pad');
const padCtx = pad.getContext('2d');
const seenCtx = $('seen').getContext('2d');
const strokes = [];
let current = null;
let strokeCount = 0;
const times = [];

const t0 = performance.now();
const session = await InferenceSession.create('../examples/digits/digits_mobilenet.onnx');
const [inputName] = session.inputNames;
const [outputName] = session.outputNames;
$('status').textContent = `model loaded in ${(performance.now() - t0).toFixed(0)} ms — draw a digit in the box`;
document.body.dataset.state = 'ready';

function redraw() {
  padCtx.fillStyle = '#fff';
  padCtx.fillRect(0, 0, pad.width, pad.height);
  drawStrokes(padCtx, strokes);
}

function showSeen(digit) {
  const img = seenCtx.createImageData(8, 8);
  for (let i = 0; i < 64; i++) {
    const v = 255 - Math.round((digit[i] / 16) * 255);
    img.data.set([v, v, v, 255], i * 4);
  }
  seenCtx.putImageData(img, 0, 0);
  $('seen').dataset.values = digit.join(','); // the exact model input, for tests
}

function softmax(logits) {
  const max = Math.max(...logits);
  const e = Array.from(logits, (v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

function showTop3(probs) {
  const ranked = probs.map((p, d) => ({ d, p })).sort((a, b) => b.p - a.p).slice(0, 3);
  $('top3').replaceChildren(...ranked.flatMap(({ d, p }) => {
    const label = Object.assign(document.createElement('span'), { className: 'digit', textContent: d });
    const track = document.createElement('div');
    track.append(Object.assign(document.createElement('div'), { className: 'bar' }));
    track.firstChild.style.width = `${(100 * p).toFixed(1)}%`;
    const pct = Object.assign(document.createElement('span'), { textContent: `${(100 * p).toFixed(1)}%` });
    return [label, track, pct];
  }));
  return ranked[0].d;
}

let scheduled = false;
function scheduleClassify() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(classify);
}

async function classify() {
  scheduled = false;
  const strokesSeen = strokeCount;
  const digit = strokesToDigit(strokes, pad.width, $('fit').checked);
  showSeen(digit);
  if (!strokes.length) {
    $('prediction').textContent = '–';
    $('top3').replaceChildren();
    return;
  }
  const x = new Tensor('float32', digit.map((v) => v / 16), [1, 1, 8, 8]); // the model's input scale
  const start = performance.now();
  const out = await session.run({ [inputName]: x });
  const ms = performance.now() - start;
  times.push(ms);
  if (times.length > 50) times.shift();
  const median = [...times].sort((a, b) => a - b)[times.length >> 1];
  const best = showTop3(softmax(out[outputName].data));
  $('prediction').textContent = best;
  $('prediction').dataset.digit = best;
  $('prediction').dataset.strokes = strokesSeen; // lets tests wait for the result of their last stroke
  $('latency').textContent = `inference ${ms.toFixed(2)} ms (median of the last ${times.length}: ${median.toFixed(2)} ms)`;
}

function point(event) {
  const r = pad.getBoundingClientRect();
  return { x: ((event.clientX - r.left) * pad.width) / r.width, y: ((event.clientY - r.top) * pad.height) / r.height };
}

pad.addEventListener('pointerdown', (e) => {
  pad.setPointerCapture(e.pointerId);
  current = { width: Number($('brush').value), points: [point(e)] };
  strokes.push(current);
  redraw();
});
pad.addEventListener('pointermove', (e) => {
  if (!current) return;
  current.points.push(point(e));
  redraw();
  scheduleClassify();
});
const endStroke = () => {
  if (!current) return;
  current = null;
  strokeCount++;
  scheduleClassify();
};
pad.addEventListener('pointerup', endStroke);
pad.addEventListener('pointercancel', endStroke);
$('clear').addEventListener('click', () => {
  strokes.length = 0;
  strokeCount = 0;
  redraw();
  scheduleClassify();
});
$('brush').addEventListener('input', () => { $('brush-px').textContent = $('brush').value; });
$('fit').addEventListener('change', scheduleClassify);
redraw();
