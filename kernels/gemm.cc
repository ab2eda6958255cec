// Gemm (Y = alpha * op(A) * op(B) + beta * C) and MatMul (numpy matmul) on the packed GEMM
// microkernels (kernels/packed_matmul.h); a classifier's few rows against a constant B^T on dot
// products (GemmTransposedRhs); GemmRef, the scalar reference, only past int32 sizes.
#include "kernels/simd/gemm.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "core/separate_function.h"
#include "kernels/gemm_ref.h"
#include "kernels/nn_common.h"
#include "kernels/packed_matmul.h"
#include "kernels/quant_fusion.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// A B replaced by its packed form (core/constant_cache.h) has no values left for GemmRef: a
// product too large for the packed kernels then fails with a clear error.
Status RequirePackedIfReplaced(const PlanContext& ctx, bool packed_or_empty) {
  if (packed_or_empty || !ctx.is_constant(1) || ctx.constant(1)) return Status::Ok();
  return ctx.Error(ErrorCode::kOutOfMemory,
                   "the product is too large for the packed kernels that its constant B was "
                   "packed for");
}

class GemmKernel : public Kernel {
 public:
  // A QDQ Gemm (kernels/quant_fusion.h) runs as an int8 product.
  bool ProposeFusion(const FusionContext& ctx, FusedNode* fused) const override {
    return quant::ProposeQdqMatMul(ctx, fused);
  }

