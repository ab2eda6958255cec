// Strokes on the drawing pad → the 8x8 image the digits model was trained on. scikit-learn's
// digits are 32x32 binary bitmaps reduced to ink counts per 4x4 block (0..16), with the digit
// filling the frame's height; we redo exactly that, redrawing the strokes (not scaling pixels)
// so a small drawing keeps its stroke width when it is fitted to the frame.

export function drawStrokes(ctx, strokes, transform = (p) => p) {
  ctx.strokeStyle = ctx.fillStyle = '#000';
  ctx.lineCap = ctx.lineJoin = 'round';
  for (const { width, points } of strokes) {
    const pts = points.map(transform);
    ctx.lineWidth = width;
    // A tap (even one with zero-length moves, which canvas strokes skip) is a dot.
    if (pts.every((p) => p.x === pts[0].x && p.y === pts[0].y)) {
      ctx.beginPath();
      ctx.arc(pts[0].x, pts[0].y, width / 2, 0, 2 * Math.PI);
      ctx.fill();
      continue;
    }
    ctx.beginPath();
    ctx.moveTo(pts[0].x, pts[0].y);
    for (const p of pts.slice(1)) ctx.lineTo(p.x, p.y);
    ctx.stroke();
  }
}

// Scale and shift that make the ink fill the frame's height (or width, if wider), centred.
// Stroke width is not scaled, so the centre lines get the frame minus one brush width.
function fitTransform(strokes, size) {
  const pts = strokes.flatMap((s) => s.points);
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const room = size - Math.max(...strokes.map((s) => s.width));
  const scale = Math.min(room / Math.max(y1 - y0, 1), room / Math.max(x1 - x0, 1));
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  return (p) => ({ x: size / 2 + (p.x - cx) * scale, y: size / 2 + (p.y - cy) * scale });
}

// → Float32Array(64) of ink counts 0..16, row-major.
export function strokesToDigit(strokes, size, fit) {
  const canvas = new OffscreenCanvas(size, size);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, size, size);
  if (strokes.length) drawStrokes(ctx, strokes, fit ? fitTransform(strokes, size) : undefined);
  const { data } = ctx.getImageData(0, 0, size, size);
  const cell = size / 32;
  const bitmap = new Uint8Array(32 * 32);
  for (let by = 0; by < 32; by++) {
    for (let bx = 0; bx < 32; bx++) {
      let ink = 0;
      for (let y = by * cell; y < (by + 1) * cell; y++) {
        for (let x = bx * cell; x < (bx + 1) * cell; x++) ink += 255 - data[(y * size + x) * 4];
      }
      bitmap[by * 32 + bx] = ink / (cell * cell * 255) >= 0.5 ? 1 : 0;
    }
  }
  const digit = new Float32Array(64);
  for (let i = 0; i < 32 * 32; i++) digit[((i >> 7) << 3) + ((i & 31) >> 2)] += bitmap[i];
  return digit;
}
