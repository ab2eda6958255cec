// What this engine's i32x4.relaxed_dot_i8x16_i7x16_add_s computes when its second operand's bytes
// are past 127 (the specification leaves it to the engine): 'unsigned' or 'signed' where the
// result is exact, 'inexact' otherwise (saturated pairs, a faulty compiler), 'absent' without
// relaxed SIMD. The tests hold env.int8Product against it. Self-contained, so that Playwright can
// run it in a page (page.evaluate(relaxedDotKind)).
export async function relaxedDotKind() {
  // (func) storing at 48 the dot of the vectors at 0 and 16 plus the one at 32.
  const body = [0x00, 0x41, 48, 0x41, 0, 0xfd, 0x00, 0x04, 0x00, 0x41, 16, 0xfd, 0x00, 0x04, 0x00,
    0x41, 32, 0xfd, 0x00, 0x04, 0x00, 0xfd, 0x93, 0x02, 0xfd, 0x0b, 0x04, 0x00, 0x0b];
  const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0,
    5, 3, 1, 0, 1, 7, 9, 2, 1, 0x66, 0, 0, 1, 0x6d, 2, 0, 10, body.length + 2, 1, body.length, ...body]);
  if (!WebAssembly.validate(bytes)) return 'absent';
  const { instance } = await WebAssembly.instantiate(bytes);
  const memory = instance.exports.m.buffer;
  new Int8Array(memory, 0, 4).fill(-128);
  new Uint8Array(memory, 16, 4).fill(255);
  new Int32Array(memory, 32, 1)[0] = 7;
  instance.exports.f();
  const lane = new Int32Array(memory, 48, 1)[0];
  return lane === 7 - 4 * 128 * 255 ? 'unsigned' : lane === 7 + 4 * 128 ? 'signed' : 'inexact';
}
