// libFuzzer target: a JSON graph document (webnx-graph or ONNX-JSON) -> load -> plan -> run on
// small random inputs. One side file, "weights.bin", is offered to documents that name it.
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  webnx::fuzz::LoadAndRunJson(data, size);
  return 0;
}
