// Cast and CastLike between every numeric dtype. Each element passes through one of three wide
// forms (double for the floats, int64 for the signed integers and bool, uint64 for the unsigned
// ones): one reading loop per source dtype and one writing loop per (wide form, target dtype),
// 12 + 36 small loops instead of 144 instantiated pairs.
//
// Conversions: integers narrow by wrapping (two's complement, as C++ and numpy do); floats to
// integers truncate toward zero and saturate at the target's range, NaN giving 0 (the spec leaves
// out-of-range values undefined; saturating is what wasm's trunc_sat does); anything to bool is
// `!= 0` (NaN is true); float16 rounds to nearest even (double goes through float first, as
// onnxruntime does), and overflows to infinity.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "core/float16.h"
#include "core/onnx_type_names.h"
#include "kernels/convert_elements.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

enum class Wide { kFloat, kSigned, kUnsigned };

union WideValue {
  double f;
  int64_t i;
  uint64_t u;
};

constexpr int64_t kChunk = 512;  // elements per pass through the stack buffer (4 KB)

Wide WideFormOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kFloat64:
      return Wide::kFloat;
    case DType::kUint8:
    case DType::kUint16:
    case DType::kUint32:
    case DType::kUint64:
      return Wide::kUnsigned;
    default:
      return Wide::kSigned;
  }
}

template <typename T>
void ReadAs(const void* src, int64_t n, WideValue* out) {
  const T* in = static_cast<const T*>(src);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      out[i].f = in[i];
    } else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
      out[i].u = in[i];
    } else {
      out[i].i = in[i];
    }
  }
}

void ReadHalves(const void* src, int64_t n, WideValue* out) {
  const uint16_t* in = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) out[i].f = HalfToFloat(in[i]);
}

using Reader = void (*)(const void*, int64_t, WideValue*);

Reader ReaderOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return &ReadAs<float>;
    case DType::kFloat64:
      return &ReadAs<double>;
    case DType::kFloat16:
      return &ReadHalves;
    case DType::kUint8:
      return &ReadAs<uint8_t>;
    case DType::kInt8:
      return &ReadAs<int8_t>;
    case DType::kUint16:
      return &ReadAs<uint16_t>;
    case DType::kInt16:
      return &ReadAs<int16_t>;
    case DType::kInt32:
      return &ReadAs<int32_t>;
    case DType::kInt64:
      return &ReadAs<int64_t>;
    case DType::kUint32:
      return &ReadAs<uint32_t>;
    case DType::kUint64:
      return &ReadAs<uint64_t>;
    case DType::kBool:
      return &ReadAs<bool>;
    case DType::kUndefined:
      break;
  }
  return nullptr;
}

// A float truncated toward zero into To's range; NaN gives 0.
template <typename To>
To SaturatedFromFloat(double v) {
  if (std::isnan(v)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
  if (v <= lo) return std::numeric_limits<To>::min();
  if (v >= hi) return std::numeric_limits<To>::max();
  return static_cast<To>(v);
}

template <typename To, Wide kFrom>
To FromWide(WideValue v) {
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kFrom == Wide::kFloat) return v.f != 0;
    return v.u != 0;  // the same bits as v.i
  } else if constexpr (std::is_floating_point_v<To>) {
    if constexpr (kFrom == Wide::kFloat) return static_cast<To>(v.f);
    if constexpr (kFrom == Wide::kSigned) return static_cast<To>(v.i);
    return static_cast<To>(v.u);
  } else {
    if constexpr (kFrom == Wide::kFloat) return SaturatedFromFloat<To>(v.f);
    return static_cast<To>(v.u);  // wraps: the low bits of the two's-complement value
  }
}

template <typename To, Wide kFrom>
void WriteAs(const WideValue* in, int64_t n, void* dst) {
  To* out = static_cast<To*>(dst);
  for (int64_t i = 0; i < n; ++i) out[i] = FromWide<To, kFrom>(in[i]);
}

template <Wide kFrom>
void WriteHalves(const WideValue* in, int64_t n, void* dst) {
  uint16_t* out = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; ++i) out[i] = FloatToHalf(FromWide<float, kFrom>(in[i]));
}

using Writer = void (*)(const WideValue*, int64_t, void*);

