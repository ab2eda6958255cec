// op(A) * op(B) for Gemm and MatMul on the packed GEMM microkernels (kernels/simd/gemm.h), as
// the 1x1 convs run: A packed once per product (alpha folded in); B packed once per session
// when it is a constant matrix, else a column block at a time by each task; the blocks (and,
// when they are fewer than the threads, chunks of rows) shared out over the threads.
#pragma once

#include <cstdint>
#include <vector>

#include "core/kernel.h"
#include "core/tensor.h"

namespace webnx {

class PackedMatMul {
 public:
  // Sizes the scratch for an m x k times k x n product (A stored k x m when trans_a, B stored
  // n x k when trans_b, both dense). False, with nothing allocated, when the product is empty
  // or has a size past int32: the caller keeps GemmRef. (Fewer rows than the tile's 4 still
  // gain: MatMul 1 x 768 x 3072 4.3 -> 1.3 ms, 2 x 768 x 768 2.0 -> 0.5 ms in wasm.)
  bool Plan(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, int threads);
  // Allocates the planned scratch, and takes B (the node's input 1, for Gemm and MatMul alike)
  // packed once per session when it is a constant holding one k x n (or, transposed, n x k)
  // matrix (RhsForm).
  Status Allocate(const PlanContext& ctx);
  // The form of a constant B, k x n (stored n x k when trans_b): packed whole as the GEMM's
  // right-hand panels.
  static ConstantForm RhsForm(int64_t k, int64_t n, bool trans_b);
  // Declares RhsForm for a Gemm or MatMul whose input 1 is a constant 2-D float32 B (stored
  // transposed when trans_b) of a size the packed product takes: the node then reads B in that
  // form for every input shape.
  static void DeclareRhsForm(const FormContext& ctx, bool trans_b,
                             std::vector<ConstantForm>* forms);
  bool planned() const { return planned_; }

  // C (m x n, rows n floats apart) = clamp(alpha * op(A) * op(B) + (accumulate ? C : 0)).
  void Run(const RunContext& ctx, const float* a, const float* b, float alpha, bool accumulate,
           float lo, float hi, float* c);

 private:
  bool planned_ = false;
  bool trans_a_ = false, trans_b_ = false;
  int m_ = 0, n_ = 0, k_ = 0;
  int block_ = 0;       // columns per block, a multiple of 8
  int blocks_ = 0;      // column blocks
  int row_chunks_ = 1;  // chunks of rows per block
  int chunk_rows_ = 0;  // rows per chunk, a multiple of 4
  int threads_ = 1;
  Tensor packed_a_;    // op(A) packed, times alpha
  Tensor packed_b_;    // a packed column block of op(B) per thread
  Tensor constant_b_;  // op(B) packed whole, when B is a constant matrix
};

}  // namespace webnx
