// DOM rendering for the model lab: tables, bar charts, top-5.
export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return node;
}

export const fmtDims = (dims) => (dims ? `[${dims.map((d) => (d === null ? '?' : d)).join(', ')}]` : 'unknown');
// Small and large magnitudes stay readable (logits of untrained models can be ~1e-5).
export const fmtNum = (x) => (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e5) ? x.toFixed(4) : x.toExponential(3));
export const fmtBytes = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`);

export function table(headers, rows) {
  return el('table', {},
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', { textContent: h })))),
    el('tbody', {}, rows.map((r) => el('tr', {}, r.map((c) => (c instanceof Node ? el('td', {}, c) : el('td', { textContent: c })))))));
}

// rows: [{ label, value, text, bad, title }] → label | bar scaled to the largest value | text
export function bars(rows) {
  const max = Math.max(...rows.map((r) => r.value), 1e-9);
  return el('div', { className: 'bars' }, rows.flatMap((r) => {
    const bar = el('div', { className: r.bad ? 'bar bad' : 'bar', title: r.title ?? '' });
    bar.style.width = `${Math.max(0.5, (100 * r.value) / max)}%`;
    return [el('span', { className: r.bad ? 'mono bad' : 'mono', textContent: r.label }), el('div', {}, bar),
      el('span', { className: 'mono', textContent: r.text })];
  }));
}

export function valueTable(values) {
  return table(['name', 'type', 'dims'], values.map((v) => [v.name, v.type, fmtDims(v.dims)]));
}

function softmax(data) {
  let max = -Infinity;
  for (const v of data) max = Math.max(max, v);
  let sum = 0;
  const e = Float64Array.from(data, (v) => { const x = Math.exp(v - max); sum += x; return x; });
  return e.map((v) => v / sum);
}

// A float output with one row of ≥ 2 scores reads as a classifier: show its top 5.
export function topK(tensor, k = 5) {
  const classes = tensor.dims.at(-1);
  if (tensor.type !== 'float32' || classes < 2 || tensor.size !== classes) return null;
  const data = tensor.data;
  const sums = data.reduce((a, b) => a + b, 0);
  const isProb = Math.abs(sums - 1) < 1e-3 && data.every((v) => v >= 0);
  const probs = isProb ? data : softmax(data);
  return [...probs.keys()].sort((a, b) => probs[b] - probs[a]).slice(0, k)
    .map((i) => ({ index: i, score: data[i], prob: probs[i] }));
}

export function outputBlock(name, tensor) {
  const data = tensor.data;
  let min = Infinity, max = -Infinity, sum = 0;
  for (const v of data) { const x = Number(v); min = Math.min(min, x); max = Math.max(max, x); sum += x; }
  const first = Array.from(data.slice(0, 6), (v) => (typeof v === 'bigint' ? String(v) : fmtNum(v))).join(', ');
  const block = el('div', { className: 'output' },
    el('h3', { textContent: `${name}  ${tensor.type} ${fmtDims(tensor.dims)}` }),
    el('div', { className: 'mono muted', textContent: `min ${fmtNum(min)}  max ${fmtNum(max)}  mean ${fmtNum(sum / data.length)}  first: ${first}${data.length > 6 ? ', …' : ''}` }));
  const top = topK(tensor);
  if (top) {
    block.append(el('div', { className: 'muted', textContent: 'top 5 (softmax over the scores)' }),
      bars(top.map((t) => ({ label: `class ${t.index}`, value: t.prob, text: `${(100 * t.prob).toFixed(2)}%` }))));
    block.querySelector('.bars').classList.add('top5');
  }
  return block;
}

// Per-op-type totals of one profiled run, then the slowest nodes.
export function profileBlock(profile) {
  const byOp = new Map();
  let total = 0;
  for (const p of profile) {
    const t = byOp.get(p.op) ?? { ms: 0, n: 0 };
    t.ms += p.ms;
    t.n++;
    byOp.set(p.op, t);
    total += p.ms;
  }
  const rows = [...byOp].sort((a, b) => b[1].ms - a[1].ms)
    .map(([op, t]) => ({ label: `${op} ×${t.n}`, value: t.ms, text: `${t.ms.toFixed(2)} ms  ${((100 * t.ms) / total).toFixed(1)}%` }));
  const slowest = [...profile].sort((a, b) => b.ms - a.ms).slice(0, 8);
  return el('div', {},
    el('p', { className: 'muted', textContent: `${profile.length} steps, ${total.toFixed(2)} ms in kernels` }),
    bars(rows),
    el('h3', { textContent: 'slowest steps' }),
    table(['node', 'op', 'output', 'ms'], slowest.map((p) => [p.node, p.op, p.shape, p.ms.toFixed(3)])));
}
