// Runs the official ONNX backend node tests (model.onnx + test_data_set_0/*.pb) for every test
// whose operators are all in the registry, compares outputs (rtol 1e-3, atol 1e-5) and prints
// per-op results and a final "N passed, N failed, N skipped" line.
//
// usage: webnx_conformance <node-tests-dir> [--skip FILE] [--filter SUBSTR] [--verbose]
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
    if (std::isinf(b) && a == b) continue;
    if (!(std::fabs(a - b) <= kAtol + kRtol * std::fabs(b))) {
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
bool ModelOps(const std::string& bytes, std::set<std::pair<std::string, std::string>>* ops) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return false;
  for (const auto& node : model.graph().node()) {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    ops->insert({domain, node.op_type()});
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string root, skip_path, filter;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--skip" && i + 1 < argc)
      skip_path = argv[++i];
    else if (a == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else if (a == "--verbose" || a == "-v")
      verbose = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: %s <node-tests-dir> [--skip FILE] [--filter SUBSTR] [--verbose]\n",
                  argv[0]);
      return 0;
    } else
      root = a;
  }
  if (root.empty() || !fs::is_directory(root)) {
    std::fprintf(stderr, "webnx_conformance: give the folder of ONNX node tests\n");
    return 2;
  }
  const auto skips =
      skip_path.empty() ? std::map<std::string, std::string>() : ReadSkipFile(skip_path);
  const OpRegistry& registry = OpRegistry::Default();

  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && e.path().filename().string().rfind("test_", 0) == 0)
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());

  struct Count {
    int passed = 0, failed = 0, skipped = 0;
  };
  std::map<std::string, Count> per_op;
  Count total;
  int not_applicable = 0;
  std::vector<std::string> unexpected_passes;
  for (const auto& dir : dirs) {
    const std::string name = dir.filename().string();
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    std::string bytes;
    std::set<std::pair<std::string, std::string>> ops;
    if (!ReadFile(dir / "model.onnx", &bytes) || !ModelOps(bytes, &ops) || ops.empty()) continue;
    bool supported = true;
    for (const auto& op : ops) supported = supported && registry.Knows(op.first, op.second);
    if (!supported) {
      ++not_applicable;
      continue;
    }
    // Group by the op under test: the single op, or the test's name for expanded bodies.
    std::string op = ops.size() == 1 ? ops.begin()->second : "(expanded) " + name;
    if (ops.size() > 1 && name.find("_expanded") == std::string::npos) op = "(multi-op) " + name;
    std::string why;
    bool ok = RunTest(dir, bytes, &why);
    auto skip = skips.find(name);
    if (skip != skips.end()) {
      ++per_op[op].skipped;
      ++total.skipped;
      if (ok) unexpected_passes.push_back(name);
      if (verbose) std::printf("SKIP %s: %s\n", name.c_str(), skip->second.c_str());
    } else if (ok) {
      ++per_op[op].passed;
      ++total.passed;
      if (verbose) std::printf("PASS %s\n", name.c_str());
    } else {
      ++per_op[op].failed;
      ++total.failed;
      std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
    }
  }
  std::printf("\nper op:\n");
  for (const auto& kv : per_op) {
    std::printf("  %-40s %3d pass %3d fail %3d skip\n", kv.first.c_str(), kv.second.passed,
                kv.second.failed, kv.second.skipped);
  }
  for (const auto& n : unexpected_passes)
    std::printf("note: skipped test %s passes now\n", n.c_str());
  std::printf("%d tests use operators webnx does not implement (not run)\n", not_applicable);
  std::printf("conformance: %d passed, %d failed, %d skipped\n", total.passed, total.failed,
              total.skipped);
  return total.failed == 0 ? 0 : 1;
}
