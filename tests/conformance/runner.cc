// Runs the official ONNX backend node tests (model.onnx + test_data_set_0/*.pb) for every test
// whose operators are all in the registry, compares outputs (rtol 1e-3, atol 1e-5; NaN and
// infinities exactly) and prints per-op results and a final "N passed, N failed, N skipped" line.
//
// With --expect, the run is checked against the list of tests expected to run and pass: a
// listed test that fails or no longer runs (its op unregistered, its model refused) fails the
// run, and so does a test that passes but is not listed, or a skipped test that passes (stale
// entries must go). --write-expected writes the list this run supports.
//
// usage: webnx_conformance <node-tests-dir> [--skip FILE] [--expect FILE] [--write-expected FILE]
//                          [--filter SUBSTR] [--verbose]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/loaders/onnx_loader.h"
#include "core/op_registry.h"
#include "core/session.h"
#include "onnx/onnx.pb.h"

namespace fs = std::filesystem;
using namespace webnx;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-5;

bool ReadFile(const fs::path& path, std::string* bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *bytes = ss.str();
  return true;
}

// Names, one per line (after '#', comments).
std::set<std::string> ReadNameFile(const std::string& path) {
  std::set<std::string> names;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    const std::string name = line.substr(0, line.find_first_of(" \t#"));
    if (!name.empty()) names.insert(name);
  }
  return names;
}

// test name -> reason
std::map<std::string, std::string> ReadSkipFile(const std::string& path) {
  std::map<std::string, std::string> skips;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.find_first_of(" \t");
    std::string name = line.substr(0, sp);
    std::string reason =
        sp == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", sp));
    skips[name] = reason;
  }
  return skips;
}

Status LoadTensorFile(const fs::path& path, Tensor* out) {
  std::string bytes;
  if (!ReadFile(path, &bytes))
    return Status(ErrorCode::kInvalidArgument, "cannot read " + path.string());
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return Status(ErrorCode::kMalformedModel, path.filename().string() + " is not a TensorProto");
  }
  return TensorFromProto(proto, path.filename().string(), out);
}

bool Close(const Tensor& got, const Tensor& want, std::string* why) {
  if (got.dtype != want.dtype) {
    *why = std::string("dtype ") + DTypeName(got.dtype) + " != " + DTypeName(want.dtype);
    return false;
  }
  if (got.shape != want.shape) {
    *why = "shape " + ShapeToString(got.shape) + " != " + ShapeToString(want.shape);
    return false;
  }
  for (int64_t i = 0; i < want.numel(); ++i) {
    double a = got.DoubleAt(i), b = want.DoubleAt(i);
    if (std::isnan(b) && std::isnan(a)) continue;
    const bool exact = std::isinf(b) || std::isinf(a);  // an infinity only matches itself
    if (exact ? a != b : !(std::fabs(a - b) <= kAtol + kRtol * std::fabs(b))) {
      *why = "element " + std::to_string(i) + ": got " + std::to_string(a) + ", want " +
             std::to_string(b);
      return false;
    }
  }
  return true;
}

// Runs one test folder. Returns false with `why` on failure.
bool RunTest(const fs::path& dir, const std::string& model_bytes, std::string* why) {
  std::unique_ptr<Session> session;
  Status s = Session::CreateFromOnnx(reinterpret_cast<const uint8_t*>(model_bytes.data()),
                                     model_bytes.size(), SessionOptions(), &session);
  if (!s.ok()) {
    *why = "load: " + s.ToString();
    return false;
  }
  fs::path data = dir / "test_data_set_0";
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < session->inputs().size(); ++i) {
    NamedTensor nt{session->inputs()[i].name, Tensor()};
    s = LoadTensorFile(data / ("input_" + std::to_string(i) + ".pb"), &nt.tensor);
    if (!s.ok()) {
      *why = "input: " + s.ToString();
      return false;
    }
    feeds.push_back(std::move(nt));
  }
  std::vector<const Tensor*> outputs;
  s = session->Run(feeds, &outputs);
  if (!s.ok()) {
    *why = "run: " + s.ToString();
    return false;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor want;
    s = LoadTensorFile(data / ("output_" + std::to_string(i) + ".pb"), &want);
    if (!s.ok()) {
      *why = "expected output: " + s.ToString();
      return false;
    }
    std::string diff;
    if (!Close(*outputs[i], want, &diff)) {
      *why = "output " + std::to_string(i) + " ('" + session->outputs()[i].name + "'): " + diff;
      return false;
    }
  }
  return true;
}

// The ops of a model, or false when the bytes are not a model at all.
// Every (domain, op type) of a graph, its subgraphs' (If, Loop, Scan bodies) included.
void GraphOps(const onnx::GraphProto& graph, std::set<std::pair<std::string, std::string>>* ops) {
  for (const auto& node : graph.node()) {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    ops->insert({domain, node.op_type()});
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) GraphOps(attr.g(), ops);
      for (const auto& g : attr.graphs()) GraphOps(g, ops);
    }
  }
}

bool ModelOps(const std::string& bytes, std::set<std::pair<std::string, std::string>>* ops) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return false;
  GraphOps(model.graph(), ops);
  return true;
}

