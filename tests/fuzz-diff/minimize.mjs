// Shrinks a failing case while it still fails: the graph cut down to the first value that
// mismatches, nodes bypassed where their input has their output's shape, one batch size.
// `fails(doc, batches)` says whether a candidate still fails.

const copy = (value) => structuredClone(value);

// The graph reduced to what `outputs` need (nodes, initializers), with those as its outputs.
export function pruneTo(doc, outputs, shapes) {
  const out = copy(doc);
  const g = out.graph;
  const needed = new Set(outputs);
  const kept = [];
  for (const node of [...g.node].reverse()) {
    if (!node.output.some((o) => needed.has(o))) continue;
    kept.unshift(node);
    for (const i of node.input) needed.add(i);
  }
  g.node = kept;
  g.initializer = g.initializer.filter((t) => needed.has(t.name));
  g.output = outputs.map((name) => ({ name, type: { tensorType: { elemType: 1, ...shapeOf(shapes, name) } } }));
  return out;
}

function shapeOf(shapes, name) {
  const dims = shapes?.get(name);
  if (!dims) return {};
  return { shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: String(d) })) } };
}

// Nodes one of whose inputs has the node's output shape: readers can take that input instead.
function bypassable(doc, shapes) {
  return doc.graph.node.filter((n) => n.input.some((i) => shapes.get(i) && shapes.get(i).join() === shapes.get(n.output[0])?.join()));
}

function bypass(doc, node, shapes) {
  const out = copy(doc);
  const g = out.graph;
  const from = node.input.find((i) => shapes.get(i) && shapes.get(i).join() === shapes.get(node.output[0]).join());
  g.node = g.node.filter((n) => n.name !== node.name).map((n) => ({ ...n, input: n.input.map((i) => (i === node.output[0] ? from : i)) }));
  const outputs = [...new Set(g.output.map((o) => (o.name === node.output[0] ? from : o.name)))];
  if (outputs.every((o) => g.input.some((i) => i.name === o))) return null;  // nothing left to compute
  return pruneTo(out, outputs, shapes);
}

// { doc, batches, steps } with the smallest failing candidate found.
export async function minimize(doc, batches, shapes, fails) {
  let best = doc;
  let bestBatches = batches;
  let steps = 0;
  // 1. The first value (in node order) that already fails, alone.
  for (const node of doc.graph.node) {
    const candidate = pruneTo(best, [node.output[0]], shapes);
    steps++;
    if (await fails(candidate, bestBatches)) {
      best = candidate;
      break;
    }
  }
  // 2. Bypass nodes while it still fails.
  for (let changed = true; changed;) {
    changed = false;
    for (const node of bypassable(best, shapes)) {
      const candidate = bypass(best, node, shapes);
      if (!candidate) continue;
      steps++;
      if (await fails(candidate, bestBatches)) {
        best = candidate;
        changed = true;
        break;
      }
    }
  }
  // 3. One batch size, then the smallest that fails.
  for (const n of [1, ...new Set(bestBatches)]) {
    steps++;
    if (await fails(best, [n])) {
      bestBatches = [n];
      break;
    }
  }
  return { doc: best, batches: bestBatches, steps };
}
