// The DSL's elementwise, matrix and shape ops: elementwise ops follow NHWC chains on their NCHW
// twins, MatMul takes transA/transB, Reshape an attribute shape, Concat concatenates twins.
#include <functional>

#include "core/loaders/json_dsl_attrs.h"
#include "core/loaders/json_dsl_rules.h"

namespace webnx {
namespace jsonl {
namespace {

const std::vector<int64_t> kNhwcToNchw = {0, 3, 1, 2};

// A constant operand of an elementwise op, re-laid out for the NCHW twin of its NHWC partner:
// left-padded to rank 4 (numpy broadcasting) and permuted.
std::string ConstantToNchw(const std::string& name, const Tensor& c, Lowering& ctx) {
  Tensor padded = c;
  padded.shape.insert(padded.shape.begin(), 4 - c.shape.size(), 1);
  Tensor t;
  if (!PermuteTensor(padded, kNhwcToNchw, &t).ok()) return "";
  return ctx.AddInitializer(name + "#nchw", std::move(t));
}

using EmitFn =
    std::function<Status(Lowering&, const std::vector<std::string>&, const std::string&)>;

// An op whose result does not depend on the layout (elementwise): computed on the NCHW twins
// of its inputs when it has some, so an NHWC chain does not bounce through transposes.
Status LowerLayoutFree(const DslNode& node, Lowering& ctx, const EmitFn& emit) {
  if (node.outputs.size() != 1)
    return emit(ctx, node.inputs, node.outputs.empty() ? "" : node.outputs[0]);
  std::vector<std::string> nchw;
  bool any_twin = false;
  for (const auto& in : node.inputs) {
    if (in.empty()) {
      nchw.push_back(in);
    } else if (const std::string* twin = ctx.TwinOf(in)) {
      nchw.push_back(*twin);
      any_twin = true;
    } else if (const Tensor* c = ctx.Constant(in)) {
      if (c->rank() > 4) return emit(ctx, node.inputs, node.outputs[0]);
      nchw.push_back(c->numel() == 1 ? in : ConstantToNchw(in, *c, ctx));
      if (nchw.back().empty()) return emit(ctx, node.inputs, node.outputs[0]);
    } else {
      return emit(ctx, node.inputs, node.outputs[0]);  // a plain NHWC value: stay NHWC
    }
  }
  if (!any_twin) return emit(ctx, node.inputs, node.outputs[0]);
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  WEBNX_RETURN_IF_ERROR(emit(ctx, nchw, out));
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

}  // namespace

// --- elementwise ---------------------------------------------------------------------------

Status LowerElementwise(const DslNode& node, Lowering& ctx) {
  OnnxAttrs attrs;
  WEBNX_RETURN_IF_ERROR(ConvertAttributes(node, ctx.files(), &attrs));
  if (!node.domain.empty()) return Passthrough(node, ctx);
  return LowerLayoutFree(
      node, ctx, [&](Lowering& c, const std::vector<std::string>& ins, const std::string& out) {
        if (node.outputs.size() != 1) return Passthrough(node, c);
        c.Emit(node.op, node.id, ins, {out}, attrs);
        return Status::Ok();
      });
}

// Relu6 = Clip(0, 6): bounds are inputs from opset 11, attributes before.
Status LowerRelu6(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectPlainUnary(node));
  return LowerLayoutFree(
      node, ctx, [&](Lowering& c, const std::vector<std::string>& ins, const std::string& out) {
        if (c.opset() >= 11) {
          const std::string lo = c.AddScalarFloat(node.id + "#min", 0.f);
          const std::string hi = c.AddScalarFloat(node.id + "#max", 6.f);
          c.Emit("Clip", node.id, {ins[0], lo, hi}, {out});
        } else {
          c.Emit("Clip", node.id, {ins[0]}, {out},
                 {{"min", FloatAttribute(0.f)}, {"max", FloatAttribute(6.f)}});
        }
        return Status::Ok();
      });
}

// HardSwish is ONNX from opset 14; before, x * HardSigmoid(x; 1/6, 0.5) is the same function.
Status LowerHardSwish(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectPlainUnary(node));
  return LowerLayoutFree(
      node, ctx, [&](Lowering& c, const std::vector<std::string>& ins, const std::string& out) {
        if (c.opset() >= 14) {
          c.Emit("HardSwish", node.id, {ins[0]}, {out});
          return Status::Ok();
        }
        const std::string gate = c.FreshName(out + "#gate");
        c.Emit("HardSigmoid", node.id + "#gate", {ins[0]}, {gate},
               {{"alpha", FloatAttribute(1.f / 6.f)}, {"beta", FloatAttribute(0.5f)}});
        c.Emit("Mul", node.id, {ins[0], gate}, {out});
        return Status::Ok();
      });
}

// --- matrices and shapes -------------------------------------------------------------------

// transA/transB: constants are transposed at load (last two dims); computed operands get a
// Transpose node, which reverses all dims, so they must be 2-D (the editor's MatMul is 2-D).
Status LowerMatMul(const DslNode& node, Lowering& ctx) {
  DslAttrs a(node);
  if (!a.Has("transA") && !a.Has("transB")) return Passthrough(node, ctx);
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 2, 2));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  bool trans[2] = {false, false};
  WEBNX_RETURN_IF_ERROR(a.Bool("transA", false, &trans[0]));
  WEBNX_RETURN_IF_ERROR(a.Bool("transB", false, &trans[1]));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  std::vector<std::string> ins = node.inputs;
  for (int i = 0; i < 2; ++i) {
    if (ins[i].empty()) return MalformedAt(node.InputPointer(i), "MatMul needs two inputs");
    if (!trans[i]) continue;
    std::vector<int64_t> perm = {1, 0};
    if (const Tensor* c = ctx.Constant(ins[i])) {
      if (c->rank() < 2) {
        return MalformedAt(node.AttrPointer(i == 0 ? "transA" : "transB"),
                           "cannot transpose the " + std::to_string(c->rank()) + "-D operand");
      }
      perm.resize(c->rank());
      for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    }
    ins[i] = ctx.Permuted(ins[i], perm, node.id + (i == 0 ? "#transA" : "#transB"));
  }
  ctx.Emit("MatMul", node.id, ins, node.outputs);
  return Status::Ok();
}

