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

// Appends a length-delimited field whose payload `write` produces.
template <typename Write>
bool AppendMessage(uint32_t number, Write write, std::string* out) {
  std::string body;
  if (!write(&body)) return false;
  AppendVarint(static_cast<uint64_t>(number) << 3 | kLengthDelimited, out);
  AppendVarint(body.size(), out);
  out->append(body);
  return true;
}

class Detacher {
 public:
  Detacher(const uint8_t* base, size_t min_bytes, DetachedPayloads* out)
      : base_(base), min_bytes_(min_bytes), out_(out) {}

  bool Model(Reader r, std::string* skeleton) {
    bool seen_graph = false;
    return Walk(r, skeleton, [&](uint32_t number, const uint8_t* payload, size_t length) {
      if (number != kModelGraph) return 0;
      if (seen_graph) return -1;  // protobuf would merge the two
      seen_graph = true;
      return Embedded(number, payload, length, skeleton, &Detacher::Graph);
    });
  }

 private:
  // Copies each field of `r` to `out` unless `special(number, payload, length)` (called for
  // length-delimited fields) returns 1, having written it itself; -1 rejects the bytes.
  template <typename Special>
  bool Walk(Reader r, std::string* out, Special special) {
    while (r.p < r.end) {
      const uint8_t* start = r.p;
      uint32_t number, wire;
      const uint8_t* payload = nullptr;
      size_t length = 0;
      if (!r.Field(&number, &wire, &payload, &length)) return false;
      const int handled = wire == kLengthDelimited ? special(number, payload, length) : 0;
      if (handled < 0) return false;
      if (handled == 0) AppendBytes(start, r.p, out);
    }
    return true;
  }

  using Part = bool (Detacher::*)(Reader, std::string*);
  int Embedded(uint32_t number, const uint8_t* payload, size_t length, std::string* out,
               Part part) {
    const bool ok = AppendMessage(
        number,
        [&](std::string* body) {
          return (this->*part)(Reader{payload, payload + length}, body);
        },
        out);
    return ok ? 1 : -1;
  }

  bool Graph(Reader r, std::string* out) {
    return Walk(r, out, [&](uint32_t number, const uint8_t* payload, size_t length) {
      if (number != kGraphInitializer) return 0;
      out_->initializers.emplace_back();
      return Embedded(number, payload, length, out, &Detacher::Initializer);
    });
  }

  bool Initializer(Reader r, std::string* out) {
    DetachedPayloads::Entry& entry = out_->initializers.back();
    bool seen_raw = false;
    return Walk(r, out, [&](uint32_t number, const uint8_t* payload, size_t length) {
      if (number != kTensorRawData) return 0;
      if (seen_raw) return -1;  // the last one would win
      seen_raw = true;
      if (length < min_bytes_) return 0;
      entry.detached = true;
      entry.raw = ByteSpan{static_cast<size_t>(payload - base_), length};
      out_->detached_bytes += length;
      return 1;
    });
  }

  const uint8_t* base_;
  size_t min_bytes_;
  DetachedPayloads* out_;
};

}  // namespace

bool DetachInitializerPayloads(const uint8_t* data, size_t size, size_t min_bytes,
                               DetachedPayloads* out) {
  *out = DetachedPayloads();
  if (!data || size == 0) return false;
  Detacher detacher(data, min_bytes, out);
  std::string skeleton;
  // Not worth a second pass over the bytes unless the weights are most of them.
  if (!detacher.Model(Reader{data, data + size}, &skeleton) || out->detached_bytes < size / 2) {
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
