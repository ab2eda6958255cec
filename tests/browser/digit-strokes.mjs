// Turns a held-out 8x8 digit (ink counts 0..16) back into pen strokes on the 256x256 pad:
// each count becomes that many inked 8x8-pixel cells of the 32x32 bitmap, and every horizontal
// run of inked cells one stroke of an 8 px round brush, which the page reduces to the same digit.
export function digitToStrokes(image, padSize = 256) {
  const bitmap = new Uint8Array(32 * 32);
  for (let i = 0; i < 64; i++) {
    const [row, col] = [i >> 3, i & 7];
    for (let k = 0; k < image[i]; k++) bitmap[(row * 4 + (k >> 2)) * 32 + col * 4 + (k & 3)] = 1;
  }
  const cell = padSize / 32;
  const strokes = [];
  for (let y = 0; y < 32; y++) {
    for (let x = 0; x < 32; x++) {
      if (!bitmap[y * 32 + x]) continue;
      let end = x;
      while (end + 1 < 32 && bitmap[y * 32 + end + 1]) end++;
      strokes.push([{ x: (x + 0.5) * cell, y: (y + 0.5) * cell }, { x: (end + 0.5) * cell, y: (y + 0.5) * cell }]);
      x = end;
    }
  }
  return strokes;
}

// Draws strokes (arrays of points, in pad coordinates) with the real mouse: pointer events.
export async function drawWithMouse(page, selector, strokes) {
  const box = await page.locator(selector).boundingBox();
  for (const [first, ...rest] of strokes) {
    await page.mouse.move(box.x + first.x, box.y + first.y);
    await page.mouse.down();
    for (const p of rest) await page.mouse.move(box.x + p.x, box.y + p.y, { steps: rest.length > 1 ? 8 : 1 });
    await page.mouse.up();
  }
}
