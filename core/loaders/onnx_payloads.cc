#include "core/loaders/onnx_payloads.h"

#include <cstring>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace webnx {
namespace {

// memmove. Without wasm's bulk-memory feature (which thread-local storage then requires
// atomics for), an overlapping memmove is a C loop in wasm: 23 ms for ResNet18's weights.
// JS's copyWithin has memmove's semantics and runs natively.
void MoveBytes(uint8_t* to, const uint8_t* from, size_t n) {
#ifdef __EMSCRIPTEN__
  EM_ASM({ HEAPU8.copyWithin($0 >>> 0, $1 >>> 0, ($1 >>> 0) + ($2 >>> 0)); }, to, from, n);
#else
  std::memmove(to, from, n);
#endif
}

// Field numbers of onnx.proto this walk follows.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A cursor over one message's bytes; every read checks the end.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;

  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      const uint8_t b = *p++;
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  // One field: its number and wire type, and for length-delimited fields the payload.
  bool Field(uint32_t* number, uint32_t* wire, const uint8_t** payload, size_t* length) {
    uint64_t tag;
    if (!Varint(&tag) || tag >> 3 == 0 || tag >> 3 > 0x1fffffff) return false;
    *number = static_cast<uint32_t>(tag >> 3);
    *wire = static_cast<uint32_t>(tag & 7);
    uint64_t skip = 0;
    switch (*wire) {
      case kVarint:
        return Varint(&skip);
      case kFixed64:
        skip = 8;
        break;
      case kFixed32:
        skip = 4;
        break;
      case kLengthDelimited:
        if (!Varint(&skip)) return false;
        *payload = p;
        *length = static_cast<size_t>(skip);
        break;
      default:  // groups: not used by onnx.proto
        return false;
    }
    if (skip > static_cast<uint64_t>(end - p)) return false;
    p += skip;
    return true;
  }
};

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void AppendBytes(const uint8_t* from, const uint8_t* to, std::string* out) {
  out->append(reinterpret_cast<const char*>(from), static_cast<size_t>(to - from));
}

// Copies a model's fields into its skeleton, rewriting the graph, its initializers and their
// raw_data on the way down.
class Detacher {
 public:
  Detacher(const uint8_t* base, size_t min_bytes, DetachedPayloads* out)
      : base_(base), min_bytes_(min_bytes), out_(out) {}

  bool Model(const uint8_t* p, size_t length, std::string* skeleton) {
    return Walk(Reader{p, p + length}, skeleton, &Detacher::ModelField);
  }

 private:
  // What a length-delimited field's handler did: copied nothing (the walk copies the field),
  // wrote the field itself, or rejected the bytes.
  enum Handled { kCopy, kWritten, kReject };
  using Handler = Handled (Detacher::*)(uint32_t number, const uint8_t* payload, size_t length,
                                        std::string* out);

  bool Walk(Reader r, std::string* out, Handler handler) {
    while (r.p < r.end) {
      const uint8_t* start = r.p;
      uint32_t number, wire;
      const uint8_t* payload = nullptr;
      size_t length = 0;
      if (!r.Field(&number, &wire, &payload, &length)) return false;
      const Handled handled =
          wire == kLengthDelimited ? (this->*handler)(number, payload, length, out) : kCopy;
      if (handled == kReject) return false;
      if (handled == kCopy) AppendBytes(start, r.p, out);
    }
    return true;
  }

  // The message in `payload`, walked with `handler`, appended as field `number`.
  Handled Embedded(uint32_t number, const uint8_t* payload, size_t length, std::string* out,
                   Handler handler) {
    std::string body;
    if (!Walk(Reader{payload, payload + length}, &body, handler)) return kReject;
    AppendVarint(static_cast<uint64_t>(number) << 3 | kLengthDelimited, out);
    AppendVarint(body.size(), out);
    out->append(body);
    return kWritten;
  }

  Handled ModelField(uint32_t number, const uint8_t* payload, size_t length, std::string* out) {
    if (number != kModelGraph) return kCopy;
    if (seen_graph_) return kReject;  // protobuf would merge the two
    seen_graph_ = true;
    return Embedded(number, payload, length, out, &Detacher::GraphField);
  }

  Handled GraphField(uint32_t number, const uint8_t* payload, size_t length, std::string* out) {
    if (number != kGraphInitializer) return kCopy;
    out_->initializers.emplace_back();
    seen_raw_ = false;
    return Embedded(number, payload, length, out, &Detacher::InitializerField);
  }

  Handled InitializerField(uint32_t number, const uint8_t* payload, size_t length,
                           std::string* out) {
    if (number != kTensorRawData) return kCopy;
    if (seen_raw_) return kReject;  // the last one would win
    seen_raw_ = true;
    if (length < min_bytes_) return kCopy;
    DetachedPayloads::Entry& entry = out_->initializers.back();
    entry.detached = true;
    entry.raw = ByteSpan{static_cast<size_t>(payload - base_), length};
    out_->detached_bytes += length;
    return kWritten;
  }

  const uint8_t* base_;
  size_t min_bytes_;
  DetachedPayloads* out_;
  bool seen_graph_ = false;
  bool seen_raw_ = false;  // in the initializer being walked
};

}  // namespace

bool DetachInitializerPayloads(const uint8_t* data, size_t size, size_t min_bytes,
                               DetachedPayloads* out) {
  *out = DetachedPayloads();
  if (!data || size == 0) return false;
  Detacher detacher(data, min_bytes, out);
  std::string skeleton;
  // Not worth a second pass over the bytes unless the weights are most of them.
  if (!detacher.Model(data, size, &skeleton) || out->detached_bytes < size / 2) {
    *out = DetachedPayloads();
    return false;
  }
  out->skeleton = std::move(skeleton);
  return true;
}

void AlignDetachedPayloads(uint8_t* data, size_t alignment, DetachedPayloads* payloads) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(data);
  size_t cursor = 0;
  for (DetachedPayloads::Entry& e : payloads->initializers) {
    if (!e.detached) continue;
    const size_t aligned =
        static_cast<size_t>((base + cursor + alignment - 1) / alignment * alignment - base);
    if (aligned <= e.raw.offset) {  // room before it: move it down (the two may overlap)
      if (aligned != e.raw.offset) MoveBytes(data + aligned, data + e.raw.offset, e.raw.size);
      e.raw.offset = aligned;
    }
    cursor = e.raw.offset + e.raw.size;
  }
}

}  // namespace webnx
