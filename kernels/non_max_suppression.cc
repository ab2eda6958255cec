// NonMaxSuppression (10, 11): per batch and class, boxes above the score threshold in order of
// falling score (ties by index), each kept unless it overlaps a kept one by more than the IoU
// threshold, at most max_output_boxes_per_class of them. How many are kept is known only when
// run: the output is planned at its largest and the planner plans the rest per the shapes runs
// produce.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/registrations.h"

namespace webnx {
namespace {

struct Box {
  float y1, x1, y2, x2;
  float area() const { return (y2 - y1) * (x2 - x1); }
};

float IoU(const Box& a, const Box& b) {
  const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  const float w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (h <= 0.f || w <= 0.f || a.area() <= 0.f || b.area() <= 0.f) return 0.f;
  const float inter = h * w;
  return inter / (a.area() + b.area() - inter);
}

class NonMaxSuppressionKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 5));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    if (ctx.has_input(2)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kInt64}));
    for (int i : {3, 4})
      if (ctx.has_input(i)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
    const Shape& boxes = ctx.shape(0);
    const Shape& scores = ctx.shape(1);
    if (boxes.size() != 3 || boxes[2] != 4 || scores.size() != 3 || scores[0] != boxes[0] ||
        scores[2] != boxes[1]) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "boxes must be [batch, boxes, 4] and scores [batch, classes, boxes]; got " +
                           ShapeToString(boxes) + " and " + ShapeToString(scores));
    }
    for (int i = 2; i < 5; ++i) {
      if (ctx.has_input(i) && ctx.shape(i).size() > 1) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "input " + std::to_string(i) + " must be a scalar or hold one value");
      }
    }
    center_point_box_ = ctx.attrs().Int("center_point_box", 0);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    if (center_point_box_ != 0 && center_point_box_ != 1)
      return ctx.Error(ErrorCode::kMalformedModel, "center_point_box must be 0 or 1");
    batch_ = boxes[0];
    classes_ = scores[1];
    boxes_ = boxes[1];
    int64_t per_class = boxes_;
    if (const Tensor* m = ctx.has_input(2) ? ctx.constant(2) : nullptr)
      per_class = std::max<int64_t>(0, std::min(per_class, m->numel() ? m->IntAt(0) : 0));
    ctx.SetOutputBound(0, DType::kInt64, {batch_ * classes_ * per_class, 3});
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kInt64, {boxes_}, &order_));
    return Tensor::AllocateUninitialized(DType::kInt64, {boxes_}, &kept_);
  }

  Status Run(RunContext& ctx) override {
    const int64_t max_per_class =
        ctx.has_input(2) && ctx.input(2).numel() ? ctx.input(2).IntAt(0) : 0;
    const float iou = ctx.has_input(3) && ctx.input(3).numel() ? ctx.input(3).ptr<float>()[0] : 0.f;
    const bool by_score = ctx.has_input(4) && ctx.input(4).numel();
    const float min_score = by_score ? ctx.input(4).ptr<float>()[0] : 0.f;
    const int64_t limit = std::min(boxes_, std::max<int64_t>(0, max_per_class));
    int64_t* out = ctx.output(0).ptr<int64_t>();
    int64_t selected = 0;
    for (int64_t b = 0; b < batch_; ++b) {
      for (int64_t c = 0; c < classes_; ++c) {
        const int64_t kept = SelectClass(ctx, b, c, limit, iou, by_score, min_score);
        for (int64_t k = 0; k < kept; ++k, ++selected) {
          out[selected * 3] = b;
          out[selected * 3 + 1] = c;
          out[selected * 3 + 2] = kept_.ptr<int64_t>()[k];
        }
      }
    }
    ctx.output(0).shape[0] = selected;
    return Status::Ok();
  }

 private:
  Box BoxAt(const float* boxes, int64_t i) const {
    const float* v = boxes + i * 4;
    if (center_point_box_ == 1) {
      return Box{v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
    }
    return Box{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]),
               std::max(v[1], v[3])};
  }

  // The kept boxes of one batch item and class, into kept_; returns how many.
  int64_t SelectClass(RunContext& ctx, int64_t b, int64_t c, int64_t limit, float iou,
                      bool by_score, float min_score) {
    const float* scores = ctx.input(1).ptr<float>() + (b * classes_ + c) * boxes_;
    const float* boxes = ctx.input(0).ptr<float>() + b * boxes_ * 4;
    int64_t* order = order_.ptr<int64_t>();
    int64_t candidates = 0;
    for (int64_t i = 0; i < boxes_; ++i)
      if (!by_score || scores[i] > min_score) order[candidates++] = i;
    std::sort(order, order + candidates, [&](int64_t a, int64_t z) {
      return scores[a] != scores[z] ? scores[a] > scores[z] : a < z;
    });
    int64_t* kept = kept_.ptr<int64_t>();
    int64_t count = 0;
    for (int64_t i = 0; i < candidates && count < limit; ++i) {
      const Box box = BoxAt(boxes, order[i]);
      bool overlaps = false;
      for (int64_t k = 0; k < count && !overlaps; ++k)
        overlaps = IoU(box, BoxAt(boxes, kept[k])) > iou;
      if (!overlaps) kept[count++] = order[i];
    }
    return count;
  }

  int64_t center_point_box_ = 0;
  int64_t batch_ = 0, classes_ = 0, boxes_ = 0;
  Tensor order_;  // one class's candidates by falling score
  Tensor kept_;   // ... and those kept
};

}  // namespace

void RegisterNonMaxSuppressionKernels(OpRegistry& r) {
  r.Register("", "NonMaxSuppression", {{10, 11}, Inputs(2, 5), Outputs(1)},
             MakeKernel<NonMaxSuppressionKernel>);
}

}  // namespace webnx
