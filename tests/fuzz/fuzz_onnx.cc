// libFuzzer target: ONNX bytes -> load -> plan -> run on small random inputs. Any crash, leak,
// sanitizer report or hang is a bug; coded errors are the expected outcome for most inputs.
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  webnx::fuzz::LoadAndRunOnnx(data, size);
  return 0;
}
