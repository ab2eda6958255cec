#include "core/session.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/graph_limits.h"
#include "core/loaders/json_loader.h"
#include "core/loaders/onnx_loader.h"
#include "core/passes/float16_in_float32.h"
#include "core/passes/fold_channel_affine.h"
#include "core/passes/fold_transposes.h"
#include "core/passes/fuse_chains.h"
#include "core/resolve.h"
#include "core/subgraph.h"

namespace webnx {

Status Session::LoadOnnx(const uint8_t* data, size_t size, const SessionOptions& options,
                         Graph* graph) {
  ScopedTensorByteLimit cap(options.limits.max_tensor_bytes);
  return LoadOnnxModel(data, size, options.limits, graph);
}

Status Session::LoadOnnx(std::shared_ptr<uint8_t> bytes, size_t size, const SessionOptions& options,
                         Graph* graph, const std::map<std::string, std::string>* files) {
  ScopedTensorByteLimit cap(options.limits.max_tensor_bytes);
  return LoadOnnxModel(std::move(bytes), size, options.limits, graph, files);
}

Status Session::CreateFromOnnx(const uint8_t* data, size_t size, const SessionOptions& options,
                               std::unique_ptr<Session>* out) {
  Graph graph;
  WEBNX_RETURN_IF_ERROR(LoadOnnx(data, size, options, &graph));
  return CreateFromGraph(std::move(graph), options, out);
}

Status Session::LoadJson(const char* text, size_t size,
                         const std::map<std::string, std::string>& files,
                         const SessionOptions& options, Graph* graph) {
  ScopedTensorByteLimit cap(options.limits.max_tensor_bytes);
  return LoadJsonModel(text, size, files, graph);
}

Status Session::CreateFromJson(const char* text, size_t size,
                               const std::map<std::string, std::string>& files,
                               const SessionOptions& options, std::unique_ptr<Session>* out) {
  Graph graph;
  WEBNX_RETURN_IF_ERROR(LoadJson(text, size, files, options, &graph));
  return CreateFromGraph(std::move(graph), options, out);
}

void FixSymbolicDims(const std::map<std::string, int64_t>& sizes, Graph* graph) {
  for (auto* infos : {&graph->inputs, &graph->outputs}) {
    for (ValueInfo& info : *infos) {
      for (Dim& d : info.dims) {
        auto size = sizes.find(d.symbol);
        if (d.symbol.empty() || size == sizes.end()) continue;
        d.value = size->second;
        d.symbol.clear();
      }
    }
  }
}

Status Session::CreateFromGraph(Graph graph, const SessionOptions& options,
                                std::unique_ptr<Session>* out) {
  ScopedTensorByteLimit cap(options.limits.max_tensor_bytes);
  WEBNX_RETURN_IF_ERROR(CheckGraphLimits(graph, options.limits));
  auto session = std::unique_ptr<Session>(new Session());
  session->rg_.graph = std::move(graph);
  session->rg_.limits = options.limits;
  session->options_ = options;
  if (session->options_.max_cached_plans == 0) session->options_.max_cached_plans = 1;
  session->rg_.threads = std::max(1, std::min(options.num_threads, ThreadPool::MaxThreads()));
  session->stats_.loaded_nodes = session->rg_.graph.nodes.size();
  ResolvedGraph& rg = session->rg_;
  int retyped = 0;
  WEBNX_RETURN_IF_ERROR(ComputeFloat16InFloat32(&rg.graph, OpRegistry::Default(), &retyped));
  WEBNX_RETURN_IF_ERROR(ResolveNodes(&rg));
  FuseChains(&rg, OpRegistry::Default());  // before folding: QDQ weights are still 8-bit
  WEBNX_RETURN_IF_ERROR(FoldConstantNodes(&rg));
  WEBNX_RETURN_IF_ERROR(FoldTransposes(&rg, OpRegistry::Default()));
  FoldChannelAffines(&rg, OpRegistry::Default());
  FuseChains(&rg, OpRegistry::Default());
  WEBNX_RETURN_IF_ERROR(ResolveSubgraphs(&rg));
  WEBNX_RETURN_IF_ERROR(PrepareGraphConstants(rg, &session->constants_));
  session->stats_.packed_weight_bytes = session->constants_.derived_bytes();
  session->stats_.packed_in_place_bytes = session->constants_.replaced_bytes();
  rg.constants = &session->constants_;
  session->FindPlanTimeInputs();
  session->stats_.graph_nodes = session->rg_.graph.nodes.size();
  session->PlanDeclaredShapes();
  *out = std::move(session);
  return Status::Ok();
}

Status Session::CheckFeeds(const std::vector<NamedTensor>& feeds,
                           std::vector<const Tensor*>* ordered) const {
  const auto& ins = inputs();
  ordered->assign(ins.size(), nullptr);
  auto expected_names = [&] {
    std::string s;
    for (const auto& in : ins) s += (s.empty() ? "'" : ", '") + in.name + "'";
    return s.empty() ? std::string("none") : s;
  };
  for (const auto& feed : feeds) {
    size_t idx = ins.size();
    for (size_t i = 0; i < ins.size(); ++i)
      if (ins[i].name == feed.name) idx = i;
    if (idx == ins.size()) {
      return Status(ErrorCode::kInvalidInput, "unknown input '" + feed.name +
                                                  "'; the model's inputs are " + expected_names());
    }
    if ((*ordered)[idx]) {
      return Status(ErrorCode::kInvalidInput, "input '" + feed.name + "' is given twice");
    }
    (*ordered)[idx] = &feed.tensor;
  }
  // Symbolic dims must bind consistently across inputs.
  std::map<std::string, std::pair<int64_t, std::string>> bound;
  for (size_t i = 0; i < ins.size(); ++i) {
    const ValueInfo& in = ins[i];
    const Tensor* t = (*ordered)[i];
    if (!t) {
      return Status(
          ErrorCode::kInvalidInput,
          "input '" + in.name + "' is missing; the model's inputs are " + expected_names());
    }
    if (t->dtype != in.dtype) {
      return Status(ErrorCode::kInvalidInput, "input '" + in.name + "' must be " +
                                                  DTypeName(in.dtype) + ", got " +
                                                  DTypeName(t->dtype));
    }
    int64_t numel = 0;
    if (!ShapeNumel(t->shape, &numel)) {
      return Status(ErrorCode::kInvalidInput,
                    "input '" + in.name + "' has an invalid shape " + ShapeToString(t->shape));
    }
    if (numel > 0 && !t->data) {
      return Status(ErrorCode::kInvalidInput, "input '" + in.name + "' has no data");
    }
    // Kernels rely on every shape they see being within the limits (no dim above 2^32).
    Status within =
        CheckShapeLimits(t->shape, DTypeSize(t->dtype), rg_.limits, "input '" + in.name + "'");
    if (!within.ok()) {
      const bool size = within.code() == ErrorCode::kOutOfMemory;
      return Status(size ? ErrorCode::kOutOfMemory : ErrorCode::kInvalidInput, within.message());
    }
    if (!in.has_shape) continue;
    auto declared = [&] {
      std::string s = "[";
      for (size_t d = 0; d < in.dims.size(); ++d) {
        if (d) s += ",";
        s += in.dims[d].fixed() ? std::to_string(in.dims[d].value)
                                : (in.dims[d].symbol.empty() ? "?" : in.dims[d].symbol);
      }
      return s + "]";
    };
    if (t->shape.size() != in.dims.size()) {
      return Status(ErrorCode::kShapeMismatch, "input '" + in.name + "' has shape " +
                                                   ShapeToString(t->shape) +
                                                   " but the model expects " + declared());
    }
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const Dim& dim = in.dims[d];
      if (dim.fixed() && dim.value != t->shape[d]) {
        return Status(ErrorCode::kShapeMismatch, "input '" + in.name + "' has shape " +
                                                     ShapeToString(t->shape) +
                                                     " but the model expects " + declared() +
                                                     " (dimension " + std::to_string(d) + ")");
      }
      if (!dim.symbol.empty()) {
        std::string where = "input '" + in.name + "' dimension " + std::to_string(d);
        auto it = bound.emplace(dim.symbol, std::make_pair(t->shape[d], where)).first;
        if (it->second.first != t->shape[d]) {
          return Status(ErrorCode::kShapeMismatch,
                        "dimension '" + dim.symbol + "' is " + std::to_string(it->second.first) +
                            " in " + it->second.second + " but " + std::to_string(t->shape[d]) +
                            " in " + where);
        }
      }
    }
  }
  return Status::Ok();
}

