// Transpose: permutes dims. Dims of size 1 are dropped and dims that stay neighbours are merged
// at plan time, so most real permutations become a copy, a (batched) 2-D transpose (NCHW <->
// NHWC is a batch of [C, HW] transposes) or a short strided walk.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "kernels/dtype_dispatch.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// Copies element bits, so one instantiation serves every dtype of the same width.
template <typename Bits>
void Transpose2D(const Bits* in, Bits* out, int64_t rows, int64_t cols) {
  // Tiles keep both the reads and the writes within a few cache lines.
  constexpr int64_t kTile = 16;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t c = c0; c < c1; ++c) {
        Bits* dst = out + c * rows;
        for (int64_t r = r0; r < r1; ++r) dst[r] = in[r * cols + c];
      }
    }
  }
}

class TransposeKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    const Shape& in = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> perm(rank);
    for (int64_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
    perm = ctx.attrs().Ints("perm", perm);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    WEBNX_RETURN_IF_ERROR(CheckPermutation(ctx, perm, rank));

    Shape out(rank);
    for (int64_t i = 0; i < rank; ++i) out[i] = in[perm[i]];
    ctx.SetOutput(0, ctx.dtype(0), out);
    elem_size_ = DTypeSize(ctx.dtype(0));
    Collapse(in, perm);
    return Status::Ok();
  }

  // A transpose with its permutation given (without one it depends on the input's rank).
  bool IsTranspose(FormContext& ctx, std::vector<int64_t>* perm) const override {
    if (!ctx.attrs().Has("perm")) return false;
    *perm = ctx.attrs().Ints("perm");
    return ctx.attrs().status().ok() && !perm->empty();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    if (x.numel() == 0) return Status::Ok();
    DispatchBySize(elem_size_, [&](auto tag) {
      using T = decltype(tag);
      Copy(x.ptr<T>(), y.ptr<T>());
    });
    return Status::Ok();
  }

 private:
  static Status CheckPermutation(const PlanContext& ctx, const std::vector<int64_t>& perm,
                                 int64_t rank) {
    std::string text;
    for (int64_t p : perm) text += (text.empty() ? "" : ",") + std::to_string(p);
    if (static_cast<int64_t>(perm.size()) != rank) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "perm [" + text + "] has " + std::to_string(perm.size()) +
                           " entries for an input of rank " + std::to_string(rank));
    }
    std::vector<bool> seen(rank, false);
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[p]) {
        return ctx.Error(
            ErrorCode::kMalformedModel,
            "perm [" + text + "] is not a permutation of 0.." + std::to_string(rank - 1));
      }
      seen[p] = true;
    }
    return Status::Ok();
  }

  // Reduces (in shape, perm) to the fewest dims that move the same elements: size-1 dims are
  // dropped and output neighbours that are input neighbours in order are merged.
  void Collapse(const Shape& in, const std::vector<int64_t>& perm) {
    std::vector<int64_t> kept_index(in.size(), -1);  // input dim -> index among kept dims
    int64_t kept = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      if (in[d] != 1) kept_index[d] = kept++;
    }
    // Output order over the kept input dims.
    std::vector<int64_t> order;
    for (int64_t p : perm) {
      if (kept_index[p] >= 0) order.push_back(p);
    }
    // Output neighbours merge when they are input neighbours in order; only size-1 dims may
    // sit between them in the input, which does not break contiguity.
    std::vector<std::vector<int64_t>> groups;
    for (int64_t p : order) {
      if (!groups.empty() && kept_index[groups.back().back()] + 1 == kept_index[p]) {
        groups.back().push_back(p);
      } else {
        groups.push_back({p});
      }
    }
    // Collapsed input dims are the groups sorted by their first input dim.
    const int64_t n = static_cast<int64_t>(groups.size());
    std::vector<int64_t> group_size(n), by_input(n);
    for (int64_t g = 0; g < n; ++g) {
      group_size[g] = 1;
      for (int64_t p : groups[g]) group_size[g] *= in[p];
      by_input[g] = g;
    }
    std::sort(by_input.begin(), by_input.end(),
              [&](int64_t a, int64_t b) { return groups[a][0] < groups[b][0]; });
    // position of group g among collapsed input dims
    std::vector<int64_t> input_pos(n);
    for (int64_t i = 0; i < n; ++i) input_pos[by_input[i]] = i;
    std::vector<int64_t> in_dims(n), in_strides(n);
    for (int64_t i = 0; i < n; ++i) in_dims[i] = group_size[by_input[i]];
    int64_t stride = 1;
    for (int64_t i = n; i-- > 0;) {
      in_strides[i] = stride;
      stride *= in_dims[i];
    }
    numel_ = stride;

    // Output walk: dims in output order with the matching input strides.
    out_dims_.assign(n, 0);
    out_in_strides_.assign(n, 0);
    for (int64_t g = 0; g < n; ++g) {
      out_dims_[g] = group_size[g];
      out_in_strides_[g] = in_strides[input_pos[g]];
    }
    counter_.assign(n, 0);
    if (n <= 1) {
      kind_ = Kind::kCopy;
    } else if (n == 2) {
      kind_ = Kind::kTranspose2D;  // output [cols, rows] of input [rows, cols]
      batch_ = 1;
      rows_ = in_dims[0];
      cols_ = in_dims[1];
    } else if (n == 3 && input_pos[0] == 0) {
      kind_ = Kind::kBatched2D;  // perm [0, 2, 1]
      batch_ = in_dims[0];
      rows_ = in_dims[1];
      cols_ = in_dims[2];
    } else {
      kind_ = Kind::kGeneral;
    }
  }

  template <typename Bits>
  void Copy(const Bits* in, Bits* out) {
    switch (kind_) {
      case Kind::kCopy:
        std::memcpy(out, in, static_cast<size_t>(numel_) * sizeof(Bits));
        return;
      case Kind::kTranspose2D:
      case Kind::kBatched2D:
        for (int64_t b = 0; b < batch_; ++b) {
          Transpose2D(in + b * rows_ * cols_, out + b * rows_ * cols_, rows_, cols_);
        }
        return;
      case Kind::kGeneral:
        General(in, out);
        return;
    }
  }

  // Writes the output in order; the innermost output dim strides through the input.
  template <typename Bits>
  void General(const Bits* in, Bits* out) {
    const int64_t rank = static_cast<int64_t>(out_dims_.size());
    const int64_t inner = out_dims_[rank - 1];
    const int64_t inner_stride = out_in_strides_[rank - 1];
    std::fill(counter_.begin(), counter_.end(), 0);
    int64_t in_offset = 0;
    for (int64_t o = 0; o < numel_; o += inner) {
      const Bits* src = in + in_offset;
      Bits* dst = out + o;
      if (inner_stride == 1) {  // whole rows move (ShuffleNet's channel shuffle moves planes)
        std::memcpy(dst, src, static_cast<size_t>(inner) * sizeof(Bits));
      } else {
        for (int64_t i = 0; i < inner; ++i) dst[i] = src[i * inner_stride];
      }
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (++counter_[d] < out_dims_[d]) {
          in_offset += out_in_strides_[d];
          break;
        }
        counter_[d] = 0;
        in_offset -= out_in_strides_[d] * (out_dims_[d] - 1);
      }
    }
  }

  enum class Kind { kCopy, kTranspose2D, kBatched2D, kGeneral };
  Kind kind_ = Kind::kCopy;
  size_t elem_size_ = 0;
  int64_t numel_ = 0;
  int64_t batch_ = 1, rows_ = 1, cols_ = 1;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> out_in_strides_;
  std::vector<int64_t> counter_;
};

}  // namespace

void RegisterTransposeKernels(OpRegistry& r) {
  r.Register("", "Transpose", {{1, 13, 21}, Inputs(1), Outputs(1)}, MakeKernel<TransposeKernel>);
}

}  // namespace webnx
