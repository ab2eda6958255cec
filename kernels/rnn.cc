// The recurrent ops' registration, and what the three read alike: attributes and input shapes.
#include <string>
#include <vector>

#include "kernels/registrations.h"
#include "kernels/rnn_common.h"

namespace webnx::rnn {
namespace {

const char* CellName(Cell cell) {
  switch (cell) {
    case Cell::kSimple:
      return "RNN";
    case Cell::kGru:
      return "GRU";
    case Cell::kLstm:
      return "LSTM";
  }
  return "";
}

std::vector<std::string> DefaultFunctions(Cell cell) {
  switch (cell) {
    case Cell::kSimple:
      return {"Tanh"};
    case Cell::kGru:
      return {"Sigmoid", "Tanh"};
    case Cell::kLstm:
      return {"Sigmoid", "Tanh", "Tanh"};
  }
  return {};
}

Status ParseDirection(const PlanContext& ctx, const std::string& direction, Attributes* a) {
  // GRU-1's schema spelled its default "foward".
  const bool old_default = ctx.since_version() == 1 && direction == "foward";
  if (direction == "forward" || old_default) return Status::Ok();
  if (direction == "reverse") {
    a->reverse = true;
    return Status::Ok();
  }
  if (direction == "bidirectional") {
    a->directions = 2;
    return Status::Ok();
  }
  return ctx.Error(
      ErrorCode::kMalformedModel,
      "attribute 'direction' must be forward, reverse or bidirectional, got '" + direction + "'");
}

// The functions per direction: the listed ones, one list shared by both directions, or the
// defaults. The ops' schemas give RNN two default names whatever the direction: a list of two
// for one direction uses its first.
Status ParseFunctions(PlanContext& ctx, const std::vector<float>& alphas,
                      const std::vector<float>& betas, Attributes* a) {
  const int per_direction = FunctionCount(a->cell);
  std::vector<std::string> names = DefaultFunctions(a->cell);
  if (const Attribute* listed = ctx.node().attr("activations")) {
    if (listed->type != Attribute::Type::kStrings) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'activations' must be a list of strings");
    }
    names = listed->strings;
  }
  std::string error;
  if (!ParseActivations(names, alphas, betas, &a->activations, &error))
    return ctx.Error(ErrorCode::kMalformedModel, error);
  const int count = static_cast<int>(names.size());
  const int wanted = per_direction * a->directions;
  if (count == per_direction && a->directions == 2) {
    a->activations.insert(a->activations.end(), a->activations.begin(), a->activations.end());
  } else if (a->cell == Cell::kSimple && a->directions == 1 && count == 2) {
    a->activations.resize(1);
  } else if (count != wanted) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'activations' lists " + std::to_string(count) + " functions; " +
                         CellName(a->cell) + " takes " + std::to_string(per_direction) +
                         " per direction, " + std::to_string(wanted) + " here");
  }
  return Status::Ok();
}

Status ExpectShape(const PlanContext& ctx, int input, const char* name, const Shape& want) {
  if (ctx.shape(input) == want) return Status::Ok();
  return ctx.Error(ErrorCode::kShapeMismatch, std::string("input '") + name + "' has shape " +
                                                  ShapeToString(ctx.shape(input)) + ", expected " +
                                                  ShapeToString(want));
}

Status ExpectRank3(const PlanContext& ctx, int input, const char* name) {
  if (ctx.shape(input).size() == 3) return Status::Ok();
  return ctx.Error(ErrorCode::kShapeMismatch, std::string("input '") + name + "' has shape " +
                                                  ShapeToString(ctx.shape(input)) +
                                                  ", expected rank 3");
}

Status CheckDTypes(const PlanContext& ctx) {
  for (int i : {kX, kW, kR}) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
  for (int i : {kB, kInitialH, kInitialC, kPeepholes}) {
    if (ctx.has_input(i)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
  }
  if (ctx.has_input(kSequenceLens))
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(kSequenceLens, {DType::kInt32}));
  return Status::Ok();
}

}  // namespace

int GateCount(Cell cell) {
  return cell == Cell::kLstm ? 4 : cell == Cell::kGru ? 3 : 1;
}

int FunctionCount(Cell cell) {
  return cell == Cell::kLstm ? 3 : cell == Cell::kGru ? 2 : 1;
}

std::vector<int> RecurrentGroups(Cell cell) {
  if (cell == Cell::kGru) return {2, 1};
  return {GateCount(cell)};
}

