// The ONNX TensorProto.DataType values by their enum names ("FLOAT", "DOUBLE", ...): for
// messages naming a type webnx lacks, and for JSON documents that spell a type by name.
#pragma once

#include <cstdint>
#include <string>

namespace webnx {

inline constexpr const char* kOnnxDataTypeNames[] = {
    "UNDEFINED",      "FLOAT",    "UINT8",        "INT8",           "UINT16",
    "INT16",          "INT32",    "INT64",        "STRING",         "BOOL",
    "FLOAT16",        "DOUBLE",   "UINT32",       "UINT64",         "COMPLEX64",
    "COMPLEX128",     "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
    "FLOAT8E5M2FNUZ", "UINT4",    "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0",
    "UINT2",          "INT2"};

// The enum name of `onnx_type`, or "type N" for a value outside the table.
inline std::string OnnxDataTypeName(int64_t onnx_type) {
  const int64_t count = static_cast<int64_t>(sizeof(kOnnxDataTypeNames) / sizeof(char*));
  if (onnx_type >= 0 && onnx_type < count) return kOnnxDataTypeNames[onnx_type];
  return "type " + std::to_string(onnx_type);
}

}  // namespace webnx
