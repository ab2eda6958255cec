#include "core/loaders/json_values.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/decimal_parse.h"

namespace webnx {
namespace jsonl {

std::string KindOf(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unexpected value";
  }
}

const Json* Member(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

Status MemberOf(const Json& obj, const std::string& pointer,
                std::initializer_list<const char*> keys, const Json** found,
                std::string* found_pointer) {
  *found = nullptr;
  const char* first_key = nullptr;
  for (const char* key : keys) {
    const Json* m = Member(obj, key);
    if (!m) continue;
    if (*found) {
      return MalformedAt(Child(pointer, key), std::string("both '") + first_key + "' and '" + key +
                                                  "' are given; use one spelling");
    }
    *found = m;
    first_key = key;
    if (found_pointer) *found_pointer = Child(pointer, key);
  }
  return Status::Ok();
}

Status ExpectObject(const Json& v, const std::string& pointer) {
  if (v.is_object()) return Status::Ok();
  return MalformedAt(pointer, "expected an object, got " + KindOf(v));
}

Status ExpectArray(const Json& v, const std::string& pointer) {
  if (v.is_array()) return Status::Ok();
  return MalformedAt(pointer, "expected an array, got " + KindOf(v));
}

bool ParseInt64(const std::string& s, int64_t* out) {
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative || (!s.empty() && s[0] == '+')) i = 1;
  if (i >= s.size() || s.size() - i > 19) return false;
  uint64_t magnitude = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    magnitude = magnitude * 10 + static_cast<uint64_t>(s[i] - '0');  // 19 digits cannot wrap
  }
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (magnitude > limit) return false;
  *out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool AsInt64(const Json& v, int64_t* out) {
  if (const auto* i = v.get_ptr<const Json::number_integer_t*>()) {
    *out = *i;
    return true;
  }
  if (const auto* u = v.get_ptr<const Json::number_unsigned_t*>()) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(*u);
    return true;
  }
  if (const auto* d = v.get_ptr<const Json::number_float_t*>()) {
    // JSON has one number type: 3.0 is an integer too. 2^63 is the first double out of range.
    if (!std::isfinite(*d) || std::floor(*d) != *d || *d < -9223372036854775808.0 ||
        *d >= 9223372036854775808.0) {
      return false;
    }
    *out = static_cast<int64_t>(*d);
    return true;
  }
  if (const auto* s = v.get_ptr<const Json::string_t*>()) return ParseInt64(*s, out);
  return false;
}

bool AsUint64(const Json& v, uint64_t* out) {
  if (const auto* u = v.get_ptr<const Json::number_unsigned_t*>()) {
    *out = *u;
    return true;
  }
  if (const auto* s = v.get_ptr<const Json::string_t*>()) {
    if (s->empty() || s->size() > 20) return false;
    uint64_t value = 0;
    for (const char c : *s) {
      if (c < '0' || c > '9') return false;
      const uint64_t digit = static_cast<uint64_t>(c - '0');
      if (value > (UINT64_MAX - digit) / 10) return false;
      value = value * 10 + digit;
    }
    *out = value;
    return true;
  }
  int64_t i = 0;
  if (!AsInt64(v, &i) || i < 0) return false;
  *out = static_cast<uint64_t>(i);
  return true;
}

