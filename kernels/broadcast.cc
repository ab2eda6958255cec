#include "kernels/broadcast.h"

#include <algorithm>
#include <string>

namespace webnx {

Status BroadcastShapes(const std::vector<Shape>& shapes, Shape* out) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape result(rank, 1);
  for (const Shape& s : shapes) {
    const size_t lead = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& dim = result[lead + i];
      const int64_t d = s[i];
      if (d == dim || d == 1) continue;
      if (dim == 1) {
        dim = d;
        continue;
      }
      std::string names;
      for (const Shape& each : shapes)
        names += (names.empty() ? "" : " and ") + ShapeToString(each);
      return Status(ErrorCode::kShapeMismatch, "cannot broadcast shapes " + names + " (dim " +
                                                   std::to_string(lead + i) +
                                                   " of the result: " + std::to_string(dim) +
                                                   " vs " + std::to_string(d) + ")");
    }
  }
  *out = std::move(result);
  return Status::Ok();
}

bool BroadcastsTo(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  }
  return true;
}

void BroadcastWalker::Init(const Shape& out, const std::vector<Shape>& operands) {
  num_operands_ = static_cast<int>(std::min<size_t>(operands.size(), kMaxOperands));
  numel_ = 1;
  for (int64_t d : out) numel_ *= d;  // the caller validated `out` (ShapeNumel)

  // Collapse: drop output dims of size 1, then merge neighbours in which every operand
  // behaves alike (all real, or all repeated), keeping per-dim "repeated" flags.
  struct Dim {
    int64_t size;
    std::array<bool, kMaxOperands> repeated;
  };
  std::vector<Dim> dims;
  const size_t rank = out.size();
  for (size_t i = 0; i < rank; ++i) {
    if (out[i] == 1) continue;
    Dim dim{out[i], {}};
    for (int k = 0; k < num_operands_; ++k) {
      const Shape& s = operands[k];
      const size_t lead = rank - s.size();
      dim.repeated[k] = i < lead || s[i - lead] == 1;
    }
    if (!dims.empty() && dims.back().repeated == dim.repeated) {
      dims.back().size *= dim.size;
    } else {
      dims.push_back(dim);
    }
  }

  // Strides in elements of each operand (0 where repeated), from the innermost dim out.
  std::vector<std::array<int64_t, kMaxOperands>> strides(dims.size());
  std::array<int64_t, kMaxOperands> extent;
  extent.fill(1);
  for (size_t j = dims.size(); j-- > 0;) {
    for (int k = 0; k < num_operands_; ++k) {
      strides[j][k] = dims[j].repeated[k] ? 0 : extent[k];
      if (!dims[j].repeated[k]) extent[k] *= dims[j].size;
    }
  }

  inner_step_.fill(0);
  outer_dims_.clear();
  outer_strides_.clear();
  if (dims.empty()) {
    inner_ = 1;  // a single element (every dim is 1)
  } else {
    inner_ = dims.back().size;
    for (int k = 0; k < num_operands_; ++k) inner_step_[k] = strides.back()[k];
    for (size_t j = 0; j + 1 < dims.size(); ++j) {
      outer_dims_.push_back(dims[j].size);
      outer_strides_.push_back(strides[j]);
    }
  }
  counter_.assign(outer_dims_.size(), 0);
}

void BroadcastWalker::ForEachRun(RunCallback run, void* fn) {
  if (numel_ == 0) return;
  std::array<int64_t, kMaxOperands> offsets{};
  const int outer_rank = static_cast<int>(outer_dims_.size());
  for (int d = 0; d < outer_rank; ++d) counter_[d] = 0;
  for (int64_t out = 0; out < numel_; out += inner_) {
    run(fn, offsets.data(), out, inner_);
    // Odometer over the outer dims, innermost first.
    for (int d = outer_rank - 1; d >= 0; --d) {
      const auto& stride = outer_strides_[d];
      if (++counter_[d] < outer_dims_[d]) {
        for (int k = 0; k < num_operands_; ++k) offsets[k] += stride[k];
        break;
      }
      counter_[d] = 0;
      for (int k = 0; k < num_operands_; ++k) offsets[k] -= stride[k] * (outer_dims_[d] - 1);
    }
  }
}

}  // namespace webnx
