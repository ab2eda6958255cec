// embind surface of the runtime. Errors never throw across the boundary: each call returns a
// status code (0 = ok) and the last error is read with errorCode()/errorMessage(). Tensor data
// moves through the wasm heap: JS writes inputs at the pointer allocInput() returns and reads
// outputs at outputPtr().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/session.h"
#include "kernels/simd/gemm_i8.h"
#include "kernels/simd/warm_up.h"
#include "wasm/heap_stats.h"

using emscripten::val;

namespace webnx {
namespace {

val DimsToJs(const std::vector<Dim>& dims) {
  val arr = val::array();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].fixed())
      arr.set(i, static_cast<double>(dims[i].value));
    else if (!dims[i].symbol.empty())
      arr.set(i, dims[i].symbol);
    else
      arr.set(i, val::null());
  }
  return arr;
}

val ValueInfosToJs(const std::vector<ValueInfo>& infos) {
  val arr = val::array();
  for (size_t i = 0; i < infos.size(); ++i) {
    val o = val::object();
    o.set("name", infos[i].name);
    o.set("dtype", std::string(DTypeName(infos[i].dtype)));
    o.set("dims", infos[i].has_shape ? DimsToJs(infos[i].dims) : val::null());
    arr.set(i, o);
  }
  return arr;
}

}  // namespace

class WasmSession {
 public:
  // Threads each run may use (the threaded build; 1 otherwise). Applies to the next load.
  void setNumThreads(int threads) { num_threads_ = threads; }
  // The limits' names (LimitFields), comma-separated: options.limits is checked in JS
  // (js/wasm-session.mjs), which sets each by its index here, for the next load.
  static std::string limitNames() {
    std::string names;
    for (const LimitField& f : LimitFields())
      names += std::string(names.empty() ? "" : ",") + f.name;
    return names;
  }
  void setLimit(int index, double value) {
    if (index >= 0 && static_cast<size_t>(index) < LimitFields().size())
      limits_.*(LimitFields()[index].member) = static_cast<int64_t>(value);
  }
  static int maxThreads() { return ThreadPool::MaxThreads(); }
  // options.freeDimensionOverrides (checked in JS): `symbol` is `size` from the next load on.
  void overrideDim(const std::string& symbol, double size) {
    dim_overrides_[symbol] = static_cast<int64_t>(size);
  }

  // Model and side-file bytes come through a heap buffer JS fills with HEAPU8.set (one
  // memcpy): embind's std::string conversion of a Uint8Array copies a byte at a time in JS,
  // 40 ms for MobileNetV2. Returns the buffer (0 with OutOfMemory when the heap cannot grow).
  uintptr_t stageBytes(double size) {
    DropBytes();
    if (!(size >= 0 && size <= 4294967295.0)) {
      Record(Status(ErrorCode::kOutOfMemory, "cannot stage " + std::to_string(size) + " bytes"));
      return 0;
    }
    const size_t n = static_cast<size_t>(size);
    bytes_.reset(static_cast<uint8_t*>(std::malloc(n ? n : 1)));
    if (!bytes_) {
      Record(Status(ErrorCode::kOutOfMemory,
                    "the wasm heap cannot hold a model of " + std::to_string(n) + " bytes"));
      return 0;
    }
    bytes_size_ = n;
    return reinterpret_cast<uintptr_t>(bytes_.get());
  }

  // Side files the model names (a JSON document's "file"s, ONNX external data): each is staged
  // and added before load, which consumes them.
  void addExternalFile(const std::string& name) {
    files_[name].assign(reinterpret_cast<const char*>(bytes_.get()), bytes_size_);
    DropBytes();
  }

  // A model from the staged bytes, with the side files added: an ONNX model, which takes the
  // bytes (its weights stay in them; external ones are copied from their files), or a JSON graph
  // document (webnx-graph or ONNX-JSON, UTF-8). One entry point for both: each costs code.
  int load(int max_cached_plans, bool json) {
    const SessionOptions options = Options(max_cached_plans);
    Graph graph;
    Status parsed;
    if (json) {
      parsed = Session::LoadJson(reinterpret_cast<const char*>(bytes_.get()), bytes_size_, files_,
                                 options, &graph);
    } else {
      const size_t size = bytes_size_;
      std::shared_ptr<uint8_t> bytes(bytes_.release(), FreeBytes());
      DropBytes();
      parsed = Session::LoadOnnx(std::move(bytes), size, options, &graph, &files_);
    }
    files_.clear();
    return CreateSession(std::move(parsed), std::move(graph), options);
  }

  val inputs() const { return session_ ? ValueInfosToJs(session_->inputs()) : val::array(); }
  val outputs() const { return session_ ? ValueInfosToJs(session_->outputs()) : val::array(); }