Status ParseAttributes(PlanContext& ctx, Cell cell, Attributes* out) {
  Attributes a;
  a.cell = cell;
  Attrs& attrs = ctx.attrs();
  const int version = ctx.since_version();
  const std::string direction = attrs.String("direction", "forward");
  a.hidden_size = attrs.Int("hidden_size", -1);
  const int64_t layout = version >= 14 ? attrs.Int("layout", 0) : 0;
  const bool clips = attrs.Has("clip");
  const float clip = attrs.Float("clip", 0.f);
  const std::vector<float> alphas = attrs.Floats("activation_alpha");
  const std::vector<float> betas = attrs.Floats("activation_beta");
  if (cell == Cell::kLstm) a.input_forget = attrs.Int("input_forget", 0) != 0;
  if (cell == Cell::kGru && version >= 3)
    a.linear_before_reset = attrs.Int("linear_before_reset", 0) != 0;
  // Version 1's output_sequence only said whether Y was wanted: Y is computed when named.
  if (version == 1) attrs.Int("output_sequence", 0);
  WEBNX_RETURN_IF_ERROR(attrs.status());

  WEBNX_RETURN_IF_ERROR(ParseDirection(ctx, direction, &a));
  if (layout != 0 && layout != 1) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'layout' must be 0 or 1, got " + std::to_string(layout));
  }
  a.layout = static_cast<int>(layout);
  if (attrs.Has("hidden_size") && a.hidden_size <= 0) {
    return ctx.Error(ErrorCode::kMalformedModel, "attribute 'hidden_size' must be positive, got " +
                                                     std::to_string(a.hidden_size));
  }
  if (clips && !(clip > 0.f)) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'clip' must be positive, got " + std::to_string(clip));
  }
  if (clips) a.clip = clip;
  WEBNX_RETURN_IF_ERROR(ParseFunctions(ctx, alphas, betas, &a));
  *out = std::move(a);
  return Status::Ok();
}

Status CheckInputs(const PlanContext& ctx, const Attributes& attrs, Dims* dims) {
  WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, attrs.cell == Cell::kLstm ? 8 : 6));
  WEBNX_RETURN_IF_ERROR(CheckDTypes(ctx));
  WEBNX_RETURN_IF_ERROR(ExpectRank3(ctx, kX, "X"));
  WEBNX_RETURN_IF_ERROR(ExpectRank3(ctx, kR, "R"));
  Dims d;
  const Shape& x = ctx.shape(kX);
  d.layout = attrs.layout;
  d.seq = x[attrs.layout == 0 ? 0 : 1];
  d.batch = x[attrs.layout == 0 ? 1 : 0];
  d.input = x[2];
  d.hidden = attrs.hidden_size >= 0 ? attrs.hidden_size : ctx.shape(kR)[2];
  d.directions = attrs.directions;
  d.gates = GateCount(attrs.cell);
  const int64_t width = d.gate_width();
  WEBNX_RETURN_IF_ERROR(ExpectShape(ctx, kW, "W", {d.directions, width, d.input}));
  WEBNX_RETURN_IF_ERROR(ExpectShape(ctx, kR, "R", {d.directions, width, d.hidden}));
  if (ctx.has_input(kB))
    WEBNX_RETURN_IF_ERROR(ExpectShape(ctx, kB, "B", {d.directions, 2 * width}));
  if (ctx.has_input(kSequenceLens))
    WEBNX_RETURN_IF_ERROR(ExpectShape(ctx, kSequenceLens, "sequence_lens", {d.batch}));
  if (ctx.has_input(kInitialH))
    WEBNX_RETURN_IF_ERROR(ExpectShape(ctx, kInitialH, "initial_h", d.StateShape()));
  if (ctx.has_input(kInitialC))
    WEBNX_RETURN_IF_ERROR(ExpectShape(ctx, kInitialC, "initial_c", d.StateShape()));
  if (ctx.has_input(kPeepholes))
    WEBNX_RETURN_IF_ERROR(ExpectShape(ctx, kPeepholes, "P", {d.directions, 3 * d.hidden}));
  *dims = d;
  return Status::Ok();
}

}  // namespace webnx::rnn

namespace webnx {

void RegisterRecurrentKernels(OpRegistry& r) {
  // Every output is optional (a node lists "" for those it skips). 7 dropped output_sequence, 14
  // added layout, 22 bfloat16.
  r.Register("", "RNN", {{1, 7, 14, 22}, Inputs(3, 6), Outputs(0, 2)}, rnn::MakeSimpleRnnKernel);
  // 3 added linear_before_reset.
  r.Register("", "GRU", {{1, 3, 7, 14, 22}, Inputs(3, 6), Outputs(0, 2)}, rnn::MakeGruKernel);
  r.Register("", "LSTM", {{1, 7, 14, 22}, Inputs(3, 8), Outputs(0, 3)}, rnn::MakeLstmKernel);
}

}  // namespace webnx
