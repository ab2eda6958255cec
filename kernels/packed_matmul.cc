#include "kernels/packed_matmul.h"

#include <algorithm>
#include <climits>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/simd/gemm.h"

namespace webnx {
namespace {

// Sizes the packed product takes: every index fits an int.
bool PackableSizes(int64_t m, int64_t n, int64_t k) {
  return m >= 1 && n >= 1 && k >= 1 && m < INT32_MAX / 2 && n < INT32_MAX / 2 &&
         k < INT32_MAX / 2 && m * k < INT32_MAX && n * k < INT32_MAX;
}

}  // namespace

bool PackedMatMul::Plan(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, int threads) {
  planned_ = false;
  packed_a_ = Tensor();
  packed_b_ = Tensor();
  if (!PackableSizes(m, n, k)) return false;
  m_ = static_cast<int>(m);
  n_ = static_cast<int>(n);
  k_ = static_cast<int>(k);
  trans_a_ = trans_a;
  trans_b_ = trans_b;
  threads_ = std::max(1, threads);
  block_ =
      std::min(simd::GemmColumnBlock(k_), (n_ + simd::kGemmNr - 1) / simd::kGemmNr * simd::kGemmNr);
  blocks_ = (n_ + block_ - 1) / block_;
  const nn::RowChunks chunks = nn::SplitRows(m_, blocks_, threads_);
  row_chunks_ = static_cast<int>(chunks.count);
  chunk_rows_ = static_cast<int>(chunks.rows);
  planned_ = true;
  return true;
}

ConstantForm PackedMatMul::RhsForm(int64_t k64, int64_t n64, bool trans_b) {
  const int k = static_cast<int>(k64), n = static_cast<int>(n64);
  ConstantForm form;
  form.input = 1;
  form.kind = trans_b ? "matmul-rhs-of-transposed" : "matmul-rhs";
  form.floats = simd::PackedRhsSize(k, n);
  form.derive = [k, n, trans_b](const float* from, float* to) {
    std::vector<float> copy;
    if (from == to && trans_b) {
      // Over B's own storage (n a multiple of 8): panel p is B's rows 8p..8p+7, written where
      // they were once they are copied out.
      const size_t panel = static_cast<size_t>(simd::kGemmNr) * k;
      copy.resize(panel);
      for (size_t at = 0; at < static_cast<size_t>(n) * k; at += panel) {
        std::copy(to + at, to + at + panel, copy.begin());
        simd::PackRhsTransposed(copy.data(), k, simd::kGemmNr, k, to + at);
      }
      return;
    }
    if (from == to) {  // over B's own storage: read a copy
      copy.assign(from, from + static_cast<size_t>(k) * n);
      from = copy.data();
    }
    if (trans_b) {
      simd::PackRhsTransposed(from, k, n, k, to);
    } else {
      simd::PackRhs(from, k, n, n, to);
    }
  };
  return form;
}

void PackedMatMul::DeclareRhsForm(const FormContext& ctx, bool trans_b,
                                  std::vector<ConstantForm>* forms) {
  const Tensor* b = ctx.constant(1);
  if (!b || b->dtype != DType::kFloat32 || b->shape.size() != 2) return;
  const int64_t k = trans_b ? b->shape[1] : b->shape[0];
  const int64_t n = trans_b ? b->shape[0] : b->shape[1];
  if (PackableSizes(1, n, k)) forms->push_back(RhsForm(k, n, trans_b));
}

Status PackedMatMul::Allocate(const PlanContext& ctx) {
  constexpr int b_input = 1;
  constant_b_ = Tensor();
  WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
      DType::kFloat32, {static_cast<int64_t>(simd::PackedLhsSize(m_, k_))}, &packed_a_));
  int64_t b_numel = 0;
  if (ctx.is_constant(b_input) && ctx.dtype(b_input) == DType::kFloat32 &&
      ShapeNumel(ctx.shape(b_input), &b_numel) && b_numel == static_cast<int64_t>(k_) * n_) {
    DerivedForm packed;
    WEBNX_RETURN_IF_ERROR(ctx.Form(RhsForm(k_, n_, trans_b_), &packed));
    constant_b_ = packed.head;
  }
  const int64_t per_thread = static_cast<int64_t>(simd::PackedRhsSize(k_, block_));
  return Tensor::AllocateUninitialized(DType::kFloat32, {per_thread * threads_}, &packed_b_);
}

void PackedMatMul::Run(const RunContext& ctx, const float* a, const float* b, float alpha,
                       bool accumulate, float lo, float hi, float* c) {
  float* pa = packed_a_.ptr<float>();
  if (trans_a_) {
    simd::PackLhsTransposed(a, m_, k_, m_, pa);
  } else {
    simd::PackLhs(a, m_, k_, k_, pa);
  }
  if (alpha != 1.f) {
    const size_t floats = simd::PackedLhsSize(m_, k_);
    for (size_t i = 0; i < floats; ++i) pa[i] *= alpha;
  }
  const size_t per_thread = simd::PackedRhsSize(k_, block_);
  ctx.ParallelFor(static_cast<int64_t>(blocks_) * row_chunks_, [&](int64_t task, int slot) {
    const int j0 = static_cast<int>(task / row_chunks_) * block_;
    const int cols = std::min(block_, n_ - j0);
    const int row0 = static_cast<int>(task % row_chunks_) * chunk_rows_;
    const int rows = std::min(chunk_rows_, m_ - row0);
    const float* pb;
    if (constant_b_.data) {
      pb = constant_b_.ptr<float>() + static_cast<size_t>(j0) * k_;  // panel j0 / 8 on
    } else {
      float* scratch = packed_b_.ptr<float>() + slot * per_thread;
      if (trans_b_) {
        simd::PackRhsTransposed(b + static_cast<size_t>(j0) * k_, k_, cols, k_, scratch);
      } else {
        simd::PackRhs(b + j0, k_, cols, n_, scratch);
      }
      pb = scratch;
    }
    float* out = c + static_cast<size_t>(row0) * n_ + j0;
    simd::GemmEpilogue ep;
    ep.min = lo;
    ep.max = hi;
    ep.addend = accumulate ? out : nullptr;  // each element is read before it is written
    simd::GemmPacked(rows, cols, k_, pa + static_cast<size_t>(row0) * k_, pb, out, n_, ep);
  });
}

}  // namespace webnx
