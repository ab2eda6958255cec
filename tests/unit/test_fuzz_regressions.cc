// Every input the fuzz targets (tests/fuzz) ever crashed on, replayed through the same driver:
// load, then run on the same small random inputs the fuzzer used. Under ASan (make test) these
// are the sanitizer reports that were fixed; natively they must at least not crash.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/fuzz/fuzz_common.h"

namespace webnx::testing {
namespace {

std::string RegressionsDir() {
  const std::string file = __FILE__;
  return file.substr(0, file.rfind("tests/unit/")) + "tests/fuzz/regressions/";
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FuzzRegressions, ReplayWithoutCrashing) {
  const std::vector<std::string> names = Files(RegressionsDir());
  EXPECT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    std::ifstream in(RegressionsDir() + name, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    // Exactly sized, as libFuzzer's input is, so ASan sees a read one byte past the end.
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    if (name.rfind("json_", 0) == 0) {
      fuzz::LoadAndRunJson(bytes.data(), bytes.size());
    } else {
      fuzz::LoadAndRunOnnx(bytes.data(), bytes.size());
    }
  }
}

}  // namespace
}  // namespace webnx::testing
