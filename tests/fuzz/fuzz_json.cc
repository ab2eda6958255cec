// libFuzzer target: a JSON graph document (webnx-graph or ONNX-JSON) -> load -> plan -> run on
// small random inputs. One side file, "weights.bin", is offered to documents that name it.
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<webnx::Session> session;
  if (!webnx::Session::CreateFromJson(reinterpret_cast<const char*>(data), size,
                                      webnx::fuzz::FuzzJsonFiles(), webnx::fuzz::FuzzOptions(),
                                      &session)
           .ok())
    return 0;
  webnx::fuzz::RunWithSmallInputs(*session, webnx::fuzz::Hash(data, size));
  return 0;
}
