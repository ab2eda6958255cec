// Einsum's program, planned from the parsed equation (kernels/einsum_plan.h).
#include "kernels/einsum_plan.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/nn_common.h"

namespace webnx::einsum {
namespace {

// A value the program holds: its slot, its labels (each once) and their element strides.
struct View {
  Slot slot;
  std::vector<int> labels;
  std::vector<int64_t> strides;

  int64_t StrideOf(int label) const {
    const auto it = std::find(labels.begin(), labels.end(), label);
    return it == labels.end() ? -1 : strides[it - labels.begin()];
  }
  bool Has(int label) const { return StrideOf(label) >= 0; }
};

bool Contains(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

std::vector<int> Concat(std::vector<int> a, const std::vector<int>& b,
                        const std::vector<int>& c = {}) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

// Labels of a pair of operands by role in their product.
struct Roles {
  std::vector<int> batch, m, n, k;  // k: summed by the product
  std::vector<int> a_drop, b_drop;  // summed before it
};

Roles Classify(const View& a, const View& b, const std::vector<bool>& needed) {
  Roles r;
  for (int label : a.labels) {
    const bool shared = b.Has(label);
    auto& group = shared ? (needed[label] ? r.batch : r.k) : (needed[label] ? r.m : r.a_drop);
    group.push_back(label);
  }
  for (int label : b.labels) {
    if (!a.Has(label)) (needed[label] ? r.n : r.b_drop).push_back(label);
  }
  return r;
}

class Planner {
 public:
  Planner(const PlanContext& ctx, const Equation& eq, Program* program)
      : ctx_(ctx), eq_(eq), program_(program) {}

  // Input i as a view: a label repeated in its term reads the diagonal (the strides add up); a
  // dim of 1 under a longer label is broadcast (stride 0).
  View Input(int i, const Shape& shape) const {
    View v;
    v.slot = {Slot::Kind::kInput, i};
    const std::vector<int>& labels = eq_.operands[i];
    int64_t stride = 1;
    std::vector<int64_t> dim_strides(labels.size());
    for (size_t d = labels.size(); d-- > 0;) {
      dim_strides[d] = shape[d] == 1 ? 0 : stride;
      stride *= shape[d];
    }
    for (size_t d = 0; d < labels.size(); ++d) {
      const auto at = std::find(v.labels.begin(), v.labels.end(), labels[d]);
      if (at != v.labels.end()) {
        v.strides[at - v.labels.begin()] += dim_strides[d];
      } else {
        v.labels.push_back(labels[d]);
        v.strides.push_back(dim_strides[d]);
      }
    }
    return v;
  }

  // dst = v laid out densely in `order`, summed over its labels not in `order`.
  void Gather(const View& v, const std::vector<int>& order, Slot dst) {
    Step step;
    GatherStep& g = step.gather;
    g.src = v.slot;
    g.dst = dst;
    g.kept = static_cast<int>(order.size());
    for (int label : order) {
      g.extents.push_back(eq_.extents[label]);
      g.strides.push_back(v.StrideOf(label));
    }
    for (size_t i = 0; i < v.labels.size(); ++i) {
      if (Contains(order, v.labels[i])) continue;
      g.extents.push_back(eq_.extents[v.labels[i]]);
      g.strides.push_back(v.strides[i]);
    }
    program_->steps.push_back(std::move(step));
  }

  // Contracts a with b, keeping the labels `needed` later. The last product's result holds the
  // output's labels: it is written straight to the output when its order allows.
  Status Contract(View a, View b, const std::vector<bool>& needed, bool last, View* result) {
    Roles r = Classify(a, b, needed);
    bool to_output = false;
    if (last) {
      SortByOutput(&r);
      if (Concat(r.batch, r.m, r.n) != eq_.output && Concat(r.batch, r.n, r.m) == eq_.output) {
        std::swap(a, b);  // C^T = B^T A^T: the product then gives the output's order
        r = Classify(a, b, needed);
        SortByOutput(&r);
      }
      to_output = Concat(r.batch, r.m, r.n) == eq_.output;
    }
    Step step;
    step.is_gemm = true;
    GemmStep& g = step.gemm;
    WEBNX_RETURN_IF_ERROR(Operand(a, Concat(r.batch, r.m, r.k), Concat(r.batch, r.k, r.m),
                                  !r.a_drop.empty(), &g.a, &g.trans_a));
    WEBNX_RETURN_IF_ERROR(Operand(b, Concat(r.batch, r.k, r.n), Concat(r.batch, r.n, r.k),
                                  !r.b_drop.empty(), &g.b, &g.trans_b));
    const std::vector<int> labels = Concat(r.batch, r.m, r.n);
    if (to_output) {
      *result = Dense(labels, {Slot::Kind::kOutput, 0});
    } else {
      WEBNX_RETURN_IF_ERROR(NewBuffer(labels, result));
    }
    g.c = result->slot;
    g.batch = Product(r.batch);
    g.m = Product(r.m);
    g.n = Product(r.n);
    g.k = Product(r.k);
    program_->steps.push_back(std::move(step));
    return Status::Ok();
  }

 private:
  int64_t Product(const std::vector<int>& labels) const {
    int64_t p = 1;
    for (int label : labels) p *= eq_.extents[label];
    return p;
  }

  View Dense(const std::vector<int>& labels, Slot slot) const {
    View v;
    v.slot = slot;
    v.labels = labels;
    v.strides.assign(labels.size(), 0);
    int64_t stride = 1;
    for (size_t i = labels.size(); i-- > 0;) {
      v.strides[i] = stride;
      stride *= eq_.extents[labels[i]];
    }
    return v;
  }

  Status NewBuffer(const std::vector<int>& labels, View* out) {
    Shape shape;
    for (int label : labels) shape.push_back(eq_.extents[label]);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx_, shape, "intermediate"));
    *out = Dense(labels, {Slot::Kind::kBuffer, static_cast<int>(program_->buffer_sizes.size())});
    program_->buffer_sizes.push_back(nn::DimProduct(shape, 0, shape.size()));
    return Status::Ok();
  }

