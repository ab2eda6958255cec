// If: runs one of two subgraphs. A condition known when the plan is made (a constant, folded
// shape arithmetic, a small input the plan specialises on) plans only its branch; otherwise
// both are planned, and must give outputs of one shape, chosen per run.
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "kernels/registrations.h"
#include "kernels/subgraph_runner.h"

namespace webnx {
namespace {

const char* const kBranchNames[2] = {"then_branch", "else_branch"};

class IfKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kBool}));
    int64_t cond_numel = 0;
    if (!ShapeNumel(ctx.shape(0), &cond_numel) || cond_numel != 1) {
      return ctx.Error(ErrorCode::kShapeMismatch, "the condition must hold one value, not shape " +
                                                      ShapeToString(ctx.shape(0)));
    }
    const Tensor* cond = ctx.constant(0);
    chosen_ = cond ? (cond->ptr<bool>()[0] ? 0 : 1) : -1;
    for (int b = 0; b < 2; ++b) {
      if (chosen_ < 0 || chosen_ == b) WEBNX_RETURN_IF_ERROR(PlanBranch(ctx, b));
    }
    for (int k = 0; k < ctx.num_outputs(); ++k) {
      if (!ctx.has_output(k)) continue;
      const Tensor& out = branches_[chosen_ < 0 ? 0 : chosen_].output(k);
      if (chosen_ < 0) WEBNX_RETURN_IF_ERROR(CheckSameOutput(ctx, k));
      ctx.SetOutput(k, out.dtype, out.shape);
    }
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const int b = chosen_ >= 0 ? chosen_ : (ctx.input(0).ptr<bool>()[0] ? 0 : 1);
    SubgraphRunner& branch = branches_[b];
    for (size_t j = 0; j < branch.num_inputs(); ++j) branch.Bind(j, &ctx.input(captured_[b][j]));
    WEBNX_RETURN_IF_ERROR(branch.Run());
    for (int k = 0; k < ctx.num_outputs(); ++k)
      if (ctx.has_output(k)) CopyTensor(branch.result(k), ctx.output(k));
    return Status::Ok();
  }

 private:
  Status PlanBranch(PlanContext& ctx, int b) {
    ResolvedSubgraph* sub = ctx.subgraph(kBranchNames[b]);
    if (!sub) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       std::string("has no subgraph attribute '") + kBranchNames[b] + "'");
    }
    if (sub->rg.graph.outputs.size() != static_cast<size_t>(ctx.num_outputs())) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       std::string(kBranchNames[b]) + " has " +
                           std::to_string(sub->rg.graph.outputs.size()) + " outputs; the node " +
                           std::to_string(ctx.num_outputs()));
    }
    WEBNX_RETURN_IF_ERROR(CapturedInputPositions(ctx, *sub, 0, &captured_[b]));
    std::vector<PlannedValue> inputs;
    for (int i : captured_[b]) inputs.push_back(PlannedInput(ctx, i));
    return branches_[b].Plan(*sub, inputs, ctx.node().Describe() + ", " + kBranchNames[b]);
  }

  // A condition known only when run: both branches must give output k one dtype and shape.
  Status CheckSameOutput(PlanContext& ctx, int k) const {
    const Tensor& a = branches_[0].output(k);
    const Tensor& b = branches_[1].output(k);
    if (a.dtype == b.dtype && a.shape == b.shape) return Status::Ok();
    return ctx.Error(ErrorCode::kUnsupportedOperator,
                     "output '" + ctx.node().outputs[k] + "' is " + DTypeName(a.dtype) +
                         ShapeToString(a.shape) + " from then_branch but " + DTypeName(b.dtype) +
                         ShapeToString(b.shape) +
                         " from else_branch, and the condition is only known when the model "
                         "runs: webnx needs every output's shape when it plans");
  }

  int chosen_ = -1;  // the branch known when planned, or -1: read the condition per run
  SubgraphRunner branches_[2];
  std::vector<int> captured_[2];  // per branch: the node input bound to each branch input
};

}  // namespace

void RegisterIfKernels(OpRegistry& r) {
  r.Register("", "If", {{1, 11, 13, 16, 19, 21, 23, 24, 25}, Inputs(1), Outputs::AtLeast(1)},
             MakeKernel<IfKernel>);
}

}  // namespace webnx
