#include "tests/fuzz/fuzz_common.h"

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace webnx::fuzz {
namespace {

constexpr int64_t kMaxInputElements = 1 << 16;  // over all inputs of one run

// Mostly ordinary values; now and then the ones kernels get wrong (NaN, infinities, extremes).
float RandomFloat(std::mt19937_64& rng) {
  switch (rng() % 16) {
    case 0:
      return std::numeric_limits<float>::quiet_NaN();
    case 1:
      return rng() % 2 ? std::numeric_limits<float>::infinity()
                       : -std::numeric_limits<float>::infinity();
    case 2:
      return rng() % 2 ? 3e38f : -3e38f;
    default:
      return std::uniform_real_distribution<float>(-3.f, 3.f)(rng);
  }
}

// Small integers, so that indices, axes and shapes fed as inputs are often meaningful.
int64_t RandomInt(std::mt19937_64& rng) {
  switch (rng() % 16) {
    case 0:
      return std::numeric_limits<int64_t>::min();
    case 1:
      return std::numeric_limits<int64_t>::max();
    default:
      return static_cast<int64_t>(rng() % 8) - 3;
  }
}

void Fill(Tensor* t, std::mt19937_64& rng) {
  const int64_t n = t->numel();
  for (int64_t i = 0; i < n; ++i) {
    switch (t->dtype) {
      case DType::kFloat32:
        t->ptr<float>()[i] = RandomFloat(rng);
        break;
      case DType::kInt64:
        t->ptr<int64_t>()[i] = RandomInt(rng);
        break;
      case DType::kInt32:
        t->ptr<int32_t>()[i] = static_cast<int32_t>(RandomInt(rng));
        break;
      case DType::kBool:
        t->ptr<bool>()[i] = rng() % 2;
        break;
      case DType::kUndefined:
        break;
    }
  }
}

// The declared shape with every unknown dim bound (one size per symbol); false when the input
// is too large for the budget.
bool BindShape(const ValueInfo& in, std::map<std::string, int64_t>* symbols, std::mt19937_64& rng,
               int64_t* budget, Shape* shape) {
  shape->clear();
  if (!in.has_shape) {
    shape->push_back(1 + rng() % 3);
  } else {
    for (const Dim& d : in.dims) {
      if (d.fixed()) {
        shape->push_back(d.value);
      } else if (!d.symbol.empty()) {
        auto it = symbols->emplace(d.symbol, 1 + rng() % 3).first;
        shape->push_back(it->second);
      } else {
        shape->push_back(1 + rng() % 3);
      }
    }
  }
  int64_t numel = 0;
  if (!ShapeNumel(*shape, &numel) || numel > *budget) return false;
  *budget -= numel;
  return true;
}

}  // namespace

SessionOptions FuzzOptions() {
  SessionOptions options;
  options.max_cached_plans = 2;
  SessionLimits& l = options.limits;
  l.max_rank = 16;
  l.max_tensor_elements = 1 << 20;
  l.max_tensor_bytes = 4 << 20;
  l.max_initializer_bytes = 16 << 20;
  l.max_arena_bytes = 16 << 20;
  l.max_nodes = 4096;
  l.max_string_length = 4096;
  return options;
}

void RunWithSmallInputs(Session& session, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::string, int64_t> symbols;
  int64_t budget = kMaxInputElements;
  std::vector<NamedTensor> feeds;
  for (const ValueInfo& in : session.inputs()) {
    Shape shape;
    if (!BindShape(in, &symbols, rng, &budget, &shape)) return;
    NamedTensor feed{in.name, Tensor()};
    if (!Tensor::Allocate(in.dtype, shape, &feed.tensor).ok()) return;
    Fill(&feed.tensor, rng);
    feeds.push_back(std::move(feed));
  }
  for (int run = 0; run < 2; ++run) {
    std::vector<const Tensor*> outputs;
    if (!session.Run(feeds, &outputs).ok()) continue;  // errors are fine; crashes are not
    volatile uint8_t sink = 0;
    for (const Tensor* t : outputs) {
      const auto* bytes = static_cast<const uint8_t*>(t->data);
      for (size_t b = 0; b < t->nbytes(); ++b) sink = sink ^ bytes[b];
    }
    (void)sink;
  }
}

const std::map<std::string, std::string>& FuzzJsonFiles() {
  static const std::map<std::string, std::string> files = [] {
    std::string bytes(1024, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 37);
    return std::map<std::string, std::string>{{"weights.bin", bytes}};
  }();
  return files;
}

void LoadAndRunOnnx(const uint8_t* data, size_t size) {
  std::unique_ptr<Session> session;
  if (Session::CreateFromOnnx(data, size, FuzzOptions(), &session).ok())
    RunWithSmallInputs(*session, Hash(data, size));
}

void LoadAndRunJson(const uint8_t* data, size_t size) {
  std::unique_ptr<Session> session;
  if (Session::CreateFromJson(reinterpret_cast<const char*>(data), size, FuzzJsonFiles(),
                              FuzzOptions(), &session)
          .ok())
    RunWithSmallInputs(*session, Hash(data, size));
}

uint64_t Hash(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

}  // namespace webnx::fuzz