// Reshape { shape, allowzero } -> ONNX Reshape with the shape as an int64 initializer.
Status LowerReshape(const DslNode& node, Lowering& ctx) {
  DslAttrs a(node);
  if (!a.Has("shape")) return Passthrough(node, ctx);
  if (node.inputs.size() != 1) {
    return MalformedAt(
        node.pointer + "/inputs",
        "Reshape with a shape attribute takes 1 input, got " + std::to_string(node.inputs.size()));
  }
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  std::vector<int64_t> shape;
  bool present = false, allowzero = false;
  WEBNX_RETURN_IF_ERROR(a.IntList("shape", &shape, &present));
  WEBNX_RETURN_IF_ERROR(a.Bool("allowzero", false, &allowzero));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  OnnxAttrs attrs;
  if (allowzero) {
    if (ctx.opset() < 14) {
      return MalformedAt(node.AttrPointer("allowzero"), "needs opset 14 or later");
    }
    attrs["allowzero"] = IntAttribute(1);
  }
  const std::string target = ctx.AddInt64s(node.id + "#shape", shape);
  ctx.Emit("Reshape", node.id, {node.inputs[0], target}, node.outputs, std::move(attrs));
  return Status::Ok();
}

// Concat of NHWC values that all have NCHW twins concatenates the twins (axis remapped).
Status LowerConcat(const DslNode& node, Lowering& ctx) {
  if (!node.domain.empty()) return Passthrough(node, ctx);
  DslAttrs a(node);
  if (!a.Has("axis")) return MalformedAt(node.AttrPointer("axis"), "Concat needs an axis");
  int64_t axis = 0;
  WEBNX_RETURN_IF_ERROR(a.Int("axis", 0, &axis));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  if (node.inputs.empty()) return MalformedAt(node.pointer + "/inputs", "Concat needs inputs");
  std::vector<std::string> twins;
  for (const auto& in : node.inputs) {
    const std::string* twin = in.empty() ? nullptr : ctx.TwinOf(in);
    if (!twin) break;
    twins.push_back(*twin);
  }
  if (twins.size() != node.inputs.size() || axis < -4 || axis > 3) {
    ctx.Emit("Concat", node.id, node.inputs, node.outputs, {{"axis", IntAttribute(axis)}});
    return Status::Ok();
  }
  static const int64_t kNhwcAxisInNchw[] = {0, 2, 3, 1};
  const int64_t nchw_axis = kNhwcAxisInNchw[axis < 0 ? axis + 4 : axis];
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  ctx.Emit("Concat", node.id, twins, {out}, {{"axis", IntAttribute(nchw_axis)}});
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
