// Shared by the node:test files: model paths, seeded inputs, and comparison with onnxruntime-node.
import { execFile } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const modelsDir = process.env.WEBNX_MODELS || path.join(repoRoot, 'build/models');

export function modelPath(name) {
  return path.join(modelsDir, name);
}

export { seededFloats } from '../../js/seeded-floats.mjs';

// max |a - b| / max |b|: the error measure the model tests bound (1e-4).
export function relativeMaxError(actual, expected) {
  let maxDiff = 0;
  let maxRef = 0;
  for (let i = 0; i < expected.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(actual[i] - expected[i]));
    maxRef = Math.max(maxRef, Math.abs(expected[i]));
  }
  return maxRef === 0 ? maxDiff : maxDiff / maxRef;
}

// float16 bits -> number, exactly.
export function halfToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 31;
  const mantissa = h & 1023;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

// Numbers -> float16 bits, rounded to nearest even (through a Float32Array's rounding first,
// which is exact for the values tests feed: float32 numbers).
export function toHalfBits(values) {
  const f32 = Float32Array.from(values);
  const u32 = new Uint32Array(f32.buffer);
  return Uint16Array.from(u32, (u) => {
    const sign = (u >>> 16) & 0x8000;
    const exponent = ((u >>> 23) & 0xff) - 112;  // rebiased for float16
    const mantissa = u & 0x7fffff;
    if (((u >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
    if (exponent >= 31) return sign | 0x7c00;
    if (exponent <= 0) {  // subnormal or zero: shift the mantissa with its hidden bit in
      if (exponent < -10) return sign;
      const full = mantissa | 0x800000;
      const shift = 14 - exponent;
      let half = full >>> shift;
      const rest = full & ((1 << shift) - 1);
      const halfway = 1 << (shift - 1);
      if (rest > halfway || (rest === halfway && (half & 1))) half++;
      return sign | half;
    }
    let half = (exponent << 10) | (mantissa >>> 13);
    const rest = mantissa & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half++;  // a carry may reach inf: right
    return sign | half;
  });
}

export function argmax(data, offset = 0, length = data.length) {
  let best = offset;
  for (let i = offset; i < offset + length; i++) if (data[i] > data[best]) best = i;
  return best - offset;
}

// The files this process holds open (Linux: /proc/self/fd), for checks that a load closed its own.
export function openFiles() {
  return readdirSync('/proc/self/fd').map((fd) => {
    try { return readlinkSync(`/proc/self/fd/${fd}`); } catch { return ''; }  // closed meanwhile
  });
}

// `webnx <args>` through the real bin script, as `npx webnx …` runs it: { code, stdout, stderr }.
export async function runCli(...args) {
  try {
    const cli = path.join(repoRoot, 'js/cli.mjs');
    const { stdout, stderr } = await promisify(execFile)('node', [cli, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
