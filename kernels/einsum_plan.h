// Einsum's plan (kernels/einsum.cc runs it): the equation parsed against the operand shapes and
// turned, once per plan, into a short program of two kinds of steps over strided views:
//  - a gather: a permutation of a view into a dense buffer, summing the dims it drops (a
//    repeated label reads the diagonal: its dims' strides add up; a broadcast dim has stride 0);
//  - a batched matrix product C[b] = A[b] B[b] of dense operands, A optionally stored
//    transposed (k x m), B too (n x k).
// Operands contract left to right, two at a time: labels both share and something later needs
// are the batch, labels both share and nothing later needs are summed by the product, a label
// only one of them has is summed before (a gather) unless needed later. An operand already laid
// out as the product reads it is used in place; the last product writes the output directly
// when its order allows (swapping the operands when that gives the output's order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel.h"

namespace webnx::einsum {

// Labels: 'A'-'Z' are 0-25 and 'a'-'z' 26-51 (label order is ASCII order); the dims an ellipsis
// stands for are kLetters + i, right-aligned under the widest ellipsis (numpy broadcasting).
constexpr int kLetters = 52;

struct Equation {
  std::vector<std::vector<int>> operands;  // each operand's dims' labels
  std::vector<int> output;                 // the output's dims' labels
  std::vector<int64_t> extents;            // per label (broadcast over its dims), -1 when unused
};

// Parses `equation` (spaces allowed) for operands of the given shapes (kernels/einsum_parse.cc).
// Errors (a bad character or ellipsis, a rank or dim that does not match its labels, an output
// label no input has or one repeated, a term count that is not the input count) name the node.
Status ParseEquation(const PlanContext& ctx, std::string equation, const std::vector<Shape>& shapes,
                     Equation* eq);

// Where a step reads or writes: input i (i >= 0), the node's output, or a scratch buffer.
struct Slot {
  enum class Kind { kInput, kOutput, kBuffer };
  Kind kind = Kind::kInput;
  int index = 0;  // the input or buffer
};

// dst (dense, row-major over the first `kept` dims) = sum over the other dims of src, each dim
// read at its element stride in src.
struct GatherStep {
  Slot src, dst;
  std::vector<int64_t> extents;
  std::vector<int64_t> strides;
  int kept = 0;
};

// For b < batch: C[b] (m x n) = A[b] (m x k, or k x m when trans_a) times B[b] (k x n, or n x k
// when trans_b); all dense, each batch item right after the previous one.
struct GemmStep {
  Slot a, b, c;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool trans_a = false, trans_b = false;
};

struct Step {
  bool is_gemm = false;
  GatherStep gather;
  GemmStep gemm;
};

struct Program {
  std::vector<Step> steps;
  std::vector<int64_t> buffer_sizes;  // elements of each scratch buffer
  Shape output_shape;
};

// Parses `equation` for operands of the given shapes and plans its program.
Status PlanEinsum(const PlanContext& ctx, const std::string& equation,
                  const std::vector<Shape>& shapes, Program* program);

}  // namespace webnx::einsum