  WEBNX_PLAN_TIME Status Plan(PlanContext& ctx) override {
    // C is optional only from version 11.
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(ctx.since_version() >= 11 ? 2 : 3, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    has_c_ = ctx.has_input(2);
    if (has_c_) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kFloat32}));
    epilogue_.accepts_clamp = true;  // every path clamps

    Attrs& attrs = ctx.attrs();
    trans_a_ = attrs.Int("transA", 0) != 0;
    trans_b_ = attrs.Int("transB", 0) != 0;
    alpha_ = attrs.Float("alpha", 1.f);
    beta_ = attrs.Float("beta", 1.f);
    attrs.Int("broadcast", 0);  // versions 1 and 6; unidirectional broadcasting is a superset
    WEBNX_RETURN_IF_ERROR(attrs.status());

    const Shape& a = ctx.shape(0);
    const Shape& b = ctx.shape(1);
    if (a.size() != 2 || b.size() != 2) {
      return ctx.Error(ErrorCode::kShapeMismatch, "inputs A " + ShapeToString(a) + " and B " +
                                                      ShapeToString(b) + " must both be 2-D");
    }
    m_ = trans_a_ ? a[1] : a[0];
    k_ = trans_a_ ? a[0] : a[1];
    const int64_t kb = trans_b_ ? b[1] : b[0];
    n_ = trans_b_ ? b[0] : b[1];
    if (k_ != kb) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "inner dimensions differ: op(A) is " + std::to_string(m_) + "x" +
                           std::to_string(k_) + ", op(B) is " + std::to_string(kb) + "x" +
                           std::to_string(n_) + " (transA=" + std::to_string(trans_a_) +
                           ", transB=" + std::to_string(trans_b_) + ")");
    }
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {m_, n_}, "output"));
    if (has_c_) WEBNX_RETURN_IF_ERROR(PlanBias(ctx));
    PlanDotPath(ctx);
    if (!dot_path_ && product_.Plan(m_, n_, k_, trans_a_, trans_b_, ctx.threads()))
      WEBNX_RETURN_IF_ERROR(product_.Allocate(ctx));
    WEBNX_RETURN_IF_ERROR(RequirePackedIfReplaced(ctx, dot_path_ || product_.planned() || m_ == 0));
    ctx.SetOutput(0, DType::kFloat32, {m_, n_});
    return Status::Ok();
  }

  // A constant B is read packed (PackedMatMul::RhsForm) for every shape of A.
  void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const override {
    PackedMatMul::DeclareRhsForm(ctx, ctx.attrs().Int("transB", 0) != 0, forms);
  }

  Epilogue* epilogue() override { return &epilogue_; }

  Status Run(RunContext& ctx) override {
    if (dot_path_) {
      simd::GemmEpilogue ep;
      ep.bias = dot_bias_.empty() ? nullptr : dot_bias_.data();
      ep.min = epilogue_.clamp_lo;
      ep.max = epilogue_.clamp_hi;
      const int k = static_cast<int>(k_);
      // Column chunks of the output (rows of the weight) are independent.
      constexpr int64_t kChunk = 64;
      const float* a = ctx.input(0).ptr<float>();
      const float* w = ctx.input(1).ptr<float>();
      float* out = ctx.output(0).ptr<float>();
      ctx.ParallelFor((n_ + kChunk - 1) / kChunk, [&](int64_t c, int) {
        const int64_t j0 = c * kChunk;
        simd::GemmEpilogue chunk = ep;
        if (chunk.bias) chunk.bias += j0;
        simd::GemmTransposedRhs(static_cast<int>(m_), static_cast<int>(std::min(kChunk, n_ - j0)),
                                k, a, k, w + j0 * k, k, out + j0, static_cast<int>(n_), chunk);
      });
      return Status::Ok();
    }
    RunGeneral(ctx);
    return Status::Ok();
  }

 private:
  // The classifier shape of every vision model: Y = A * B^T + c with few rows of A, B a
  // constant row-major weight and c a constant per-column bias. Dot products of contiguous rows.
  void PlanDotPath(PlanContext& ctx) {
    dot_path_ = false;
    dot_bias_.clear();
    const bool small = m_ < 4 && n_ < INT32_MAX && k_ < INT32_MAX;
    if (trans_a_ || !trans_b_ || alpha_ != 1.f || !small || ctx.constant(1) == nullptr) return;
    if (has_c_ && beta_ != 0.f) {
      const Tensor* c = ctx.constant(2);
      if (!c || c_row_stride_ != 0) return;  // per-row bias: take the general path
      dot_bias_.resize(n_);
      for (int64_t j = 0; j < n_; ++j) dot_bias_[j] = beta_ * c->ptr<float>()[j * c_col_stride_];
    }
    dot_path_ = true;
  }

  void RunGeneral(RunContext& ctx) {
    const float* a = ctx.input(0).ptr<float>();
    const float* b = ctx.input(1).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const bool add_c = has_c_ && beta_ != 0.f;
    if (add_c) FillBias(ctx.input(2).ptr<float>(), y);
    if (product_.planned()) {
      product_.Run(ctx, a, b, alpha_, add_c, epilogue_.clamp_lo, epilogue_.clamp_hi, y);
      return;
    }
    const int64_t lda = trans_a_ ? m_ : k_;
    const int64_t ldb = trans_b_ ? k_ : n_;
    GemmRef(trans_a_, trans_b_, m_, n_, k_, alpha_, a, lda, b, ldb, add_c ? 1.f : 0.f, y, n_);
    if (epilogue_.HasClamp()) {
      const float lo = epilogue_.clamp_lo, hi = epilogue_.clamp_hi;
      for (int64_t i = 0; i < m_ * n_; ++i) y[i] = std::min(std::max(y[i], lo), hi);
    }
  }

  // C broadcasts unidirectionally to [M, N]: each of its (at most two) dims is 1 or matches.
  Status PlanBias(PlanContext& ctx) {
    const Shape& c = ctx.shape(2);
    const Shape target = {m_, n_};
    bool ok = c.size() <= 2;
    for (size_t i = 0; ok && i < c.size(); ++i) {
      const int64_t want = target[2 - c.size() + i];
      ok = c[i] == 1 || c[i] == want;
    }
    if (!ok) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input C " + ShapeToString(c) +
                           " does not broadcast to [M, N] = " + ShapeToString(target));
    }
    const int64_t rows = c.size() == 2 ? c[0] : 1;
    const int64_t cols = c.empty() ? 1 : c.back();
    c_row_stride_ = rows == 1 ? 0 : cols;
    c_col_stride_ = cols == 1 ? 0 : 1;
    return Status::Ok();
  }

  void FillBias(const float* c, float* y) const {
    for (int64_t i = 0; i < m_; ++i) {
      const float* crow = c + i * c_row_stride_;
      float* yrow = y + i * n_;
      for (int64_t j = 0; j < n_; ++j) yrow[j] = beta_ * crow[j * c_col_stride_];
    }
  }

  bool trans_a_ = false;
  bool trans_b_ = false;
  bool has_c_ = false;
  float alpha_ = 1.f;
  float beta_ = 1.f;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  int64_t c_row_stride_ = 0, c_col_stride_ = 0;  // element strides of C over Y's rows/cols
  PackedMatMul product_;                         // the general path
  bool dot_path_ = false;                        // see PlanDotPath
  std::vector<float> dot_bias_;                  // beta * C per column, for the dot path
  Epilogue epilogue_;                            // fused Relu/Clip
};

// numpy matmul: 1-D operands are promoted (and the added dim removed from the result); the
// batch dims (all but the last two) broadcast.
class MatMulKernel : public Kernel {
 public:
  bool ProposeFusion(const FusionContext& ctx, FusedNode* fused) const override {
    return quant::ProposeQdqMatMul(ctx, fused);
  }

  WEBNX_PLAN_TIME Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    const Shape& a_in = ctx.shape(0);
    const Shape& b_in = ctx.shape(1);
    if (a_in.empty() || b_in.empty()) {
      return ctx.Error(ErrorCode::kShapeMismatch, "inputs must have rank >= 1, got A " +
                                                      ShapeToString(a_in) + " and B " +
                                                      ShapeToString(b_in));
    }
    // Promote 1-D operands to matrices.
    Shape a = a_in.size() == 1 ? Shape{1, a_in[0]} : a_in;
    Shape b = b_in.size() == 1 ? Shape{b_in[0], 1} : b_in;
    m_ = a[a.size() - 2];
    k_ = a.back();
    n_ = b.back();
    if (b[b.size() - 2] != k_) {
      return ctx.Error(
          ErrorCode::kShapeMismatch,
          "inner dimensions differ: A " + ShapeToString(a_in) + " x B " + ShapeToString(b_in));
    }
    Shape a_batch(a.begin(), a.end() - 2);
    Shape b_batch(b.begin(), b.end() - 2);
    Shape batch;
    WEBNX_RETURN_IF_ERROR(BroadcastBatch(ctx, a_batch, b_batch, &batch));