struct Options {
  std::string root, skip_path, expect_path, write_expected_path, filter;
  bool verbose = false;
};

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--skip" && has_value) {
      o->skip_path = argv[++i];
    } else if (a == "--expect" && has_value) {
      o->expect_path = argv[++i];
    } else if (a == "--write-expected" && has_value) {
      o->write_expected_path = argv[++i];
    } else if (a == "--filter" && has_value) {
      o->filter = argv[++i];
    } else if (a == "--verbose" || a == "-v") {
      o->verbose = true;
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: %s <node-tests-dir> [--skip FILE] [--expect FILE] "
          "[--write-expected FILE] [--filter SUBSTR] [--verbose]\n",
          argv[0]);
      return false;
    } else {
      o->root = a;
    }
  }
  return true;
}

struct Count {
  int passed = 0, failed = 0, skipped = 0;
};

// What one run found: per-op counts, and the names of the tests that passed.
struct Results {
  std::map<std::string, Count> per_op;
  Count total;
  int not_applicable = 0;
  std::set<std::string> passed;          // not skipped, and passed
  std::vector<std::string> stale_skips;  // skipped, yet passing
};

// The op a test is grouped under: the single op, or the test's name for expanded bodies.
std::string GroupOf(const std::string& name,
                    const std::set<std::pair<std::string, std::string>>& ops) {
  if (ops.size() == 1) return ops.begin()->second;
  return (name.find("_expanded") == std::string::npos ? "(multi-op) " : "(expanded) ") + name;
}

void RunAll(const Options& o, const std::map<std::string, std::string>& skips, Results* r) {
  const OpRegistry& registry = OpRegistry::Default();
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(o.root))
    if (e.is_directory() && e.path().filename().string().rfind("test_", 0) == 0)
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    const std::string name = dir.filename().string();
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
    std::string bytes;
    std::set<std::pair<std::string, std::string>> ops;
    if (!ReadFile(dir / "model.onnx", &bytes) || !ModelOps(bytes, &ops) || ops.empty()) continue;
    std::string missing;
    for (const auto& op : ops)
      if (!registry.Knows(op.first, op.second)) missing += " " + op.second;
    if (!missing.empty()) {
      ++r->not_applicable;
      if (o.verbose)
        std::printf("NOT RUN %s: op%s not implemented\n", name.c_str(), missing.c_str());
      continue;
    }
    Count& count = r->per_op[GroupOf(name, ops)];
    std::string why;
    const bool ok = RunTest(dir, bytes, &why);
    auto skip = skips.find(name);
    if (skip != skips.end()) {
      ++count.skipped;
      ++r->total.skipped;
      if (ok) r->stale_skips.push_back(name);
      if (o.verbose) std::printf("SKIP %s: %s\n", name.c_str(), skip->second.c_str());
    } else if (ok) {
      ++count.passed;
      ++r->total.passed;
      r->passed.insert(name);
      if (o.verbose) std::printf("PASS %s\n", name.c_str());
    } else {
      ++count.failed;
      ++r->total.failed;
      std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
    }
  }
}

// Compares the run with the expected list; returns the number of discrepancies.
int CheckExpected(const Options& o, const Results& r) {
  int problems = 0;
  for (const std::string& name : ReadNameFile(o.expect_path)) {
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
    if (r.passed.count(name)) continue;
    std::printf("EXPECTED %s: listed in %s but did not run and pass\n", name.c_str(),
                o.expect_path.c_str());
    ++problems;
  }
  const std::set<std::string> expected = ReadNameFile(o.expect_path);
  for (const std::string& name : r.passed) {
    if (expected.count(name)) continue;
    std::printf("UNLISTED %s: passes but is not in %s (add it: --write-expected)\n", name.c_str(),
                o.expect_path.c_str());
    ++problems;
  }
  for (const std::string& name : r.stale_skips) {
    std::printf("STALE SKIP %s: passes now; remove it from the skip list\n", name.c_str());
    ++problems;
  }
  return problems;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) return 0;
  if (o.root.empty() || !fs::is_directory(o.root)) {
    std::fprintf(stderr, "webnx_conformance: give the folder of ONNX node tests\n");
    return 2;
  }
  const auto skips =
      o.skip_path.empty() ? std::map<std::string, std::string>() : ReadSkipFile(o.skip_path);
  Results r;
  RunAll(o, skips, &r);
  std::printf("\nper op:\n");
  for (const auto& kv : r.per_op) {
    std::printf("  %-40s %3d pass %3d fail %3d skip\n", kv.first.c_str(), kv.second.passed,
                kv.second.failed, kv.second.skipped);
  }
  if (!o.write_expected_path.empty()) {
    std::ofstream out(o.write_expected_path);
    out << "# ONNX node tests webnx runs and passes (webnx_conformance --write-expected)\n";
    for (const std::string& name : r.passed) out << name << "\n";
  }
  const int problems =
      o.expect_path.empty() ? static_cast<int>(r.stale_skips.size()) : CheckExpected(o, r);
  std::printf("%d tests use operators webnx does not implement (not run)\n", r.not_applicable);
  std::printf("conformance: %d passed, %d failed, %d skipped\n", r.total.passed,
              r.total.failed + problems, r.total.skipped);
  return r.total.failed == 0 && problems == 0 ? 0 : 1;
}
