// Depthwise integer convolution (one input channel per output channel, 2-D): the channel's
// plane widened to int16 minus its zero point, zero-padded and split by column phase
// (column j of phase p holds padded column j * stride + p), so that every tap of a row of
// outputs reads contiguous values whatever the stride and dilation. The phase planes' rows are
// then paired (row r beside row r + dilation, value by value), so that one i32x4.dot_i16x8_s
// adds two kernel rows' taps to four outputs: one instruction where widening products take
// three on x86 per half.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/nn_common.h"

namespace webnx::simd {

// Kernels up to 8x8 taps (larger depthwise convs take the GEMM).
constexpr int kMaxDepthwiseI8Taps = 64;

// The columns [begin, end) of a phase row that hold input columns (the rest is padding).
struct ColumnRange {
  int64_t begin, end;
};

struct DepthwiseI8Shape {
  nn::WindowAxis h, w;
  int64_t phase_cols = 0;           // of each phase row
  std::vector<ColumnRange> inside;  // of each phase's rows, found once
  int64_t plane_rows = 0;           // padded rows the pairs read
  int64_t pair_rows = 0;            // of each paired phase plane (pairs of int16)
  int64_t pair_step = 1;            // pair row i starts at padded row i * pair_step
  int64_t RowsScratch() const { return plane_rows * w.stride * phase_cols; }
  int64_t PairsSize() const { return w.stride * pair_rows * phase_cols * 2; }
};

// The paired phase planes' sizes for the axes.
DepthwiseI8Shape MakeDepthwiseI8Shape(const nn::WindowAxis& h, const nn::WindowAxis& w);

// One channel (`plane`: h.in x w.in bytes, uint8 or int8) minus `zero_point` as paired phase
// planes (PairsSize() values): pair row i of phase p holds, column by column, padded row
// r = i * pair_step's value then row r + h.dilation's, where column j of a phase-p row is padded
// column j * w.stride + p (0 in the padding). Only rows that start a pair an output row reads are
// paired: with stride 2, the even ones. `rows` is scratch of RowsScratch() values: the padded
// rows, each as its w.stride phase rows.
void FillPairedPlanes(const DepthwiseI8Shape& shape, const uint8_t* plane, DType dtype,
                      int32_t zero_point, int16_t* rows, int16_t* pairs);

// out[oh][ow] = sum over taps of planes(tap) * weights[tap] (int16, taps h.kernel x w.kernel),
// read from FillPairedPlanes' pairs.
void DepthwiseI16(const DepthwiseI8Shape& shape, const int16_t* pairs, const int16_t* weights,
                  int32_t* out);

}  // namespace webnx::simd
