// Scan: iterates its body over slices of the scan inputs along their scan axes (either
// direction), carrying state tensors, and stacks the body's per-iteration scan outputs along
// their own axes. The sequence length is a shape, so everything is known when the plan is made:
// the body is planned once, slices are gathered into and scattered from buffers sized then.
// Scan-8 has a batch axis before everything (each batch item scanned on its own, over its own
// sequence length; outputs past it are zeros) where Scan-9 has scan axes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "kernels/registrations.h"
#include "kernels/subgraph_runner.h"

namespace webnx {
namespace {

// A tensor seen as [outer, length, inner] around one axis, in bytes for inner.
struct AxisView {
  int64_t outer = 1;
  int64_t length = 1;
  size_t inner_bytes = 0;
};

AxisView ViewAround(const Shape& shape, int64_t axis, DType dtype) {
  AxisView v;
  size_t inner = DTypeSize(dtype);
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis) v.outer *= shape[d];
    if (d == axis) v.length = shape[d];
    if (d > axis) inner *= static_cast<size_t>(shape[d]);
  }
  v.inner_bytes = inner;
  return v;
}

// Copies position `at` along the axis of `whole` to or from `slice` (the tensor without it).
void CopySlice(const AxisView& v, int64_t at, uint8_t* whole, uint8_t* slice, bool to_slice) {
  for (int64_t o = 0; o < v.outer; ++o) {
    uint8_t* in_whole = whole + (o * v.length + at) * static_cast<int64_t>(v.inner_bytes);
    uint8_t* in_slice = slice + o * static_cast<int64_t>(v.inner_bytes);
    if (to_slice)
      std::memcpy(in_slice, in_whole, v.inner_bytes);
    else
      std::memcpy(in_whole, in_slice, v.inner_bytes);
  }
}

class ScanKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    Attrs& attrs = ctx.attrs();
    const Node& node = ctx.node();
    batched_ = ctx.since_version() == 8;
    first_ = batched_ ? 1 : 0;  // Scan-8's sequence_lens comes first
    const int own = static_cast<int>(node.inputs.size()) - node.captured_inputs - first_;
    scan_inputs_ = static_cast<int>(attrs.Int("num_scan_inputs", 0));
    states_ = own - scan_inputs_;
    if (scan_inputs_ < 1 || states_ < 0) {
      return ctx.Error(ErrorCode::kMalformedModel, "num_scan_inputs is " +
                                                       std::to_string(scan_inputs_) + " with " +
                                                       std::to_string(own) + " inputs");
    }
    for (int i = first_; i < first_ + own; ++i)  // states and scanned inputs are never omitted
      WEBNX_RETURN_IF_ERROR(ctx.ExpectPresent(i));
    const std::vector<int64_t> zeros(scan_inputs_, 0);
    in_axes_ = batched_ ? zeros : attrs.Ints("scan_input_axes", zeros);
    in_reverse_ = attrs.Ints(batched_ ? "directions" : "scan_input_directions", zeros);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    WEBNX_RETURN_IF_ERROR(FindBatch(ctx));
    WEBNX_RETURN_IF_ERROR(PlanScanInputs(ctx));
    WEBNX_RETURN_IF_ERROR(PlanBody(ctx));
    return PlanOutputs(ctx);
  }

  Status Run(RunContext& ctx) override {
    const bool lengths = batched_ && ctx.has_input(0);
    for (int64_t b = 0; b < batch_; ++b) {
      const int64_t length = lengths ? ctx.input(0).IntAt(b) : length_;
      if (length < 0 || length > length_) {
        return Status(ErrorCode::kInvalidInput, node_ + ": sequence_lens[" + std::to_string(b) +
                                                    "] is " + std::to_string(length) +
                                                    ", outside [0, " + std::to_string(length_) +
                                                    "]");
      }
      WEBNX_RETURN_IF_ERROR(RunSequence(ctx, b, length));
    }
    return Status::Ok();
  }

 private:
  // Input i's (or output k's) bytes of batch item b.
  uint8_t* InputItem(RunContext& ctx, int i, int64_t b) const {
    const Tensor& t = ctx.input(i);
    return static_cast<uint8_t*>(const_cast<void*>(t.data)) + b * (t.nbytes() / batch_);
  }
  uint8_t* OutputItem(RunContext& ctx, int k, int64_t b) const {
    Tensor& t = ctx.output(k);
    return t.ptr<uint8_t>() + b * (t.nbytes() / batch_);
  }

  // One batch item (the whole tensors after Scan-9) scanned over `length` positions.
  Status RunSequence(RunContext& ctx, int64_t b, int64_t length) {
    int cur = 0;
    for (int j = 0; j < states_; ++j)
      std::memcpy(state_[cur][j].data, InputItem(ctx, first_ + j, b), state_[cur][j].nbytes());
    for (int m = 0; m < scan_inputs_; ++m) body_.Bind(states_ + m, &slices_[m]);
    for (size_t c = 0; c < captured_.size(); ++c)
      body_.Bind(states_ + scan_inputs_ + c, &ctx.input(captured_[c]));
    for (int64_t t = 0; t < length; ++t) {
      for (int m = 0; m < scan_inputs_; ++m) {
        const int64_t at = in_reverse_[m] ? length - 1 - t : t;
        CopySlice(in_views_[m], at, InputItem(ctx, first_ + states_ + m, b),
                  slices_[m].ptr<uint8_t>(), true);
      }
      for (int j = 0; j < states_; ++j) body_.Bind(j, &state_[cur][j]);
      WEBNX_RETURN_IF_ERROR(body_.Run());
      for (int j = 0; j < states_; ++j) CopyTensor(body_.result(j), state_[1 - cur][j]);
      for (int k = 0; k < scan_outputs_; ++k) {
        if (!ctx.has_output(states_ + k)) continue;
        const int64_t at = out_reverse_[k] ? length - 1 - t : t;
        const Tensor& slice = body_.result(states_ + k);
        CopySlice(out_views_[k], at, OutputItem(ctx, states_ + k, b),
                  static_cast<uint8_t*>(const_cast<void*>(slice.data)), false);
      }
      cur = 1 - cur;
    }
    for (int k = 0; k < scan_outputs_; ++k) {
      if (!ctx.has_output(states_ + k)) continue;
      for (int64_t at = length; at < length_; ++at)
        CopySlice(out_views_[k], at, OutputItem(ctx, states_ + k, b), zeros_.ptr<uint8_t>(), false);
    }
    for (int j = 0; j < states_; ++j) {
      if (ctx.has_output(j))
        std::memcpy(OutputItem(ctx, j, b), state_[cur][j].data, state_[cur][j].nbytes());
    }
    return Status::Ok();
  }

  // Scan-8: the batch size every input shares, and sequence_lens' shape. Scan-9: one item.
  Status FindBatch(PlanContext& ctx) {
    node_ = ctx.node().Describe();
    batch_ = 1;
    if (!batched_) return Status::Ok();
    batch_ = -1;
    for (int i = first_; i < first_ + states_ + scan_inputs_; ++i) {
      const Shape& shape = ctx.shape(i);
      if (shape.empty() || (batch_ >= 0 && shape[0] != batch_)) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "input " + std::to_string(i) + " of shape " + ShapeToString(shape) +
                             " does not share the batch axis of the others");
      }
      batch_ = shape[0];
    }
    if (ctx.has_input(0)) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kInt64}));
      if (ctx.shape(0) != Shape{batch_})
        return ctx.Error(ErrorCode::kShapeMismatch, "sequence_lens must have shape [batch]");
    }
    return Status::Ok();
  }

  // Input i's shape per batch item.
  Shape ItemShape(const PlanContext& ctx, int i) const {
    const Shape& shape = ctx.shape(i);
    return batched_ ? Shape(shape.begin() + 1, shape.end()) : shape;
  }

  // Scan axes normalised, one sequence length, and a buffer for each input's slice.
  Status PlanScanInputs(PlanContext& ctx) {
    if (static_cast<int>(in_axes_.size()) != scan_inputs_ ||
        static_cast<int>(in_reverse_.size()) != scan_inputs_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "scan_input_axes and scan_input_directions need one entry per scan input");
    }
    length_ = -1;
    in_views_.clear();
    slices_.assign(scan_inputs_, Tensor());
    for (int m = 0; m < scan_inputs_; ++m) {
      const Shape shape = ItemShape(ctx, first_ + states_ + m);
      const int64_t rank = static_cast<int64_t>(shape.size());
      int64_t& axis = in_axes_[m];
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "scan input " + std::to_string(m) + " of shape " + ShapeToString(shape) +
                             " has no axis " + std::to_string(in_axes_[m]));
      }
      if (length_ >= 0 && shape[axis] != length_) {
        return ctx.Error(ErrorCode::kShapeMismatch, "scan inputs have sequence lengths " +
                                                        std::to_string(length_) + " and " +
                                                        std::to_string(shape[axis]));
      }
      length_ = shape[axis];
      const DType dtype = ctx.dtype(first_ + states_ + m);
      in_views_.push_back(ViewAround(shape, axis, dtype));
      Shape slice = shape;
      slice.erase(slice.begin() + axis);
      WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, slice, &slices_[m]));
    }
    return Status::Ok();
  }

  Status PlanBody(PlanContext& ctx) {
    ResolvedSubgraph* body = ctx.subgraph("body");
    if (!body) return ctx.Error(ErrorCode::kMalformedModel, "has no subgraph attribute 'body'");
    const size_t own_inputs = static_cast<size_t>(states_ + scan_inputs_);
    if (body->rg.graph.inputs.size() < own_inputs) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "its body takes " + std::to_string(body->rg.graph.inputs.size()) +
                           " inputs; it needs " + std::to_string(own_inputs));
    }
    std::vector<PlannedValue> inputs;
    for (int j = 0; j < states_; ++j)
      inputs.push_back(PlannedValue{ctx.dtype(first_ + j), ItemShape(ctx, first_ + j), nullptr});
    for (int m = 0; m < scan_inputs_; ++m)
      inputs.push_back(PlannedValue{slices_[m].dtype, slices_[m].shape, nullptr});
    WEBNX_RETURN_IF_ERROR(CapturedInputPositions(ctx, *body, own_inputs, &captured_));
    for (int i : captured_) inputs.push_back(PlannedInput(ctx, i));
    WEBNX_RETURN_IF_ERROR(body_.Plan(*body, inputs, ctx.node().Describe() + ", body"));
    for (int j = 0; j < states_; ++j) {
      const Tensor& out = body_.output(j);
      const DType dtype = ctx.dtype(first_ + j);
      const Shape shape = ItemShape(ctx, first_ + j);
      if (out.dtype == dtype && out.shape == shape) continue;
      return ctx.Error(ErrorCode::kUnsupportedOperator,
                       "state '" + ctx.node().inputs[first_ + j] + "' goes into the body as " +
                           DTypeName(dtype) + ShapeToString(shape) + " and comes out " +
                           DTypeName(out.dtype) + ShapeToString(out.shape) +
                           ": a scan's states keep their dtype and shape");
    }
    for (auto& buffers : state_) {
      buffers.assign(states_, Tensor());
      for (int j = 0; j < states_; ++j)
        WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
            ctx.dtype(first_ + j), ItemShape(ctx, first_ + j), &buffers[j]));
    }
    return Status::Ok();
  }

  Status PlanOutputs(PlanContext& ctx) {
    scan_outputs_ = static_cast<int>(body_.num_outputs()) - states_;
    if (scan_outputs_ < 0 || ctx.num_outputs() > states_ + scan_outputs_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "its body gives " + std::to_string(body_.num_outputs()) + " outputs for " +
                           std::to_string(states_) + " states and " +
                           std::to_string(ctx.num_outputs()) + " node outputs");
    }
    Attrs& attrs = ctx.attrs();
    std::vector<int64_t> axes =
        attrs.Ints("scan_output_axes", std::vector<int64_t>(scan_outputs_, 0));
    out_reverse_ = attrs.Ints("scan_output_directions", std::vector<int64_t>(scan_outputs_, 0));
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (static_cast<int>(axes.size()) != scan_outputs_ ||
        static_cast<int>(out_reverse_.size()) != scan_outputs_) {
      return ctx.Error(
          ErrorCode::kMalformedModel,
          "scan_output_axes and scan_output_directions need one entry per scan output");
    }
    for (int j = 0; j < states_ && j < ctx.num_outputs(); ++j)
      if (ctx.has_output(j)) ctx.SetOutput(j, ctx.dtype(first_ + j), ctx.shape(first_ + j));
    out_views_.clear();
    size_t largest_slice = 0;
    for (int k = 0; k < scan_outputs_; ++k) {
      const Tensor& slice = body_.output(states_ + k);
      const int64_t rank = static_cast<int64_t>(slice.shape.size()) + 1;
      int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
      if (axis < 0 || axis >= rank) {
        return ctx.Error(ErrorCode::kMalformedModel, "scan output " + std::to_string(k) +
                                                         " has no axis " + std::to_string(axes[k]));
      }
      Shape shape = slice.shape;
      shape.insert(shape.begin() + axis, length_);
      out_views_.push_back(ViewAround(shape, axis, slice.dtype));
      largest_slice = std::max(largest_slice, slice.nbytes());
      if (batched_) shape.insert(shape.begin(), batch_);
      if (states_ + k < ctx.num_outputs() && ctx.has_output(states_ + k))
        ctx.SetOutput(states_ + k, slice.dtype, shape);
    }
    // What the positions past a batch item's sequence length are filled from.
    return Tensor::Allocate(DType::kBool, {static_cast<int64_t>(largest_slice)}, &zeros_);
  }

  std::string node_;
  bool batched_ = false;  // Scan-8
  int first_ = 0;         // the first state's input position
  int64_t batch_ = 1;     // batch items (Scan-8), each scanned on its own
  int states_ = 0;
  int scan_inputs_ = 0;
  int scan_outputs_ = 0;
  int64_t length_ = 0;  // iterations: the scan inputs' length along their axes
  std::vector<int64_t> in_axes_, in_reverse_, out_reverse_;
  std::vector<AxisView> in_views_, out_views_;
  std::vector<Tensor> slices_;  // each scan input's slice of the current iteration
  Tensor zeros_;
  SubgraphRunner body_;
  std::vector<int> captured_;     // the node input bound to each captured body input
  std::vector<Tensor> state_[2];  // the states going in, and coming out, of an iteration
};

}  // namespace

void RegisterScanKernels(OpRegistry& r) {
  r.Register("", "Scan",
             {{{8}, Inputs::AtLeast(2), Outputs::AtLeast(1)},
              {{9, 11, 16, 19, 21, 23, 24, 25}, Inputs::AtLeast(1), Outputs::AtLeast(1)}},
             MakeKernel<ScanKernel>);
}

}  // namespace webnx