  // True when v holds exactly `order`'s labels, stored densely in that order.
  bool DenseAs(const View& v, const std::vector<int>& order) const {
    if (order.size() != v.labels.size()) return false;
    int64_t expected = 1;
    for (size_t i = order.size(); i-- > 0;) {
      const int64_t stride = v.StrideOf(order[i]);
      const int64_t extent = eq_.extents[order[i]];
      if (stride < 0 || (extent != 1 && stride != expected)) return false;
      expected *= extent;
    }
    return true;
  }

  // One side of a product: v itself when it is stored as `direct` or as `transposed` and
  // nothing of it is summed beforehand; else gathered into a buffer as `direct`.
  Status Operand(const View& v, const std::vector<int>& direct, const std::vector<int>& transposed,
                 bool drops, Slot* slot, bool* trans) {
    *trans = !drops && !DenseAs(v, direct) && DenseAs(v, transposed);
    if (!drops && (*trans || DenseAs(v, direct))) {
      *slot = v.slot;
      return Status::Ok();
    }
    View buffer;
    WEBNX_RETURN_IF_ERROR(NewBuffer(direct, &buffer));
    Gather(v, direct, buffer.slot);
    *slot = buffer.slot;
    return Status::Ok();
  }

  void SortByOutput(Roles* r) const {
    auto position = [&](int label) {
      return std::find(eq_.output.begin(), eq_.output.end(), label) - eq_.output.begin();
    };
    for (std::vector<int>* group : {&r->batch, &r->m, &r->n}) {
      std::stable_sort(group->begin(), group->end(),
                       [&](int x, int y) { return position(x) < position(y); });
    }
  }

  const PlanContext& ctx_;
  const Equation& eq_;
  Program* program_;
};

}  // namespace

Status PlanEinsum(const PlanContext& ctx, const std::string& equation,
                  const std::vector<Shape>& shapes, Program* program) {
  Equation eq;
  WEBNX_RETURN_IF_ERROR(ParseEquation(ctx, equation, shapes, &eq));
  *program = Program();
  for (int label : eq.output) program->output_shape.push_back(eq.extents[label]);
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, program->output_shape, "output"));
  const Slot output{Slot::Kind::kOutput, 0};
  Planner planner(ctx, eq, program);
  View current = planner.Input(0, shapes[0]);
  for (size_t i = 1; i < shapes.size(); ++i) {
    // Labels the output or a later operand needs survive this product.
    std::vector<bool> needed(eq.extents.size(), false);
    for (int label : eq.output) needed[label] = true;
    for (size_t j = i + 1; j < shapes.size(); ++j) {
      for (int label : eq.operands[j]) needed[label] = true;
    }
    View product;
    WEBNX_RETURN_IF_ERROR(planner.Contract(current, planner.Input(static_cast<int>(i), shapes[i]),
                                           needed, i + 1 == shapes.size(), &product));
    current = std::move(product);
  }
  if (current.slot.kind != Slot::Kind::kOutput) planner.Gather(current, eq.output, output);
  return Status::Ok();
}

}  // namespace webnx::einsum
