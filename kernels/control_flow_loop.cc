// Loop: runs its body while the trip count and the condition allow, carrying state tensors from
// one iteration to the next and stacking per-iteration scan outputs. The body is planned once,
// for the shapes of the states (which must not change), its condition input specialised to
// true: every iteration that runs starts from a true condition. A body whose shapes follow from
// the iteration number (a Slice at it) cannot be planned so: with a trip count known and small,
// it gets a plan per iteration instead, all made with the Loop's. When the trip count follows
// from what is known as the plan is made, so do the scan outputs' shapes.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/limits.h"
#include "core/op_registry.h"
#include "kernels/registrations.h"
#include "kernels/subgraph_runner.h"

namespace webnx {
namespace {

// At most this many plans of one body, one per iteration.
constexpr int64_t kMaxIterationPlans = 256;

class LoopKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const Node& node = ctx.node();
    states_ = static_cast<int>(node.inputs.size()) - node.captured_inputs - 2;
    uses_cond_ = ctx.has_input(1);
    if (ctx.has_input(0)) WEBNX_RETURN_IF_ERROR(CheckScalar(ctx, 0, DType::kInt64, "M"));
    if (uses_cond_) WEBNX_RETURN_IF_ERROR(CheckScalar(ctx, 1, DType::kBool, "cond"));
    if (!ctx.has_input(0) && !uses_cond_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "has neither a trip count nor a condition: it would never end");
    }
    WEBNX_RETURN_IF_ERROR(PlanBody(ctx));
    WEBNX_RETURN_IF_ERROR(CheckBodyOutputs(ctx));
    WEBNX_RETURN_IF_ERROR(FindTripCount(ctx));
    return DeclareOutputs(ctx);
  }

  Status Run(RunContext& ctx) override {
    int64_t limit = max_trips_;
    if (limit < 0) limit = ctx.has_input(0) ? ctx.input(0).IntAt(0) : INT64_MAX;
    bool cond = !uses_cond_ || ctx.input(1).ptr<bool>()[0];
    int cur = 0;
    for (int j = 0; j < states_; ++j) CopyTensor(ctx.input(2 + j), state_[cur][j]);
    int64_t trips = 0;
    for (; trips < limit && cond; ++trips) {
      if (trips == max_run_time_trips_ && fixed_trips_ < 0) {
        return LimitError(ErrorCode::kInvalidInput, node_ + " ran", trips,
                          " iterations and its condition is still true", max_run_time_trips_,
                          "maxLoopIterations");
      }
      iteration_.ptr<int64_t>()[0] = trips;
      WEBNX_RETURN_IF_ERROR(RunIteration(ctx, cur, trips));
      if (uses_cond_) cond = Body(trips).result(0).ptr<bool>()[0];
      cur = 1 - cur;
    }
    if (fixed_trips_ >= 0 && trips != fixed_trips_) {
      return Status(ErrorCode::kInternal, node_ + " ran " + std::to_string(trips) +
                                              " iterations; it was planned for " +
                                              std::to_string(fixed_trips_));
    }
    for (int j = 0; j < states_; ++j)
      if (ctx.has_output(j)) CopyTensor(state_[cur][j], ctx.output(j));
    return Status::Ok();
  }

 private:
  static Status CheckScalar(PlanContext& ctx, int i, DType dtype, const char* what) {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {dtype}));
    int64_t numel = 0;
    if (ShapeNumel(ctx.shape(i), &numel) && numel == 1) return Status::Ok();
    return ctx.Error(ErrorCode::kShapeMismatch, std::string("input ") + what +
                                                    " must hold one value, not shape " +
                                                    ShapeToString(ctx.shape(i)));
  }

  Status PlanBody(PlanContext& ctx) {
    ResolvedSubgraph* body = ctx.subgraph("body");
    if (!body) return ctx.Error(ErrorCode::kMalformedModel, "has no subgraph attribute 'body'");
    if (body->rg.graph.inputs.size() < static_cast<size_t>(2 + states_)) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "its body takes " + std::to_string(body->rg.graph.inputs.size()) +
                           " inputs; it needs the iteration number, the condition and " +
                           std::to_string(states_) + " states");
    }
    node_ = ctx.node().Describe();
    max_run_time_trips_ = ctx.limits().max_loop_iterations;
    WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, {}, &iteration_));
    WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kBool, {}, &cond_true_));
    cond_true_.ptr<bool>()[0] = true;
    std::vector<PlannedValue> inputs;
    inputs.push_back(PlannedValue{DType::kInt64, {}, nullptr});
    inputs.push_back(PlannedValue{DType::kBool, {}, &cond_true_});
    for (int j = 0; j < states_; ++j)
      inputs.push_back(PlannedValue{ctx.dtype(2 + j), ctx.shape(2 + j), nullptr});
    WEBNX_RETURN_IF_ERROR(CapturedInputPositions(ctx, *body, 2 + states_, &captured_));
    for (int i : captured_) inputs.push_back(PlannedInput(ctx, i));
    bodies_.clear();
    bodies_.resize(1);
    Status once = bodies_[0].Plan(*body, inputs, node_ + ", body");
    if (!once.ok()) WEBNX_RETURN_IF_ERROR(PlanPerIteration(ctx, *body, &inputs, once));
    for (auto& buffers : state_) {
      buffers.resize(states_);
      for (int j = 0; j < states_; ++j)
        WEBNX_RETURN_IF_ERROR(
            Tensor::AllocateUninitialized(ctx.dtype(2 + j), ctx.shape(2 + j), &buffers[j]));
    }
    return Status::Ok();
  }

  // A plan per iteration, each knowing its iteration number, when the trip count is known and
  // small; otherwise `once`, the error of planning the body for every iteration.
  Status PlanPerIteration(PlanContext& ctx, ResolvedSubgraph& body,
                          std::vector<PlannedValue>* inputs, const Status& once) {
    const Tensor* m = ctx.has_input(0) ? ctx.constant(0) : nullptr;
    if (!m || m->IntAt(0) > kMaxIterationPlans) return once;
    const int64_t trips = std::max<int64_t>(0, m->IntAt(0));
    bodies_.clear();
    bodies_.resize(static_cast<size_t>(std::max<int64_t>(trips, 1)));
    (*inputs)[0].value = &iteration_;  // copied by each plan
    for (int64_t i = 0; i < trips; ++i) {
      iteration_.ptr<int64_t>()[0] = i;
      WEBNX_RETURN_IF_ERROR(
          bodies_[i].Plan(body, *inputs, node_ + ", body at iteration " + std::to_string(i)));
    }
    if (trips == 0) return once;  // nothing runs: only the body's shapes matter, and it has none
    return Status::Ok();
  }

  SubgraphRunner& Body(int64_t trip) { return bodies_[bodies_.size() == 1 ? 0 : trip]; }

  // The condition, then each state as it went in, then the scan outputs, alike in every plan.
  Status CheckBodyOutputs(PlanContext& ctx) {
    const size_t outputs = bodies_[0].num_outputs();
    if (outputs < static_cast<size_t>(1 + states_)) {
      return ctx.Error(ErrorCode::kMalformedModel, "its body gives " + std::to_string(outputs) +
                                                       " outputs; it needs the condition and " +
                                                       std::to_string(states_) + " states");
    }
    scans_ = static_cast<int>(outputs) - 1 - states_;
    if (ctx.num_outputs() > states_ + scans_) {
      return ctx.Error(ErrorCode::kMalformedModel, "has " + std::to_string(ctx.num_outputs()) +
                                                       " outputs; its body gives " +
                                                       std::to_string(states_) + " states and " +
                                                       std::to_string(scans_) + " scan outputs");
    }
    for (const SubgraphRunner& body : bodies_) {
      const Tensor& cond = body.output(0);
      if (cond.dtype != DType::kBool || cond.numel() != 1)
        return ctx.Error(ErrorCode::kMalformedModel, "its body's first output is not a condition");
      for (int j = 0; j < states_; ++j) {
        const Tensor& out = body.output(1 + j);
        if (out.dtype == ctx.dtype(2 + j) && out.shape == ctx.shape(2 + j)) continue;
        return ctx.Error(
            ErrorCode::kUnsupportedOperator,
            "state '" + ctx.node().inputs[2 + j] + "' goes into the body as " +
                DTypeName(ctx.dtype(2 + j)) + ShapeToString(ctx.shape(2 + j)) + " and comes out " +
                DTypeName(out.dtype) + ShapeToString(out.shape) +
                ": webnx plans a loop body for states that keep their dtype and shape");
      }
      for (int k = 0; k < scans_; ++k) {
        const Tensor& first = bodies_[0].output(1 + states_ + k);
        const Tensor& slice = body.output(1 + states_ + k);
        if (slice.dtype == first.dtype && slice.shape == first.shape) continue;
        return ctx.Error(ErrorCode::kUnsupportedOperator,
                         "scan output " + std::to_string(k) + " is " + ShapeToString(first.shape) +
                             " in one iteration and " + ShapeToString(slice.shape) +
                             " in another: it cannot be stacked");
      }
    }
    return Status::Ok();
  }

  // The iterations, when what is known now decides them (fixed_trips_), and the most a run may
  // make when that is known (max_trips_).
  Status FindTripCount(PlanContext& ctx) {
    const Tensor* m = ctx.has_input(0) ? ctx.constant(0) : nullptr;
    max_trips_ = m ? std::max<int64_t>(0, m->IntAt(0)) : -1;
    const Tensor* cond = uses_cond_ ? ctx.constant(1) : nullptr;
    bool body_cond_known = true, body_cond_true = true;
    for (const SubgraphRunner& body : bodies_) {
      body_cond_known = body_cond_known && body.output_known(0);
      body_cond_true = body_cond_known && body_cond_true && body.output(0).ptr<bool>()[0];
    }
    if (uses_cond_ && cond && !cond->ptr<bool>()[0])
      fixed_trips_ = 0;
    else if (ctx.has_input(0) && !m)
      fixed_trips_ = -1;  // the trip count is fed when run
    else if (!uses_cond_ || (cond && body_cond_true))
      fixed_trips_ = max_trips_;  // -1 without a trip count: until the run-time cap
    else if (cond && body_cond_known && bodies_.size() == 1)
      fixed_trips_ = max_trips_ < 0 ? 1 : std::min<int64_t>(max_trips_, 1);
    else
      fixed_trips_ = -1;
    if (fixed_trips_ >= 0 || scans_ == 0) return Status::Ok();
    return ctx.Error(ErrorCode::kUnsupportedOperator,
                     "its scan outputs' length is the number of iterations, which only the run "
                     "decides here (a trip count or a condition not known when the plan is made): "
                     "webnx needs every output's shape when it plans");
  }

  Status DeclareOutputs(PlanContext& ctx) {
    for (int j = 0; j < states_ && j < ctx.num_outputs(); ++j)
      if (ctx.has_output(j)) ctx.SetOutput(j, ctx.dtype(2 + j), ctx.shape(2 + j));
    for (int k = 0; k < scans_ && states_ + k < ctx.num_outputs(); ++k) {
      if (!ctx.has_output(states_ + k)) continue;
      const Tensor& slice = bodies_[0].output(1 + states_ + k);
      Shape shape{fixed_trips_};
      shape.insert(shape.end(), slice.shape.begin(), slice.shape.end());
      ctx.SetOutput(states_ + k, slice.dtype, shape);
    }
    return Status::Ok();
  }

  Status RunIteration(RunContext& ctx, int cur, int64_t trip) {
    SubgraphRunner& body = Body(trip);
    body.Bind(0, &iteration_);
    body.Bind(1, &cond_true_);
    for (int j = 0; j < states_; ++j) body.Bind(2 + j, &state_[cur][j]);
    for (size_t c = 0; c < captured_.size(); ++c)
      body.Bind(2 + states_ + c, &ctx.input(captured_[c]));
    WEBNX_RETURN_IF_ERROR(body.Run());
    for (int j = 0; j < states_; ++j) CopyTensor(body.result(1 + j), state_[1 - cur][j]);
    for (int k = 0; k < scans_ && states_ + k < ctx.num_outputs(); ++k) {
      if (!ctx.has_output(states_ + k)) continue;
      const Tensor& slice = body.result(1 + states_ + k);
      Tensor& out = ctx.output(states_ + k);
      if (slice.nbytes() > 0)
        std::memcpy(out.ptr<uint8_t>() + trip * slice.nbytes(), slice.data, slice.nbytes());
    }
    return Status::Ok();
  }

  std::string node_;
  int states_ = 0;
  int scans_ = 0;
  bool uses_cond_ = false;
  int64_t fixed_trips_ = -1;            // iterations every run makes, when known as planned
  int64_t max_trips_ = -1;              // the trip count when known as planned
  int64_t max_run_time_trips_ = 0;      // limits.maxLoopIterations: for ends decided by the run
  std::vector<SubgraphRunner> bodies_;  // one plan of the body, or one per iteration
  std::vector<int> captured_;           // the node input bound to each captured body input
  Tensor iteration_;                    // the body's iteration-number input
  Tensor cond_true_;              // the body's condition input: true in every iteration that runs
  std::vector<Tensor> state_[2];  // the states going in, and coming out, of an iteration
};

}  // namespace

void RegisterLoopKernels(OpRegistry& r) {
  r.Register("", "Loop",
             {{1, 11, 13, 16, 19, 21, 23, 24, 25}, Inputs::AtLeast(2), Outputs::AtLeast(1)},
             MakeKernel<LoopKernel>);
}

}  // namespace webnx
