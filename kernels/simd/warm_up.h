// Runs the hot SIMD kernels a few times on small inputs when the runtime starts.
//
// V8 runs a fresh wasm module in its baseline compiler and recompiles a function with TurboFan
// once the function has executed enough code; a call already running stays in baseline code.
// Left alone, a session's first run pays for that: its first convolutions run several times
// slower while their kernels are being recompiled. Run here, the kernels exhaust their budget
// in about a millisecond and TurboFan compiles them in the background while the model loads.
#pragma once

namespace webnx::simd {

void WarmUpKernels();

}  // namespace webnx::simd
