// The wasm heap as the leak tests see it: bytes malloc has handed out and not taken back
// (deterministic, unlike timing), and the size of linear memory.
#pragma once

#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

namespace webnx {

inline emscripten::val HeapStats() {
  const struct mallinfo info = mallinfo();
  emscripten::val o = emscripten::val::object();
  o.set("used", static_cast<double>(info.uordblks));
  o.set("heapSize", static_cast<double>(emscripten_get_heap_size()));
  return o;
}

}  // namespace webnx
