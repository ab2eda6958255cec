// Monotonic milliseconds, for per-node profiles (never for decisions).
#pragma once

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
#include <chrono>
#endif

namespace webnx {

inline double NowMs() {
#ifdef __EMSCRIPTEN__
  return emscripten_get_now();
#else
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

}  // namespace webnx