namespace {

// Integer inputs this small are shape-like (a target shape, axes, pads, a count): plans are
// specialised on their contents so that shape math on them happens at plan time. Small float
// inputs are too, once a node has shown it needs their values (Resize scales fed at run time).
constexpr int64_t kMaxSpecializedElements = 64;

bool IsFloat(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat16 || dtype == DType::kFloat64;
}

bool Specialize(const Tensor& t, bool float_needed) {
  return t.numel() <= kMaxSpecializedElements && (!IsFloat(t.dtype) || float_needed);
}

// The plan cache key: every input's shape, and the exact contents of specialised ones.
std::string PlanKey(const std::vector<const Tensor*>& inputs, const std::vector<bool>& specialize) {
  std::string key;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = *inputs[i];
    key += ShapeToString(t.shape);
    if (specialize[i]) {
      key += "=";
      const char* bytes = static_cast<const char*>(t.data);
      for (size_t b = 0; b < t.nbytes(); ++b) {
        static const char kHex[] = "0123456789abcdef";
        key += kHex[(bytes[b] >> 4) & 15];
        key += kHex[bytes[b] & 15];
      }
    }
    key += ";";
  }
  return key;
}

}  // namespace

void Session::FindPlanTimeInputs() {
  const Graph& graph = rg_.graph;
  const OpRegistry& registry = OpRegistry::Default();
  value_needed_.assign(graph.inputs.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    std::unique_ptr<Kernel> kernel = registry.Create(node.domain, node.op_type);
    if (!kernel) continue;  // Resolve reported it
    FormContext ctx(node, rg_.since_versions[n], ConstantInputs(graph, node));
    std::vector<int> positions;
    kernel->DeclarePlanTimeInputs(ctx, &positions);
    for (int p : positions) {
      if (p < 0 || static_cast<size_t>(p) >= node.inputs.size()) continue;
      for (size_t i = 0; i < graph.inputs.size(); ++i)
        if (graph.inputs[i].name == node.inputs[p]) value_needed_[i] = true;
    }
  }
}

