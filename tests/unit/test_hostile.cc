// The hostile-input corpus (tests/hostile, scripts/gen-hostile-corpus.py): every case fails to
// load with exactly the code its manifest names, natively and under ASan, and a valid model
// still loads and runs correctly afterwards.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/session.h"

namespace webnx::testing {
namespace {

std::string RepoPath(const std::string& relative) {
  const std::string file = __FILE__;
  return file.substr(0, file.rfind("tests/unit/")) + relative;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

Status Load(const std::string& name, const std::string& bytes, std::unique_ptr<Session>* s) {
  const bool json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
  if (json) return Session::CreateFromJson(bytes.data(), bytes.size(), {}, SessionOptions(), s);
  return Session::CreateFromOnnx(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                 SessionOptions(), s);
}

// The digits model on one all-zero image: ten finite logits.
void ExpectDigitsModelRuns() {
  const std::string bytes = ReadFile(RepoPath("examples/digits/digits_mobilenet.onnx"));
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Load("digits.onnx", bytes, &session).ok());
  NamedTensor feed{session->inputs()[0].name, Tensor()};
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, {1, 1, 8, 8}, &feed.tensor).ok());
  std::vector<const Tensor*> outputs;
  const Status s = session->Run({feed}, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(outputs[0]->numel(), 10);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(std::isfinite(outputs[0]->ptr<float>()[i]));
}

TEST(Hostile, EveryCaseFailsWithItsCode) {
  const auto manifest = nlohmann::json::parse(ReadFile(RepoPath("tests/hostile/expected.json")),
                                              nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(manifest.is_object());
  EXPECT_GE(manifest.size(), 50u);
  for (const auto& kv : manifest.items()) {
    SCOPED_TRACE(kv.key());
    const std::string bytes = ReadFile(RepoPath("tests/hostile/cases/" + kv.key()));
    std::unique_ptr<Session> session;
    const Status s = Load(kv.key(), bytes, &session);
    EXPECT_EQ(ErrorCodeName(s.code()), kv.value().get<std::string>()) << s.ToString();
    EXPECT_FALSE(s.message().empty());
    EXPECT_EQ(session, nullptr);
  }
  ExpectDigitsModelRuns();
}

}  // namespace
}  // namespace webnx::testing
