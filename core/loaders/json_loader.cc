#include "core/loaders/json_loader.h"

#include <cstring>

#include "core/loaders/json_depth.h"
#include "core/loaders/json_dialects.h"

namespace webnx {
namespace {

using jsonl::Json;
using jsonl::MalformedAt;
using jsonl::Member;

// Parses only to find where the syntax breaks: the DOM parse (exceptions off) just says no.
struct SyntaxErrorFinder : nlohmann::json_sax<Json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const Json::exception& ex) override {
    message = ex.what();
    const size_t tag_end = message.find("] ");  // drop "[json.exception.parse_error.101] "
    if (message.rfind("[json.exception", 0) == 0 && tag_end != std::string::npos) {
      message.erase(0, tag_end + 2);
    }
    return false;
  }
};

Status SyntaxError(const char* text, size_t size) {
  SyntaxErrorFinder finder;
  Json::sax_parse(text, text + size, &finder, nlohmann::json::input_format_t::json, true, false);
  return Status(
      ErrorCode::kMalformedModel,
      "not valid JSON: " + (finder.message.empty() ? std::string("syntax error") : finder.message));
}

enum class Dialect { kWebnxGraph, kOnnxJson, kUnknown };

// Recognised by shape: "format" names webnx-graph; "graph", or a bare GraphProto's "node" /
// "initializer", is ONNX-JSON; "nodes" alone goes by how its first node names its op.
Status Detect(const Json& doc, Dialect* dialect) {
  *dialect = Dialect::kUnknown;
  if (const Json* format = Member(doc, "format")) {
    if (!format->is_string() || format->get_ref<const std::string&>() != "webnx-graph") {
      return MalformedAt("/format",
                         "unknown format (webnx reads \"webnx-graph\" documents and ONNX-JSON)");
    }
    *dialect = Dialect::kWebnxGraph;
  } else if (Member(doc, "graph") || Member(doc, "node") || Member(doc, "initializer")) {
    *dialect = Dialect::kOnnxJson;
  } else if (const Json* nodes = Member(doc, "nodes")) {
    const Json* first = nodes->is_array() && !nodes->empty() ? &(*nodes)[0] : nullptr;
    const bool onnx = first && (Member(*first, "op_type") || Member(*first, "opType"));
    *dialect = onnx ? Dialect::kOnnxJson : Dialect::kWebnxGraph;
  }
  if (*dialect != Dialect::kUnknown) return Status::Ok();
  return MalformedAt("",
                     "not a webnx-graph or ONNX-JSON document: expected \"format\": "
                     "\"webnx-graph\" or a \"graph\" object");
}

}  // namespace

Status LoadJsonModel(const char* text, size_t size, Graph* graph) {
  return LoadJsonModel(text, size, JsonExternalFiles(), graph);
}

Status LoadJsonModel(const char* text, size_t size, const JsonExternalFiles& files, Graph* graph) {
  if (size >= 3 && std::memcmp(text, "\xEF\xBB\xBF", 3) == 0) {  // UTF-8 byte order mark
    text += 3;
    size -= 3;
  }
  size_t first = 0;
  while (first < size && std::strchr(" \t\r\n", text[first]) && text[first]) ++first;
  if (first == size) return Status(ErrorCode::kMalformedModel, "the JSON document is empty");
  WEBNX_RETURN_IF_ERROR(jsonl::CheckJsonDepth(text, size));
  Json doc = Json::parse(text, text + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return SyntaxError(text, size);
  if (!doc.is_object()) {
    return MalformedAt("", "expected a JSON object (a webnx-graph or ONNX-JSON document), got " +
                               jsonl::KindOf(doc));
  }
  Dialect dialect;
  WEBNX_RETURN_IF_ERROR(Detect(doc, &dialect));
  return dialect == Dialect::kWebnxGraph ? jsonl::LoadWebnxGraphDocument(doc, files, graph)
                                         : jsonl::LoadOnnxJsonDocument(doc, files, graph);
}

}  // namespace webnx