    Shape out = batch;
    if (a_in.size() > 1) out.push_back(m_);
    if (b_in.size() > 1) out.push_back(n_);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, DType::kFloat32, out);
    // An empty output needs no work; otherwise its batch, M and N bound everything below.
    skip_run_ = nn::DimProduct(out, 0, out.size()) == 0;
    if (skip_run_) return Status::Ok();
    PlanBatches(a_batch, b_batch, batch);
    const int64_t rows = fold_batches_ ? batches_ * m_ : m_;
    if (product_.Plan(rows, n_, k_, false, false, ctx.threads()))
      WEBNX_RETURN_IF_ERROR(product_.Allocate(ctx));
    return RequirePackedIfReplaced(ctx, product_.planned());
  }

  // A constant 2-D B is read packed (PackedMatMul::RhsForm) for every shape of A.
  void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const override {
    PackedMatMul::DeclareRhsForm(ctx, false, forms);
  }

  Status Run(RunContext& ctx) override {
    const float* a = ctx.input(0).ptr<float>();
    const float* b = ctx.input(1).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    if (skip_run_) return Status::Ok();
    if (fold_batches_) {
      Product(ctx, batches_ * m_, a, b, y);
      return Status::Ok();
    }
    std::fill(index_.begin(), index_.end(), 0);
    int64_t a_off = 0, b_off = 0;
    for (int64_t i = 0; i < batches_; ++i) {
      Product(ctx, m_, a + a_off, b + b_off, y + i * m_ * n_);
      for (size_t d = index_.size(); d-- > 0;) {
        a_off += a_strides_[d];
        b_off += b_strides_[d];
        if (++index_[d] < batch_dims_[d]) break;
        a_off -= a_strides_[d] * batch_dims_[d];
        b_off -= b_strides_[d] * batch_dims_[d];
        index_[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  // One rows x n product of row-major matrices.
  void Product(const RunContext& ctx, int64_t rows, const float* a, const float* b, float* y) {
    if (product_.planned()) {
      product_.Run(ctx, a, b, 1.f, false, -INFINITY, INFINITY, y);
    } else {
      GemmRef(false, false, rows, n_, k_, 1.f, a, k_, b, n_, 0.f, y, n_);
    }
  }

  static Status BroadcastBatch(const PlanContext& ctx, const Shape& a, const Shape& b, Shape* out) {
    const size_t rank = std::max(a.size(), b.size());
    out->assign(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
      const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
      if (da != db && da != 1 && db != 1) {
        return ctx.Error(ErrorCode::kShapeMismatch, "batch dims " + ShapeToString(a) + " and " +
                                                        ShapeToString(b) + " do not broadcast");
      }
      (*out)[i] = da == 1 ? db : da;
    }
    return Status::Ok();
  }

  // Strides (in elements, 0 where broadcast) of A's and B's matrices over the output batch
  // dims; Run walks them with an odometer.
  void PlanBatches(const Shape& a_batch, const Shape& b_batch, const Shape& batch) {
    batch_dims_ = batch;
    batches_ = nn::DimProduct(batch, 0, batch.size());
    // A single B shared by every batch: the batches of A stack into one tall matrix.
    fold_batches_ = nn::DimProduct(b_batch, 0, b_batch.size()) == 1;
    const size_t rank = batch.size();
    a_strides_.assign(rank, 0);
    b_strides_.assign(rank, 0);
    index_.assign(rank, 0);
    int64_t a_stride = m_ * k_, b_stride = k_ * n_;
    for (size_t i = rank; i-- > 0;) {
      if (i >= rank - a_batch.size()) {
        const int64_t d = a_batch[i - (rank - a_batch.size())];
        a_strides_[i] = d == 1 ? 0 : a_stride;
        a_stride *= d;
      }
      if (i >= rank - b_batch.size()) {
        const int64_t d = b_batch[i - (rank - b_batch.size())];
        b_strides_[i] = d == 1 ? 0 : b_stride;
        b_stride *= d;
      }
    }
  }

  int64_t m_ = 0, n_ = 0, k_ = 0;
  bool skip_run_ = false;
  bool fold_batches_ = false;
  int64_t batches_ = 0;
  Shape batch_dims_;
  std::vector<int64_t> a_strides_, b_strides_;
  std::vector<int64_t> index_;  // batch odometer
  PackedMatMul product_;        // unless a size passes int32
};

}  // namespace

void RegisterGemmKernels(OpRegistry& r) {
  // 11 made C optional.
  r.Register("", "Gemm",
             {{{1, 6, 7, 9}, Inputs(3), Outputs(1)}, {{11, 13}, Inputs(2, 3), Outputs(1)}},
             MakeKernel<GemmKernel>);
  r.Register("", "MatMul", {{1, 9, 13}, Inputs(2), Outputs(1)}, MakeKernel<MatMulKernel>);
}

}  // namespace webnx
