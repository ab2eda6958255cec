// Base64 for tensor bytes in JSON documents (protobuf's JSON mapping writes `bytes` this way).
#pragma once

#include <string>

namespace webnx {
namespace jsonl {

// Decodes standard or URL-safe base64, padded or not. False on any other character, a bad
// length or misplaced padding.
bool DecodeBase64(const std::string& in, std::string* out);

// True when `in` is canonical, padded standard base64 whose bytes are printable ASCII: how a
// protobuf-JSON `bytes` string attribute looks, as opposed to the plain strings JS exporters
// write ("SAME_UPPER", "constant"). *decoded receives the text.
bool LooksLikeBase64Text(const std::string& in, std::string* decoded);

}  // namespace jsonl
}  // namespace webnx
