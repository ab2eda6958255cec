// Einsum (12) on float32, int32 and int64: the program planned once per plan
// (kernels/einsum_plan.h) run step by step: strided gathers (permutations, diagonals, sums)
// and batched products: float32 ones on the packed SIMD GEMM (kernels/simd/gemm.h), integer
// ones (wrapping), tiny float ones and those past the GEMM's int sizes on a scalar loop.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/binary_common.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/einsum_plan.h"
#include "kernels/registrations.h"
#include "kernels/simd/gemm.h"

namespace webnx {
namespace {

using einsum::GatherStep;
using einsum::GemmStep;
using einsum::Slot;

// Float products with fewer multiply-adds than this stay scalar: packing costs more.
constexpr int64_t kPackedMinWork = 4096;

// Calls run(offset, count, stride) for each run along the innermost of `rank` dims (row-major),
// `offset` the source offset of the run's first element. No dims: one run of one element.
template <typename RunFn>
void ForEachRun(const int64_t* extents, const int64_t* strides, int rank, int64_t* counter,
                RunFn&& run) {
  if (rank == 0) return run(int64_t{0}, int64_t{1}, int64_t{0});
  int64_t runs = 1;
  for (int d = 0; d < rank; ++d) runs *= extents[d];
  if (runs == 0) return;
  runs /= extents[rank - 1];
  std::fill(counter, counter + rank, 0);
  int64_t offset = 0;
  for (int64_t r = 0; r < runs; ++r) {
    run(offset, extents[rank - 1], strides[rank - 1]);
    for (int d = rank - 2; d >= 0; --d) {
      if (++counter[d] < extents[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (extents[d] - 1);
      counter[d] = 0;
    }
  }
}

template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return binary::WrapAdd(a, b);
  return a + b;
}
template <typename T>
T Mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return binary::WrapMul(a, b);
  return a * b;
}

// Products the packed SIMD GEMM takes: every index fits an int, and enough work to pay for
// the packing.
bool Packable(const GemmStep& g) {
  const int64_t limit = INT_MAX / 2;
  return g.m < limit && g.n < limit && g.k < limit && g.m * g.k < limit && g.n * g.k < limit &&
         g.m * g.n < limit && g.m * g.n * g.k >= kPackedMinWork;
}

class EinsumKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    // float32 and float64 only: integer einsums are rare in models, and each element type cost
    // the wasm module another copy of every product and gather loop.
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat64}));
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      WEBNX_RETURN_IF_ERROR(binary::ExpectSameDType(ctx, 0, i));
      shapes.push_back(ctx.shape(i));
    }
    if (!ctx.attrs().Has("equation")) {
      return ctx.Error(ErrorCode::kMalformedModel, "required attribute 'equation' is missing");
    }
    const std::string equation = ctx.attrs().String("equation", "");
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    WEBNX_RETURN_IF_ERROR(einsum::PlanEinsum(ctx, equation, shapes, &program_));
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, program_.output_shape);
    return Allocate(ctx);
  }

  Status Run(RunContext& ctx) override {
    if (dtype_ == DType::kFloat64) return RunAs<double>(ctx);
    return RunAs<float>(ctx);
  }

 private:
  template <typename T>
  Status RunAs(RunContext& ctx) {
    for (const einsum::Step& step : program_.steps) {
      if (step.is_gemm) {
        const GemmStep& g = step.gemm;
        Product(ctx, g, Read<T>(ctx, g.a), Read<T>(ctx, g.b), Write<T>(ctx, g.c));
      } else {
        const GatherStep& g = step.gather;
        Gather(g, Read<T>(ctx, g.src), Write<T>(ctx, g.dst));
      }
    }
    return Status::Ok();
  }

  // The intermediate buffers, the odometers and the packed GEMM's scratch, all sized here.
  Status Allocate(const PlanContext& ctx) {
    buffers_.assign(program_.buffer_sizes.size(), Tensor());
    for (size_t i = 0; i < buffers_.size(); ++i) {
      const Status s =
          Tensor::AllocateUninitialized(dtype_, {program_.buffer_sizes[i]}, &buffers_[i]);
      if (!s.ok()) return ctx.Error(s.code(), "Einsum intermediate: " + s.message());
    }
    size_t rank = 0;
    int64_t lhs = 0, rhs = 0;
    for (const einsum::Step& step : program_.steps) {
      rank = std::max(rank, step.gather.extents.size());
      const GemmStep& g = step.gemm;
      if (!step.is_gemm || dtype_ != DType::kFloat32 || !Packable(g)) continue;
      const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
      const int block = std::min(simd::GemmColumnBlock(k), (n + 7) / 8 * 8);
      lhs = std::max(lhs, g.batch * static_cast<int64_t>(simd::PackedLhsSize(m, k)));
      rhs = std::max(rhs, static_cast<int64_t>(simd::PackedRhsSize(k, block)));
    }
    kept_counter_.assign(rank, 0);
    summed_counter_.assign(rank, 0);
    packed_b_stride_ = rhs;
    Status s = Tensor::AllocateUninitialized(DType::kFloat32, {lhs}, &packed_a_);
    if (s.ok())
      s = Tensor::AllocateUninitialized(DType::kFloat32, {rhs * ctx.threads()}, &packed_b_);
    return s.ok() ? s : ctx.Error(s.code(), "Einsum GEMM scratch: " + s.message());
  }

  template <typename T>
  const T* Read(RunContext& ctx, Slot s) {
    if (s.kind == Slot::Kind::kInput) return ctx.input(s.index).ptr<T>();
    return Write<T>(ctx, s);
  }
  template <typename T>
  T* Write(RunContext& ctx, Slot s) {
    if (s.kind == Slot::Kind::kOutput) return ctx.output(0).ptr<T>();
    return buffers_[s.index].ptr<T>();
  }

  // dst[kept dims] = sum over the other dims of src, each dim at its stride.
  template <typename T>
  void Gather(const GatherStep& g, const T* src, T* dst) {
    const int summed = static_cast<int>(g.extents.size()) - g.kept;
    const int64_t* sum_extents = g.extents.data() + g.kept;
    const int64_t* sum_strides = g.strides.data() + g.kept;
    int64_t written = 0;
    ForEachRun(g.extents.data(), g.strides.data(), g.kept, kept_counter_.data(),
               [&](int64_t offset, int64_t count, int64_t stride) {
                 for (int64_t j = 0; j < count; ++j) {
                   const T* base = src + offset + j * stride;
                   if (summed == 0) {
                     dst[written++] = *base;
                     continue;
                   }
                   T sum = 0;
                   ForEachRun(sum_extents, sum_strides, summed, summed_counter_.data(),
                              [&](int64_t at, int64_t n, int64_t step) {
                                for (int64_t q = 0; q < n; ++q) sum = Add(sum, base[at + q * step]);
                              });
                   dst[written++] = sum;
                 }
               });
  }

  template <typename T>
  void Product(const RunContext& ctx, const GemmStep& g, const T* a, const T* b, T* c) {
    if (g.batch == 0 || g.m == 0 || g.n == 0) return;
    if (g.k == 0) {
      std::fill(c, c + g.batch * g.m * g.n, T(0));
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      if (Packable(g)) return PackedProduct(ctx, g, a, b, c);
    }
    // Strides of A's rows and columns (A is m x k) and of B's (k x n) as stored.
    const int64_t a_row = g.trans_a ? 1 : g.k, a_col = g.trans_a ? g.m : 1;
    const int64_t b_row = g.trans_b ? 1 : g.n, b_col = g.trans_b ? g.k : 1;
    for (int64_t bi = 0; bi < g.batch; ++bi) {
      const T* ab = a + bi * g.m * g.k;
      const T* bb = b + bi * g.k * g.n;
      T* cb = c + bi * g.m * g.n;
      for (int64_t i = 0; i < g.m; ++i) {
        for (int64_t j = 0; j < g.n; ++j) {
          T sum = 0;
          for (int64_t p = 0; p < g.k; ++p)
            sum = Add(sum, Mul(ab[i * a_row + p * a_col], bb[p * b_row + j * b_col]));
          cb[i * g.n + j] = sum;
        }
      }
    }
  }

  // Every batch item's A packed first; then tasks of one column block of one item's B, packed
  // into the thread's scratch and multiplied.
  void PackedProduct(const RunContext& ctx, const GemmStep& g, const float* a, const float* b,
                     float* c) {
    const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
    const int64_t lhs = static_cast<int64_t>(simd::PackedLhsSize(m, k));
    float* packed_a = packed_a_.ptr<float>();
    ctx.ParallelFor(g.batch, [&](int64_t bi, int) {
      const float* ab = a + bi * m * k;
      if (g.trans_a) {
        simd::PackLhsTransposed(ab, m, k, m, packed_a + bi * lhs);
      } else {
        simd::PackLhs(ab, m, k, k, packed_a + bi * lhs);
      }
    });
    const int block = std::min(simd::GemmColumnBlock(k), (n + 7) / 8 * 8);
    const int blocks = (n + block - 1) / block;
    ctx.ParallelFor(g.batch * blocks, [&](int64_t task, int slot) {
      const int64_t bi = task / blocks;
      const int j0 = static_cast<int>(task % blocks) * block;
      const int cols = std::min(block, n - j0);
      const float* bb = b + bi * k * n;
      float* packed_b = packed_b_.ptr<float>() + slot * packed_b_stride_;
      if (g.trans_b) {
        simd::PackRhsTransposed(bb + static_cast<int64_t>(j0) * k, k, cols, k, packed_b);
      } else {
        simd::PackRhs(bb + j0, k, cols, n, packed_b);
      }
      simd::GemmPacked(m, cols, k, packed_a + bi * lhs, packed_b, c + bi * m * n + j0, n,
                       simd::GemmEpilogue{});
    });
  }

  DType dtype_ = DType::kUndefined;
  einsum::Program program_;
  std::vector<Tensor> buffers_;
  std::vector<int64_t> kept_counter_, summed_counter_;  // the gathers' odometers
  Tensor packed_a_, packed_b_;  // the packed GEMM's: every item's A; a block of B per thread
  int64_t packed_b_stride_ = 0;
};

}  // namespace

void RegisterEinsumKernels(OpRegistry& r) {
  r.Register("", "Einsum", {{12}, Inputs::AtLeast(1), Outputs(1)}, MakeKernel<EinsumKernel>);
}

}  // namespace webnx
