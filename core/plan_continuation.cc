// Plans that end at a node whose output shapes only its run tells (NonZero, Unique, Compress,
// NonMaxSuppression...). The plan holds the graph up to that node, whose outputs are placed at
// their largest size; the rest of the graph is planned, the first time a run produces each set of
// its output shapes, as a plan of its own reading the values before it where they live. The
// shape-tensor fast path goes on past the node: the continuation knows everything the plan
// knew, and the node's outputs' shapes.
#include <climits>

#include "core/clock.h"
#include "core/plan_builder.h"

namespace webnx {
namespace {

// Continuations a plan keeps, most recently used first.
constexpr size_t kMaxContinuations = 8;

}  // namespace

Plan::~Plan() = default;

void Plan::Builder::ContinueAfter(size_t n) {
  auto c = std::make_unique<Continuation>();
  c->rg = &rg_;
  c->registry = &registry_;
  c->next_node = n + 1;
  c->fetched = fetched_;
  c->node = &graph_.nodes[n];
  const Step& step = plan_->steps_.back();
  c->outputs.assign(step.outputs.begin(), step.outputs.end());
  c->known = known_;
  c->slots = external_;
  for (const auto& kv : known_) {
    if (kv.second.value) continue;
    auto own = plan_->values_.find(kv.first);
    if (own != plan_->values_.end()) c->slots.set(kv.first, &own->second);
  }
  // What the continuation reads lives to the end of this plan.
  for (size_t m = n + 1; m < graph_.nodes.size(); ++m)
    if (Needed(m))
      for (const std::string& name : graph_.nodes[m].inputs) buffers_.ReadAt(name, INT_MAX);
  plan_->continuation_ = std::move(c);
}

Status Plan::Builder::BuildContinuation(const Continuation& from) {
  const double start_ms = NowMs();
  plan_->stats_.graph_nodes = graph_.nodes.size() - from.next_node;
  SelectNodes(from.fetched);
  BindConstants();
  for (const auto& kv : from.known)
    if (!kv.second.initializer) known_[kv.first] = kv.second;
  external_ = from.slots;
  for (size_t i = 0; i < from.outputs.size(); ++i)
    if (from.outputs[i]) known_[from.node->outputs[i]].shape = from.outputs[i]->shape;
  for (size_t n = from.next_node; n < graph_.nodes.size() && !plan_->continuation_; ++n)
    if (Needed(n)) WEBNX_RETURN_IF_ERROR(AddNode(n));
  WEBNX_RETURN_IF_ERROR(PlaceArena());
  Finish(start_ms);
  return Status::Ok();
}

Status Plan::ContinuationPlan(Plan** plan) {
  Continuation& c = *continuation_;
  std::string key;
  for (const Tensor* out : c.outputs)
    if (out) key += ShapeToString(out->shape) + ";";
  for (auto it = c.plans.begin(); it != c.plans.end(); ++it) {
    if (it->first != key) continue;
    c.plans.splice(c.plans.begin(), c.plans, it);
    *plan = c.plans.front().second.get();
    return Status::Ok();
  }
  Builder builder(*c.rg, *c.registry, std::unique_ptr<Plan>(new Plan()));
  WEBNX_RETURN_IF_ERROR(builder.BuildContinuation(c));
  c.plans.emplace_front(key, builder.Release());
  while (c.plans.size() > kMaxContinuations) c.plans.pop_back();
  *plan = c.plans.front().second.get();
  return Status::Ok();
}

}  // namespace webnx