  // Stages one feed; returns the heap address to write its bytes at (0 on error, when every
  // feed staged so far is dropped too: a run is all or nothing).
  uintptr_t allocInput(const std::string& name, int dtype_code, val js_dims) {
    if (!IsSupportedDType(dtype_code)) {
      staged_.clear();
      Record(Status(ErrorCode::kUnsupportedDtype, "input '" + name + "' has an unsupported dtype"));
      return 0;
    }
    Shape shape;
    const unsigned rank = js_dims["length"].as<unsigned>();
    for (unsigned i = 0; i < rank; ++i) {
      const val v = js_dims[i];
      const double d = v.isNumber() ? v.as<double>() : -1;
      // Checked before the cast, which is undefined for NaN and beyond int64.
      if (!(d >= 0 && d <= 9007199254740992.0) ||
          d != static_cast<double>(static_cast<int64_t>(d))) {
        staged_.clear();
        Record(Status(ErrorCode::kInvalidInput,
                      "input '" + name + "' has a dimension that is not a non-negative integer"));
        return 0;
      }
      shape.push_back(static_cast<int64_t>(d));
    }
    Staged& st = staged_[name];
    // JS writes every byte right away: zeroing them first cost ~0.1 ms per 224x224 image.
    Status s = Tensor::AllocateUninitialized(static_cast<DType>(dtype_code), shape, &st.tensor);
    if (!s.ok()) {
      staged_.clear();
      Record(Status(s.code(), "input '" + name + "': " + s.message()));
      return 0;
    }
    return reinterpret_cast<uintptr_t>(st.tensor.data);
  }

  // Drops the feeds staged for a run that will not happen (JS failed while staging them).
  void discardInputs() { staged_.clear(); }

  // `fetched`: '1' or '0' per output, whether to compute it (empty: all); unfetched outputs'
  // slots are null.
  int run(bool profile, const std::string& fetched) {
    outputs_.clear();
    if (!session_) return Record(Status(ErrorCode::kInvalidArgument, "the session is not loaded"));
    std::vector<NamedTensor> feeds;
    for (auto& kv : staged_) feeds.push_back(NamedTensor{kv.first, kv.second.tensor});
    staged_.clear();  // feeds hold the storage until the run is over
    return Record(session_->Run(feeds, &outputs_, profile ? &profile_ : nullptr, fetched));
  }

  int outputCount() const { return static_cast<int>(outputs_.size()); }
  std::string outputDtype(int i) const { return DTypeName(outputs_[i]->dtype); }
  val outputDims(int i) const {
    val arr = val::array();
    for (size_t d = 0; d < outputs_[i]->shape.size(); ++d)
      arr.set(d, static_cast<double>(outputs_[i]->shape[d]));
    return arr;
  }
  uintptr_t outputPtr(int i) const { return reinterpret_cast<uintptr_t>(outputs_[i]->data); }
  double outputBytes(int i) const { return static_cast<double>(outputs_[i]->nbytes()); }

  val stats() const {
    val o = val::object();
    if (!session_) return o;
    const SessionStats& s = session_->stats();
    o.set("plansBuilt", static_cast<double>(s.plans_built));
    o.set("planCacheHits", static_cast<double>(s.plan_cache_hits));
    o.set("loadedNodes", static_cast<double>(s.loaded_nodes));
    o.set("graphNodes", static_cast<double>(s.graph_nodes));
    o.set("packedWeightBytes", static_cast<double>(s.packed_weight_bytes));
    o.set("packedInPlaceBytes", static_cast<double>(s.packed_in_place_bytes));
    o.set("runSteps", static_cast<double>(s.last_plan.run_steps));
    o.set("foldedNodes", static_cast<double>(s.last_plan.folded_nodes));
    o.set("fusedNodes", static_cast<double>(s.last_plan.fused_nodes));
    o.set("shapeSteps", static_cast<double>(s.last_plan.shape_steps));
    o.set("activationBytes", static_cast<double>(s.last_plan.activation_bytes));
    o.set("planMs", s.last_plan.build_ms);
    return o;
  }

  // [{ node, op, ms, shape }] of the last profiled run.
  val profile() const {
    val arr = val::array();
    for (size_t i = 0; i < profile_.size(); ++i) {
      val o = val::object();
      o.set("node", profile_[i].node);
      o.set("op", profile_[i].op_type);
      o.set("ms", profile_[i].ms);
      o.set("shape", ShapeToString(profile_[i].output_shape));
      arr.set(i, o);
    }
    return arr;
  }

  std::string errorCode() const { return ErrorCodeName(last_.code()); }
  std::string errorMessage() const { return last_.message(); }

  void release() {
    session_.reset();
    DropBytes();
    files_.clear();
    staged_.clear();
    outputs_.clear();
  }