bool AsDouble(const Json& v, double* out) {
  if (const auto* d = v.get_ptr<const Json::number_float_t*>()) {
    *out = *d;
    return true;
  }
  if (const auto* i = v.get_ptr<const Json::number_integer_t*>()) {
    *out = static_cast<double>(*i);
    return true;
  }
  if (const auto* u = v.get_ptr<const Json::number_unsigned_t*>()) {
    *out = static_cast<double>(*u);
    return true;
  }
  if (const auto* s = v.get_ptr<const Json::string_t*>()) {
    if (*s == "NaN") {
      *out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    if (*s == "Infinity" || *s == "-Infinity") {
      *out = (*s)[0] == '-' ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity();
      return true;
    }
    if (s->empty() || s->size() > 64) return false;
    double d;
    const char* end = ParseDecimal(s->c_str(), &d);
    if (end != s->c_str() + s->size() || !std::isfinite(d)) return false;
    *out = d;
    return true;
  }
  return false;
}

Status ReadInt(const Json& v, const std::string& pointer, int64_t* out) {
  if (AsInt64(v, out)) return Status::Ok();
  if (v.is_number() || v.is_string()) {
    return MalformedAt(
        pointer,
        "expected an integer, got " +
            (v.is_string() ? "the string '" + v.get_ref<const std::string&>().substr(0, 40) + "'"
                           : std::string("a non-integer or out-of-range number")));
  }
  return MalformedAt(pointer, "expected an integer, got " + KindOf(v));
}

namespace {

std::string NumberText(double d) {
  if (!std::isfinite(d)) return "null";  // as dump() writes them
  char text[32];
  std::snprintf(text, sizeof(text), "%.15g", d);
  double back;
  ParseDecimal(text, &back);
  if (back != d) std::snprintf(text, sizeof(text), "%.17g", d);
  return text;
}

void AppendQuoted(const std::string& s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      *out += "\\u00";
      out->push_back(kHex[u >> 4]);
      out->push_back(kHex[u & 15]);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendJson(const Json& v, std::string* out) {
  if (v.is_string()) return AppendQuoted(v.get_ref<const std::string&>(), out);
  if (v.is_boolean()) return void(*out += v.get<bool>() ? "true" : "false");
  if (const auto* i = v.get_ptr<const Json::number_integer_t*>())
    return void(*out += std::to_string(*i));
  if (const auto* u = v.get_ptr<const Json::number_unsigned_t*>())
    return void(*out += std::to_string(*u));
  if (const auto* d = v.get_ptr<const Json::number_float_t*>()) return void(*out += NumberText(*d));
  if (v.is_array() || v.is_object()) {
    out->push_back(v.is_array() ? '[' : '{');
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it, first = false) {
      if (!first) out->push_back(',');
      if (v.is_object()) {
        AppendQuoted(it.key(), out);
        out->push_back(':');
      }
      AppendJson(it.value(), out);
    }
    out->push_back(v.is_array() ? ']' : '}');
    return;
  }
  *out += "null";
}

}  // namespace

std::string JsonText(const Json& v) {
  std::string out;
  AppendJson(v, &out);
  return out;
}

Status ReadFloat(const Json& v, const std::string& pointer, float* out) {
  double d = 0;
  if (!AsDouble(v, &d)) return MalformedAt(pointer, "expected a number, got " + KindOf(v));
  if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())) {
    return MalformedAt(pointer, "the number " + NumberText(d) + " does not fit in float32");
  }
  *out = static_cast<float>(d);
  return Status::Ok();
}

Status ReadString(const Json& v, const std::string& pointer, std::string* out) {
  const auto* s = v.get_ptr<const Json::string_t*>();
  if (!s) return MalformedAt(pointer, "expected a string, got " + KindOf(v));
  *out = *s;
  return Status::Ok();
}

Status ReadBool(const Json& v, const std::string& pointer, bool* out) {
  if (const auto* b = v.get_ptr<const Json::boolean_t*>()) {
    *out = *b;
    return Status::Ok();
  }
  int64_t i = 0;
  if (v.is_number() && AsInt64(v, &i) && (i == 0 || i == 1)) {
    *out = i == 1;
    return Status::Ok();
  }
  return MalformedAt(pointer, "expected true, false, 0 or 1, got " + KindOf(v));
}

template <typename T, typename ReadOne>
static Status ReadList(const Json& v, const std::string& pointer, std::vector<T>* out,
                       ReadOne read_one) {
  WEBNX_RETURN_IF_ERROR(ExpectArray(v, pointer));
  out->clear();
  out->reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    T item{};
    WEBNX_RETURN_IF_ERROR(read_one(v[i], Child(pointer, i), &item));
    out->push_back(std::move(item));
  }
  return Status::Ok();
}

Status ReadInts(const Json& v, const std::string& pointer, std::vector<int64_t>* out) {
  return ReadList<int64_t>(v, pointer, out, ReadInt);
}

Status ReadFloats(const Json& v, const std::string& pointer, std::vector<float>* out) {
  return ReadList<float>(v, pointer, out, ReadFloat);
}

Status ReadStrings(const Json& v, const std::string& pointer, std::vector<std::string>* out) {
  return ReadList<std::string>(v, pointer, out, ReadString);
}

Status ReadIntsN(const Json& v, const std::string& pointer, size_t count,
                 std::vector<int64_t>* out) {
  const std::string want = std::to_string(count) + (count == 1 ? " integer" : " integers");
  if (!v.is_array()) return MalformedAt(pointer, "expected " + want + ", got " + KindOf(v));
  if (v.size() != count) {
    return MalformedAt(pointer, "expected " + want + ", got " + std::to_string(v.size()));
  }
  return ReadInts(v, pointer, out);
}

}  // namespace jsonl
}  // namespace webnx
