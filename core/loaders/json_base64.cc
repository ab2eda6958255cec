#include "core/loaders/json_base64.h"

#include <cstdint>

namespace webnx {
namespace jsonl {
namespace {

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

bool DecodeBase64(const std::string& in, std::string* out) {
  size_t n = in.size();
  while (n > 0 && in[n - 1] == '=') --n;
  if (in.size() - n > 2 || (in.size() != n && in.size() % 4 != 0) || n % 4 == 1) return false;
  out->clear();
  out->reserve(n / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    const int v = Sextet(in[i]);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xffu));
    }
  }
  return true;
}

bool LooksLikeBase64Text(const std::string& in, std::string* decoded) {
  if (in.empty() || in.size() % 4 != 0) return false;
  for (char c : in) {
    if (c == '-' || c == '_') return false;  // URL-safe alphabet: not what protobuf prints
  }
  if (!DecodeBase64(in, decoded)) return false;
  for (unsigned char c : *decoded) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace jsonl
}  // namespace webnx
