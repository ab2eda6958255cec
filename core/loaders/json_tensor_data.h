// Tensor contents from JSON documents: number arrays, raw little-endian bytes (decoded base64)
// and byte ranges of side files. Counts and bounds are checked before anything is allocated,
// so a huge declared shape with little data is MalformedModel, never an allocation attempt.
#pragma once

#include <cstdint>
#include <string>

#include "core/loaders/json_loader.h"
#include "core/loaders/json_values.h"

namespace webnx {
namespace jsonl {

// How elements are stored in the document, as ONNX TensorProto.DataType codes: every numeric
// type (the DType of the same number). float16 is widened to float32 at load.
constexpr int32_t kStoredFloat = 1;
constexpr int32_t kStoredUint8 = 2;
constexpr int32_t kStoredInt8 = 3;
constexpr int32_t kStoredUint16 = 4;
constexpr int32_t kStoredInt16 = 5;
constexpr int32_t kStoredInt32 = 6;
constexpr int32_t kStoredInt64 = 7;
constexpr int32_t kStoredBool = 9;
constexpr int32_t kStoredFloat16 = 10;
constexpr int32_t kStoredDouble = 11;
constexpr int32_t kStoredUint32 = 12;
constexpr int32_t kStoredUint64 = 13;

// A numeric type; anything else (strings, bfloat16, float8, 4-bit) is UnsupportedDtype.
Status CheckStoredType(int32_t type, const std::string& pointer);
// Bytes per stored element.
size_t StoredSize(int32_t type);

// Element count of a concrete shape; MalformedModel on negative dims or overflow.
Status CheckedNumel(const Shape& shape, const std::string& pointer, int64_t* numel);

Status TensorFromBytes(int32_t type, const Shape& shape, const char* bytes, size_t size,
                       const std::string& pointer, Tensor* out);

// From JSON values: an array (flat, or nested in row-major order) or one bare value. With
// `half_bits`, float16 elements are their bit patterns (ONNX int32_data), else numbers.
Status TensorFromValues(int32_t type, const Shape& shape, const Json& values,
                        const std::string& pointer, bool half_bits, Tensor* out);

// `length` < 0: exactly the bytes the shape needs, starting at `offset`.
Status TensorFromFile(int32_t type, const Shape& shape, const JsonExternalFiles& files,
                      const std::string& file, int64_t offset, int64_t length,
                      const std::string& pointer, Tensor* out);

}  // namespace jsonl
}  // namespace webnx
