// A loaded model ready to run: the resolved graph (constants folded once), input validation
// and symbolic-dim binding, and a bounded cache of plans keyed by input shapes (a model whose
// inputs all have fixed shapes gets its one plan while it loads).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/limits.h"
#include "core/plan.h"

namespace webnx {

struct SessionOptions {
  size_t max_cached_plans = 8;
  // Threads a run may use (capped by ThreadPool::MaxThreads(); 1 in the single-threaded build).
  int num_threads = 1;
  // Bounds on what the model may ask for (core/limits.h); exceeding one is a coded error.
  SessionLimits limits;
};

// Gives symbolic dims of the graph's inputs and outputs a size by their name (onnxruntime's
// freeDimensionOverrides): they are declared fixed, so feeds are checked against the size, and
// a session of a graph whose inputs all become fixed is planned while it loads.
void FixSymbolicDims(const std::map<std::string, int64_t>& sizes, Graph* graph);

struct SessionStats {
  size_t plans_built = 0;
  size_t plan_cache_hits = 0;
  size_t graph_nodes = 0;   // nodes after load-time constant folding
  size_t loaded_nodes = 0;  // nodes in the model as loaded
  // Packed weights the plans share (ConstantCache): held besides the weights, and written
  // over weights only one conv reads.
  size_t packed_weight_bytes = 0;
  size_t packed_in_place_bytes = 0;
  PlanStats last_plan;
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

class Session {
 public:
  // ONNX bytes parsed into a graph, CreateFromOnnx's first half (the graph holds a copy).
  static Status LoadOnnx(const uint8_t* data, size_t size, const SessionOptions& options,
                         Graph* graph);
  // The same, taking the bytes: the graph's large initializers stay in them (LoadOnnxModel).
  // `files`: the side files of initializers stored outside the model (LoadOnnxModel).
  static Status LoadOnnx(std::shared_ptr<uint8_t> bytes, size_t size, const SessionOptions& options,
                         Graph* graph, const std::map<std::string, std::string>* files = nullptr);
  // From ONNX bytes.
  static Status CreateFromOnnx(const uint8_t* data, size_t size, const SessionOptions& options,
                               std::unique_ptr<Session>* out);
  // A JSON graph document parsed into a graph (CreateFromJson's first half, as LoadOnnx).
  static Status LoadJson(const char* text, size_t size,
                         const std::map<std::string, std::string>& files,
                         const SessionOptions& options, Graph* graph);
  // From a JSON graph document (webnx-graph or ONNX-JSON); `files` are the side files its
  // tensors name.
  static Status CreateFromJson(const char* text, size_t size,
                               const std::map<std::string, std::string>& files,
                               const SessionOptions& options, std::unique_ptr<Session>* out);
  // From a graph produced by any loader.
  static Status CreateFromGraph(Graph graph, const SessionOptions& options,
                                std::unique_ptr<Session>* out);

  const std::vector<ValueInfo>& inputs() const { return rg_.graph.inputs; }
  const std::vector<ValueInfo>& outputs() const { return rg_.graph.outputs; }
  const std::map<std::string, std::string>& metadata() const { return rg_.graph.metadata; }

  // Runs with named feeds (any order; each model input exactly once). The returned tensors
  // point into the session and stay valid until the next Run. With `fetched` ('1' or '0' per
  // output, "1011"), only the outputs marked '1' are computed; the others are null.
  Status Run(const std::vector<NamedTensor>& feeds, std::vector<const Tensor*>* outputs,
             std::vector<StepTiming>* profile = nullptr, const std::string& fetched = "");

  const SessionStats& stats() const { return stats_; }

 private:
  Session() = default;
  // Which graph inputs nodes read where their kernels need contents when planned.
  void FindPlanTimeInputs();
  Status CheckFeeds(const std::vector<NamedTensor>& feeds,
                    std::vector<const Tensor*>* ordered) const;
  Status GetPlan(const std::vector<const Tensor*>& ordered, const std::string& fetched,
                 Plan** plan);
  // Plans a model whose inputs all have fixed shapes while it loads.
  void PlanDeclaredShapes();

  ResolvedGraph rg_;
  ConstantCache constants_;  // packed weights, shared by the plans
  SessionOptions options_;
  SessionStats stats_;
  // Per graph input: a node needs its contents when planned, so plans specialise on them.
  std::vector<bool> value_needed_;
  // Most recently used first.
  std::list<std::pair<std::string, std::unique_ptr<Plan>>> plans_;
};

}  // namespace webnx
