// Which SIMD build the runtime loads: 'relaxed' (fused multiply-add, f32x4.relaxed_madd) where
// the engine validates relaxed SIMD, else 'simd'. Decided by a feature test, never by a failed
// load: an engine without relaxed SIMD rejects the whole relaxed module at compile time.
// env.simd forces one ('relaxed' on an engine without it is an error naming the feature).
import { WebnxError } from './errors.mjs';
import { env } from './env.mjs';

// A module of one function, () -> v128, computing f32x4.relaxed_madd of three zero vectors.
const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)];  // v128.const 0
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // \0asm, version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,  // types: () -> v128
  0x03, 0x02, 0x01, 0x00,  // functions: one of type 0
  0x0a, 0x3d, 0x01, 0x3b, 0x00,  // code: one body of 59 bytes, no locals
  ...V128_ZERO, ...V128_ZERO, ...V128_ZERO,
  0xfd, 0x85, 0x02,  // f32x4.relaxed_madd (0xfd 261)
  0x0b,  // end
]);

export function engineHasRelaxedSimd() {
  try {
    return WebAssembly.validate(RELAXED_PROBE);
  } catch {
    return false;
  }
}

const LEVELS = ['relaxed', 'simd'];

// env.simd, checked: undefined / 'auto' (the best the engine runs), 'relaxed' or 'simd'.
// `singleFile`: env.wasmBinary or env.wasmPaths.wasm names one .wasm, which is taken as the
// plain build unless env.simd says 'relaxed'.
export function chooseSimdLevel(singleFile) {
  const asked = env.simd ?? 'auto';
  if (asked !== 'auto' && !LEVELS.includes(asked)) {
    throw new WebnxError('InvalidArgument', `env.simd must be 'auto', 'relaxed' or 'simd', got ${JSON.stringify(asked)}`);
  }
  const relaxed = engineHasRelaxedSimd();
  if (asked === 'relaxed' && !relaxed) {
    throw new WebnxError('UnsupportedFeature', "env.simd is 'relaxed' but this engine does not run WebAssembly " +
      'relaxed SIMD (f32x4.relaxed_madd does not validate): Chromium 114+ and Firefox 146+ have it, Safari ' +
      'does not, Node 20 needs --experimental-wasm-relaxed-simd');
  }
  if (asked !== 'auto') return asked;
  return relaxed && !singleFile ? 'relaxed' : 'simd';
}
