#include "core/loaders/json_graph_check.h"

#include <unordered_map>

#include "core/loaders/json_pointer.h"

namespace webnx {
namespace jsonl {
namespace {

struct Definition {
  int node;  // -1 for sources
  std::string pointer;
};

// Definitions by name, in a <string, int> map (the .wasm's one string-keyed hash table
// instantiation) over a vector.
struct Definitions {
  std::unordered_map<std::string, int> index;
  std::vector<Definition> all;
  const Definition* Find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? nullptr : &all[it->second];
  }
};

// Follows not-yet-ordered producers from a stuck node until a node repeats: that is a cycle.
std::string DescribeCycle(const std::vector<NodeRefs>& nodes, const Definitions& defs,
                          const std::vector<int>& pending, int start, int* on_cycle) {
  std::vector<int> path;
  std::vector<int> seen_at(nodes.size(), -1);
  int at = start;
  while (seen_at[at] < 0) {
    seen_at[at] = static_cast<int>(path.size());
    path.push_back(at);
    int next = -1;
    for (const NamedRef& in : nodes[at].inputs) {
      const Definition* d = defs.Find(in.name);
      if (d && d->node >= 0 && pending[d->node] > 0) {
        next = d->node;
        break;
      }
    }
    if (next < 0) break;  // unreachable: a stuck node always has a stuck producer
    at = next;
  }
  *on_cycle = at;
  std::string text;
  const size_t first = seen_at[at] < 0 ? 0 : static_cast<size_t>(seen_at[at]);
  for (size_t i = path.size(); i-- > first;) {
    text += "'" + nodes[path[i]].label + "' -> ";
    if (path.size() - i > 8) {
      text += "... -> ";
      break;
    }
  }
  return text + "'" + nodes[path.back()].label + "'";
}

}  // namespace

Status CheckGraphRefs(const std::vector<NamedRef>& sources, const std::vector<NodeRefs>& nodes,
                      const std::vector<NamedRef>& graph_outputs, std::vector<int>* order) {
  Definitions defs;
  auto define = [&](const NamedRef& ref, int node) -> Status {
    if (ref.name.empty()) return Status::Ok();
    auto inserted = defs.index.emplace(ref.name, static_cast<int>(defs.all.size()));
    if (!inserted.second) {
      return MalformedAt(ref.pointer, "'" + ref.name + "' is already defined at " +
                                          ShowPointer(defs.all[inserted.first->second].pointer));
    }
    defs.all.push_back(Definition{node, ref.pointer});
    return Status::Ok();
  };
  for (const NamedRef& s : sources) WEBNX_RETURN_IF_ERROR(define(s, -1));
  const int n = static_cast<int>(nodes.size());
  for (int i = 0; i < n; ++i) {
    for (const NamedRef& out : nodes[i].outputs) WEBNX_RETURN_IF_ERROR(define(out, i));
  }
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    for (const NamedRef& in : nodes[i].inputs) {
      if (in.name.empty()) continue;
      const Definition* d = defs.Find(in.name);
      if (!d) {
        return MalformedAt(in.pointer, "'" + in.name +
                                           "' is not defined (no graph input, tensor or node "
                                           "output has that name)");
      }
      if (d->node >= 0) {
        ++pending[i];
        users[d->node].push_back(i);
      }
    }
  }
  for (const NamedRef& out : graph_outputs) {
    if (!defs.Find(out.name)) {
      return MalformedAt(out.pointer, "graph output '" + out.name +
                                          "' is not defined by any input, tensor or node");
    }
  }
  // Kahn's algorithm; the ready stack is popped lowest index first.
  std::vector<int> ready;
  for (int i = n - 1; i >= 0; --i)
    if (pending[i] == 0) ready.push_back(i);
  std::vector<int> sorted;
  sorted.reserve(n);
  while (!ready.empty()) {
    const int i = ready.back();
    ready.pop_back();
    sorted.push_back(i);
    for (int u : users[i]) {
      if (--pending[u] == 0) ready.push_back(u);
    }
  }
  if (static_cast<int>(sorted.size()) == n) {
    if (order) *order = std::move(sorted);
    return Status::Ok();
  }
  for (int i = 0; i < n; ++i) {
    if (pending[i] > 0) {
      int on_cycle = i;
      const std::string cycle = DescribeCycle(nodes, defs, pending, i, &on_cycle);
      return MalformedAt(nodes[on_cycle].pointer, "the graph has a cycle: " + cycle);
    }
  }
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
