// ONNX TensorProtos -> Tensors for the ONNX loader (core/loaders/onnx_loader.cc): typed fields,
// raw_data (bool normalised), and raw_data adopted without a copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/status.h"
#include "core/tensor.h"
#include "onnx/onnx.pb.h"

namespace webnx {

constexpr int32_t kOnnxFloat16 = onnx::TensorProto_DataType_FLOAT16;
// Initializer raw_data of at least this many bytes stays in the model's bytes, moved to a
// boundary of this many.
constexpr size_t kMinDetachedBytes = 64;
constexpr size_t kDetachedAlignment = 16;

// A tensor's raw_data: in the parsed proto, or detached from it and left in the model's bytes
// (`owner` then keeps those alive).
struct RawData {
  bool present = false;
  const char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<void> owner;
};

RawData RawDataOf(const onnx::TensorProto& proto);

// MalformedModel / UnsupportedDtype with the loader's wording.
Status Malformed(const std::string& message);
Status UnsupportedDtype(int32_t onnx_type, const std::string& what);
// Values a proto stores in its typed field for its dtype.
int64_t StoredValueCount(const onnx::TensorProto& proto);

// The tensor from `raw` (when present) or the typed fields, checked against its shape first.
Status TensorFromProto(const onnx::TensorProto& proto, const RawData& raw, const std::string& what,
                       Tensor* out);
// The bytes of a tensor stored outside the model (data_location EXTERNAL), in the side file
// its external_data names ("location", "offset", "length"); `files` may be null.
Status ExternalRawData(const onnx::TensorProto& proto,
                       const std::map<std::string, std::string>* files, const std::string& what,
                       RawData* raw);
// An initializer's raw_data taken without a copy: left in the model's bytes (`raw.owner`), or
// moved out of the parsed proto. False when it cannot be (it is then converted by copying).
bool AdoptRawData(onnx::TensorProto* proto, const RawData& raw, Tensor* out);

}  // namespace webnx