Status Session::GetPlan(const std::vector<const Tensor*>& ordered, const std::string& fetched,
                        Plan** plan) {
  std::vector<bool> specialize;
  for (size_t i = 0; i < ordered.size(); ++i)
    specialize.push_back(Specialize(*ordered[i], value_needed_[i]));
  const std::string key = PlanKey(ordered, specialize) + fetched;  // a plan per set fetched
  for (auto it = plans_.begin(); it != plans_.end(); ++it) {
    if (it->first == key) {
      plans_.splice(plans_.begin(), plans_, it);
      ++stats_.plan_cache_hits;
      *plan = plans_.front().second.get();
      stats_.last_plan = (*plan)->stats();
      return Status::Ok();
    }
  }
  std::unique_ptr<Plan> fresh;
  WEBNX_RETURN_IF_ERROR(
      Plan::Build(rg_, OpRegistry::Default(), ordered, specialize, fetched, &fresh));
  ++stats_.plans_built;
  stats_.packed_weight_bytes = constants_.derived_bytes();
  stats_.packed_in_place_bytes = constants_.replaced_bytes();
  plans_.emplace_front(key, std::move(fresh));
  while (plans_.size() > options_.max_cached_plans) plans_.pop_back();
  *plan = plans_.front().second.get();
  stats_.last_plan = (*plan)->stats();
  return Status::Ok();
}

// A model whose inputs are all float tensors of fixed shape can only ever run at that shape:
// its plan (packed weights, arena, fused steps) is made here rather than in the first run, as
// the work create() is for. A plan that fails here fails again, with its message, in run().
void Session::PlanDeclaredShapes() {
  std::vector<Tensor> slots;
  for (size_t i = 0; i < inputs().size(); ++i) {
    const ValueInfo& in = inputs()[i];
    // Integer inputs may be shape-like: plans specialise on their values.
    if (!in.has_shape || !IsFloat(in.dtype)) return;
    Shape shape;
    for (const Dim& d : in.dims) {
      if (!d.fixed()) return;
      shape.push_back(d.value);
    }
    if (!CheckShapeLimits(shape, DTypeSize(in.dtype), rg_.limits, in.name).ok()) return;
    Tensor slot = Tensor::Borrow(in.dtype, shape, nullptr);  // planning reads shapes only
    if (Specialize(slot, value_needed_[i])) return;          // a plan needs its values
    slots.push_back(std::move(slot));
  }
  std::vector<const Tensor*> ordered;
  for (const Tensor& t : slots) ordered.push_back(&t);
  Plan* plan = nullptr;
  static_cast<void>(GetPlan(ordered, {}, &plan));  // on failure run() plans again and says why
}

Status Session::Run(const std::vector<NamedTensor>& feeds, std::vector<const Tensor*>* outputs,
                    std::vector<StepTiming>* profile, const std::string& fetched) {
  ScopedTensorByteLimit cap(rg_.limits.max_tensor_bytes);
  if (!fetched.empty() && (fetched.size() != this->outputs().size() ||
                           fetched.find_first_not_of("01") != std::string::npos)) {
    return Status(ErrorCode::kInvalidArgument, "fetched needs a '1' or '0' per output");
  }
  std::vector<const Tensor*> ordered;
  WEBNX_RETURN_IF_ERROR(CheckFeeds(feeds, &ordered));
  Plan* plan = nullptr;
  // Fetching every output is the same plan as fetching none named.
  const bool all = fetched.find('0') == std::string::npos;
  WEBNX_RETURN_IF_ERROR(GetPlan(ordered, all ? std::string() : fetched, &plan));
  return plan->Run(ordered, outputs, profile);
}

}  // namespace webnx