template <Wide kFrom>
Writer WriterFrom(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return &WriteAs<float, kFrom>;
    case DType::kFloat64:
      return &WriteAs<double, kFrom>;
    case DType::kFloat16:
      return &WriteHalves<kFrom>;
    case DType::kUint8:
      return &WriteAs<uint8_t, kFrom>;
    case DType::kInt8:
      return &WriteAs<int8_t, kFrom>;
    case DType::kUint16:
      return &WriteAs<uint16_t, kFrom>;
    case DType::kInt16:
      return &WriteAs<int16_t, kFrom>;
    case DType::kInt32:
      return &WriteAs<int32_t, kFrom>;
    case DType::kInt64:
      return &WriteAs<int64_t, kFrom>;
    case DType::kUint32:
      return &WriteAs<uint32_t, kFrom>;
    case DType::kUint64:
      return &WriteAs<uint64_t, kFrom>;
    case DType::kBool:
      return &WriteAs<bool, kFrom>;
    case DType::kUndefined:
      break;
  }
  return nullptr;
}

Writer WriterOf(DType from, DType to) {
  switch (WideFormOf(from)) {
    case Wide::kFloat:
      return WriterFrom<Wide::kFloat>(to);
    case Wide::kSigned:
      return WriterFrom<Wide::kSigned>(to);
    case Wide::kUnsigned:
      return WriterFrom<Wide::kUnsigned>(to);
  }
  return nullptr;
}

void ConvertWith(Reader read, Writer write, const void* src, size_t src_size, void* dst,
                 size_t dst_size, int64_t n) {
  const char* in = static_cast<const char*>(src);
  char* out = static_cast<char*>(dst);
  WideValue wide[kChunk];
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    read(in + start * src_size, count, wide);
    write(wide, count, out + start * dst_size);
  }
}

// Cast-1 named the target type with a string: the enum names ("FLOAT", "UINT8", ...).
int64_t FromCast1Name(const std::string& name) {
  for (int64_t t = 1; t < static_cast<int64_t>(std::size(kOnnxDataTypeNames)); ++t)
    if (name == kOnnxDataTypeNames[t]) return t;
  return -1;
}

// Cast to attribute 'to', or (CastLike) to the dtype of input 1.
class CastKernel final : public Kernel {
 public:
  explicit CastKernel(bool like = false) : like_(like) {}
  const char* DTypeAttribute() const override { return like_ ? nullptr : "to"; }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(like_ ? 2 : 1, like_ ? 2 : 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    from_ = ctx.dtype(0);
    if (like_) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(1));
      to_ = ctx.dtype(1);
    } else {
      int64_t to = 0;
      WEBNX_RETURN_IF_ERROR(ReadTarget(ctx, &to));
      if (to < 0 || to > std::numeric_limits<int32_t>::max() ||
          !IsSupportedDType(static_cast<int32_t>(to))) {
        return ctx.Error(ErrorCode::kUnsupportedDtype,
                         "Cast to " + OnnxDataTypeName(to) +
                             " is not supported (every numeric type is; strings, complex, "
                             "bfloat16 and the float8/4 types are not)");
      }
      to_ = static_cast<DType>(to);
    }
    read_ = ReaderOf(from_);
    write_ = WriterOf(from_, to_);
    ctx.SetOutput(0, to_, ctx.shape(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t n = x.numel();
    if (from_ == to_) {
      if (x.data != y.data && n > 0) std::memcpy(y.data, x.data, x.nbytes());
      return Status::Ok();
    }
    ConvertWith(read_, write_, x.data, DTypeSize(from_), y.data, DTypeSize(to_), n);
    return Status::Ok();
  }

 private:
  static Status ReadTarget(PlanContext& ctx, int64_t* to) {
    Attrs& attrs = ctx.attrs();
    if (!attrs.Has("to"))
      return ctx.Error(ErrorCode::kMalformedModel, "attribute 'to' is required");
    const Attribute* to_attr = ctx.node().attr("to");
    if (ctx.since_version() < 6 && to_attr && to_attr->type == Attribute::Type::kString) {
      *to = FromCast1Name(attrs.String("to", ""));
    } else {
      *to = attrs.Int("to", 0);
    }
    return attrs.status();
  }

  const bool like_;
  DType from_ = DType::kUndefined;
  DType to_ = DType::kUndefined;
  Reader read_ = nullptr;
  Writer write_ = nullptr;
};

}  // namespace

void ConvertElements(DType from, const void* src, DType to, void* dst, int64_t n) {
  ConvertWith(ReaderOf(from), WriterOf(from, to), src, DTypeSize(from), dst, DTypeSize(to), n);
}

void RegisterCastKernels(OpRegistry& r) {
  r.RegisterConversion({"", "Cast", "to"});
  r.Register("", "Cast", {{1, 6, 9, 13, 19, 21}, Inputs(1), Outputs(1)}, MakeKernel<CastKernel>);
  r.Register("", "CastLike", {{15, 19, 21}, Inputs(2), Outputs(1)},
             []() -> Kernel* { return new CastKernel(true); });
}

}  // namespace webnx
