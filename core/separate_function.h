// Keeps a function out of its caller.
//
// V8 first runs wasm unoptimised and recompiles a function once it has run enough code; the
// first inference runs slowly until the kernels it uses are recompiled. A big function with
// every variant inlined takes long to recompile, competes for the compiler with the kernels
// that matter, and is recompiled whole even when a model uses one variant of it. Code that runs
// once per plan should not be recompiled at all: one loop over every node with the whole
// per-node work inlined spends the recompile budget within a single plan.
//
// Binaryen ignores noinline at link: a function with one caller stays apart only when it is
// bigger than the link's --one-caller-inline-max-function-size (CMakeLists.txt).
#pragma once

#define WEBNX_SEPARATE_FUNCTION __attribute__((noinline))

// Plan-time code inside a file compiled for speed (CMakeLists.txt's hot list, kernels/simd):
// compiled for size like the cold files. It runs once per plan (Plan functions, weight packers,
// scratch set-up); at -O3 the conv's, pool's and gemm's Plan with what they inline were 15 KB.
// Not the kernels' warm-up: compiled for size, it left MobileNetV2's first run ~3 ms slower.
#ifdef __clang__
#define WEBNX_PLAN_TIME __attribute__((minsize))
#else
#define WEBNX_PLAN_TIME
#endif
