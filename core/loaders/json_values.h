// Typed reads of nlohmann::json values that never throw (wasm builds abort on any throw): each
// checks the JSON type first and reports a MalformedModel naming the JSON Pointer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/loaders/json_pointer.h"

namespace webnx {
namespace jsonl {

using Json = nlohmann::json;

// A value as compact JSON text (metadata given as JSON values): nlohmann's dump() without its
// serializer and shortest-float printer (6 KB of the .wasm). Floats are written with the fewest
// of 15 or 17 significant digits that read back exactly; string bytes are kept, escaped.
std::string JsonText(const Json& v);

// "a string", "an array", ... for messages.
std::string KindOf(const Json& v);

// The member `key` of an object, or nullptr (also when `obj` is not an object).
const Json* Member(const Json& obj, const char* key);

// The first present member among alternative spellings of one field ("op_type", "opType").
// Two spellings present at once is ambiguous: MalformedModel. *found is nullptr when absent.
Status MemberOf(const Json& obj, const std::string& pointer,
                std::initializer_list<const char*> keys, const Json** found,
                std::string* found_pointer);

Status ExpectObject(const Json& v, const std::string& pointer);
Status ExpectArray(const Json& v, const std::string& pointer);

// An integer: a JSON integer, an integral float, or a decimal string (protobuf's JSON mapping
// writes int64 as strings).
Status ReadInt(const Json& v, const std::string& pointer, int64_t* out);
// A float32: a number, a numeric string, or "NaN" / "Infinity" / "-Infinity".
Status ReadFloat(const Json& v, const std::string& pointer, float* out);
Status ReadString(const Json& v, const std::string& pointer, std::string* out);
// true/false, or the integers 0 and 1.
Status ReadBool(const Json& v, const std::string& pointer, bool* out);

Status ReadInts(const Json& v, const std::string& pointer, std::vector<int64_t>* out);
Status ReadFloats(const Json& v, const std::string& pointer, std::vector<float>* out);
Status ReadStrings(const Json& v, const std::string& pointer, std::vector<std::string>* out);
// Exactly `count` integers: "expected 2 integers, got 3".
Status ReadIntsN(const Json& v, const std::string& pointer, size_t count,
                 std::vector<int64_t>* out);

// Plain accessors without messages: false when `v` is not of that kind.
bool AsInt64(const Json& v, int64_t* out);
// A non-negative integer up to 2^64 - 1: a JSON integer or a decimal string.
bool AsUint64(const Json& v, uint64_t* out);
bool AsDouble(const Json& v, double* out);
// Strict decimal integer ("-12"); false on anything else or int64 overflow.
bool ParseInt64(const std::string& s, int64_t* out);

}  // namespace jsonl
}  // namespace webnx
