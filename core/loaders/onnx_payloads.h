// Finds the raw_data of a model's large initializers in its protobuf bytes, so the loader can
// keep them where they are instead of letting protobuf copy them: the weights are most of a
// model's bytes, and on a fresh wasm heap every copied megabyte also pays for new pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace webnx {

struct ByteSpan {
  size_t offset = 0;  // into the model's bytes
  size_t size = 0;
};

struct DetachedPayloads {
  std::string skeleton;  // the model's bytes without the detached raw_data fields
  // Per initializer of the main graph, in order: its raw_data (`detached` false when it stayed
  // in the skeleton).
  struct Entry {
    bool detached = false;
    ByteSpan raw;
  };
  std::vector<Entry> initializers;
  size_t detached_bytes = 0;
};

// Detaches every initializer raw_data of at least `min_bytes`. False when nothing is worth
// detaching, or the bytes are not wire format this walk accepts (a malformed field, a second
// graph or raw_data field, which protobuf would merge): the caller then parses the bytes
// whole, and protobuf reports whatever is wrong with them.
bool DetachInitializerPayloads(const uint8_t* data, size_t size, size_t min_bytes,
                               DetachedPayloads* out);

// Moves the detached payloads towards the front of `data` (in place, in order), each to the
// next `alignment`-byte boundary that does not pass its current start; updates their offsets.
// Payloads are then aligned for their dtype wherever the bytes before them leave room.
void AlignDetachedPayloads(uint8_t* data, size_t alignment, DetachedPayloads* payloads);

}  // namespace webnx
