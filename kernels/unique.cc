// Unique (11): the distinct elements (or slices along `axis`) of the input, sorted or in order of
// first occurrence, with the index of each one's first occurrence, the index of each input item
// among them, and their counts. How many there are is known only when run: the outputs are
// planned at their largest and the planner plans the rest per the shapes runs produce.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class UniqueKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    const Shape& x = ctx.shape(0);
    Attrs& attrs = ctx.attrs();
    const bool flatten = !attrs.Has("axis");
    const int64_t axis_attr = attrs.Int("axis", 0);
    sorted_ = attrs.Int("sorted", 1) != 0;
    WEBNX_RETURN_IF_ERROR(attrs.status());
    int64_t numel = 0;
    ShapeNumel(x, &numel);
    axis_ = 0;
    if (!flatten)
      WEBNX_RETURN_IF_ERROR(
          indexing::NormalizeAxis(ctx, axis_attr, static_cast<int64_t>(x.size()), &axis_));
    outer_ = flatten ? 1 : nn::DimProduct(x, 0, axis_);
    items_ = flatten ? numel : x[axis_];
    inner_ = flatten ? 1 : nn::DimProduct(x, axis_ + 1, x.size());
    dtype_ = ctx.dtype(0);
    compare_ = CompareFor(dtype_);
    y_shape_ = flatten ? Shape{numel} : x;
    ctx.SetOutputBound(0, dtype_, y_shape_);
    // indices and counts: one per distinct item at most; inverse_indices: one per item.
    for (int k = 1; k < 4; ++k) {
      if (k == 2)
        ctx.SetOutput(k, DType::kInt64, {items_});
      else
        ctx.SetOutputBound(k, DType::kInt64, {items_});
    }
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kInt64, {items_}, &order_));
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kInt64, {items_}, &remap_));
    return Tensor::AllocateUninitialized(DType::kInt64, {items_}, &rank_of_);
  }

  Status Run(RunContext& ctx) override {
    WriteOutputs(ctx, Group(ctx.input(0).data));
    return Status::Ok();
  }

 private:
  // Item a of x against item b: each is `outer` runs of `inner` values, `items` apart.
  struct Items {
    const void* x;
    int64_t outer, items, inner;
  };
  using CompareFn = int (*)(const Items&, int64_t a, int64_t b);

  template <typename T>
  static int CompareItems(const Items& it, int64_t a, int64_t b) {
    const T* x = static_cast<const T*>(it.x);
    for (int64_t o = 0; o < it.outer; ++o) {
      const T* pa = x + (o * it.items + a) * it.inner;
      const T* pb = x + (o * it.items + b) * it.inner;
      for (int64_t i = 0; i < it.inner; ++i) {
        if (pa[i] < pb[i]) return -1;
        if (pb[i] < pa[i]) return 1;
      }
    }
    return 0;
  }

  static CompareFn CompareFor(DType dtype) {
    CompareFn fn = nullptr;
    DispatchDType(dtype, [&](auto tag) { fn = &CompareItems<decltype(tag)>; });
    return fn;
  }

  // Sorts the items (ties by position, so each group starts at its first occurrence), then
  // numbers the groups in sorted order or in order of first occurrence: order_ holds the first
  // occurrence of each group, rank_of_ each item's group. Returns the group count. One sort
  // for every dtype (through compare_): Unique is rare, its code is not.
  int64_t Group(const void* x) {
    const Items items{x, outer_, items_, inner_};
    int64_t* order = order_.ptr<int64_t>();
    int64_t* group_of = rank_of_.ptr<int64_t>();
    for (int64_t i = 0; i < items_; ++i) order[i] = i;
    std::sort(order, order + items_, [&](int64_t a, int64_t b) {
      const int c = compare_(items, a, b);
      return c != 0 ? c < 0 : a < b;
    });
    int64_t groups = 0;
    for (int64_t i = 0; i < items_; ++i) {
      if (i == 0 || compare_(items, order[i - 1], order[i]) != 0) order[groups++] = order[i];
      group_of[order[i]] = groups - 1;  // order[i] is read before the slot may be overwritten
    }
    if (sorted_) return groups;
    // First-occurrence order: renumber the groups as the input meets them.
    int64_t* renumbered = remap_.ptr<int64_t>();
    std::sort(order, order + groups);
    for (int64_t g = 0; g < groups; ++g) renumbered[group_of[order[g]]] = g;
    for (int64_t i = 0; i < items_; ++i) group_of[i] = renumbered[group_of[i]];
    return groups;
  }

  void WriteOutputs(RunContext& ctx, int64_t groups) {
    const int64_t* first = order_.ptr<int64_t>();
    const int64_t* group_of = rank_of_.ptr<int64_t>();
    const size_t item_bytes = DTypeSize(dtype_) * static_cast<size_t>(inner_);
    const uint8_t* x = static_cast<const uint8_t*>(ctx.input(0).data);
    if (ctx.has_output(0)) {
      Tensor& y = ctx.output(0);
      for (int64_t o = 0; o < outer_; ++o)
        for (int64_t g = 0; g < groups; ++g)
          std::memcpy(y.ptr<uint8_t>() + (o * groups + g) * item_bytes,
                      x + (o * items_ + first[g]) * item_bytes, item_bytes);
      y.shape[y_shape_.size() == 1 ? 0 : axis_] = groups;
    }
    if (ctx.has_output(1)) {
      std::memcpy(ctx.output(1).data, first, groups * sizeof(int64_t));
      ctx.output(1).shape[0] = groups;
    }
    if (ctx.has_output(2)) std::memcpy(ctx.output(2).data, group_of, items_ * sizeof(int64_t));
    if (ctx.has_output(3)) {
      int64_t* counts = ctx.output(3).ptr<int64_t>();
      std::fill(counts, counts + groups, 0);
      for (int64_t i = 0; i < items_; ++i) ++counts[group_of[i]];
      ctx.output(3).shape[0] = groups;
    }
  }

  bool sorted_ = true;
  int64_t axis_ = 0, outer_ = 1, items_ = 0, inner_ = 1;
  DType dtype_ = DType::kUndefined;
  CompareFn compare_ = nullptr;
  Shape y_shape_;
  Tensor order_;    // the sorted items; then each group's first occurrence
  Tensor rank_of_;  // each item's group
  Tensor remap_;    // sorted group -> group in order of first occurrence
};

}  // namespace

void RegisterUniqueKernels(OpRegistry& r) {
  r.Register("", "Unique", {{11}, Inputs(1), Outputs(1, 4)}, MakeKernel<UniqueKernel>);
}

}  // namespace webnx
