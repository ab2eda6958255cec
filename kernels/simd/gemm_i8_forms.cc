// Either packed form of the int8 GEMM's operands behind one set of calls.
#include "kernels/simd/dot_i8.h"
#include "kernels/simd/gemm_i8.h"
#include "kernels/simd/gemm_i8_quads.h"

namespace webnx::simd {
namespace {

// The quads' rows hold uint8 where the engine's dot reads its second operand as uint8.
bool UnsignedRows() {
  return EngineDot() == DotKind::kUnsignedSecond;
}

}  // namespace

I8Form FastestForm() {
  return WEBNX_HAS_DOT_I8 && EngineDot() != DotKind::kNone ? I8Form::kQuads : I8Form::kPairs;
}

int64_t RowStrideBytes(I8Form form, int64_t k) {
  return form == I8Form::kQuads ? QuadRowStride(k) : PairedDepth(k) * 2;
}

int64_t RowsBytes(I8Form form, int64_t rows, int64_t k) {
  return (rows + kRowsOverread) * RowStrideBytes(form, k);
}

int64_t PanelsBytes(I8Form form, int64_t k, int64_t n) {
  return form == I8Form::kQuads ? ColumnPanels(n) * QuadPanelStride(k) : PanelsSize(k, n) * 2;
}

void PackRows(I8Form form, const void* src, DType dtype, int64_t rows, int64_t k, int64_t stride,
              ZeroPoints zero_points, void* dst) {
#if WEBNX_HAS_DOT_I8
  if (form == I8Form::kQuads) {
    PackRowsQuads(src, dtype, rows, k, stride, zero_points, UnsignedRows(),
                  static_cast<uint8_t*>(dst));
    return;
  }
#endif
  PackRowsI16(src, dtype, rows, k, stride, zero_points, static_cast<int16_t*>(dst));
}

void PackPanels(I8Form form, const void* src, DType dtype, int64_t k, int64_t n, int64_t stride,
                ZeroPoints zero_points, void* dst) {
#if WEBNX_HAS_DOT_I8
  if (form == I8Form::kQuads) {
    PackPanelsQuads(src, dtype, k, n, stride, zero_points, static_cast<uint8_t*>(dst));
    return;
  }
#endif
  PackPanelsI16(src, dtype, k, n, stride, zero_points, static_cast<int16_t*>(dst));
}

void Gemm(I8Form form, int64_t rows_count, int64_t k, const void* rows, const void* panels,
          int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out, int64_t ldo) {
#if WEBNX_HAS_DOT_I8
  if (form == I8Form::kQuads) {
    GemmQuads(rows_count, k, static_cast<const uint8_t*>(rows), static_cast<const uint8_t*>(panels),
              panel_begin, panel_end, n_total, out, ldo);
    return;
  }
#endif
  GemmI16(rows_count, PairedDepth(k), static_cast<const int16_t*>(rows),
          static_cast<const int16_t*>(panels), panel_begin, panel_end, n_total, out, ldo);
}

}  // namespace webnx::simd
