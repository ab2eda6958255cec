// Keeps a kernel variant (or a cold path) out of its caller.
//
// V8 first runs wasm unoptimised and recompiles a function once it has run enough; the first
// inference runs slowly until the kernels it uses are recompiled. A big function with every
// variant inlined takes long to recompile, competes for the compiler with the kernels that
// matter, and is recompiled whole even when a model uses one variant of it.
#pragma once

#define WEBNX_SEPARATE_FUNCTION __attribute__((noinline))