 private:
  struct Staged {
    Tensor tensor;
  };
  struct FreeBytes {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  void DropBytes() {
    bytes_.reset();
    bytes_size_ = 0;
  }
  int Record(Status s) {
    last_ = std::move(s);
    return static_cast<int>(last_.code());
  }
  // load()'s options.
  SessionOptions Options(int max_cached_plans) const {
    SessionOptions options;
    options.num_threads = num_threads_;
    options.limits = limits_;
    if (max_cached_plans > 0) options.max_cached_plans = static_cast<size_t>(max_cached_plans);
    return options;
  }
  // The session of a parsed graph. Staged bytes left (a JSON document's) go first: the graph
  // holds its own copies, and its passes and plans then reuse that memory.
  int CreateSession(Status parsed, Graph graph, const SessionOptions& options) {
    DropBytes();
    FixSymbolicDims(dim_overrides_, &graph);
    if (parsed.ok()) parsed = Session::CreateFromGraph(std::move(graph), options, &session_);
    return Record(std::move(parsed));
  }

  std::unique_ptr<Session> session_;
  int num_threads_ = 1;
  SessionLimits limits_;
  std::map<std::string, int64_t> dim_overrides_;
  std::unique_ptr<uint8_t, FreeBytes> bytes_;  // staged model or side-file bytes
  size_t bytes_size_ = 0;
  std::map<std::string, std::string> files_;
  std::map<std::string, Staged> staged_;
  std::vector<const Tensor*> outputs_;
  std::vector<StepTiming> profile_;
  Status last_;
};

val SupportedOps() {
  val arr = val::array();
  auto names = OpRegistry::Default().OpNames();
  for (size_t i = 0; i < names.size(); ++i) arr.set(i, names[i]);
  return arr;
}

// Every registered op version, a line each: "domain op since min_in max_in min_out max_out"
// (domain "-" for the default one, max -1 for no upper bound): what docs/ops.md lists. Text,
// not JS objects: the docs need it, the runtime does not, so it costs as little code as can be.
std::string OpSchemas() {
  std::string text;
  const auto count = [](int n) { return std::to_string(n == OpArity::kVariadic ? -1 : n); };
  for (const OpSchema& s : OpRegistry::Default().Schemas()) {
    text += (s.domain.empty() ? "-" : s.domain) + " " + s.op_type + " " +
            std::to_string(s.since_version) + " " + count(s.arity.min_inputs) + " " +
            count(s.arity.max_inputs) + " " + count(s.arity.min_outputs) + " " +
            count(s.arity.max_outputs) + "\n";
  }
  return text;
}

EMSCRIPTEN_BINDINGS(webnx) {
  emscripten::class_<WasmSession>("WasmSession")
      .constructor<>()
      .function("stageBytes", &WasmSession::stageBytes)
      .function("load", &WasmSession::load)
      .function("addExternalFile", &WasmSession::addExternalFile)
      .function("setNumThreads", &WasmSession::setNumThreads)
      .class_function("limitNames", &WasmSession::limitNames)
      .function("setLimit", &WasmSession::setLimit)
      .function("overrideDim", &WasmSession::overrideDim)
      .class_function("maxThreads", &WasmSession::maxThreads)
      .function("inputs", &WasmSession::inputs)
      .function("outputs", &WasmSession::outputs)
      .function("allocInput", &WasmSession::allocInput)
      .function("discardInputs", &WasmSession::discardInputs)
      .function("run", &WasmSession::run)
      .function("outputCount", &WasmSession::outputCount)
      .function("outputDtype", &WasmSession::outputDtype)
      .function("outputDims", &WasmSession::outputDims)
      .function("outputPtr", &WasmSession::outputPtr)
      .function("outputBytes", &WasmSession::outputBytes)
      .function("stats", &WasmSession::stats)
      .function("profile", &WasmSession::profile)
      .function("errorCode", &WasmSession::errorCode)
      .function("errorMessage", &WasmSession::errorMessage)
      .function("release", &WasmSession::release);
  emscripten::function("supportedOps", &SupportedOps);
  emscripten::function("opSchemas", &OpSchemas);
  emscripten::function("warmUpKernels", &simd::WarmUpKernels);
  emscripten::function(
      "int8Product", +[] {
        return std::string(simd::FastestForm() == simd::I8Form::kQuads ? "relaxed-dot" : "i16-dot");
      });
  emscripten::function("heapStats", &HeapStats);
  emscripten::function("setWorkersStarted", &ThreadPool::SetWorkersStarted);
  emscripten::function(
      "threadPoolHelperJoins", +[] { return static_cast<double>(ThreadPool::HelperJoins()); });
}

}  // namespace webnx
