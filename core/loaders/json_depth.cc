#include "core/loaders/json_depth.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/loaders/json_pointer.h"

namespace webnx {
namespace jsonl {
namespace {

// One open container: arrays count their elements, objects remember the last key.
struct Level {
  bool array = false;
  size_t index = 0;
  std::string key;
};

std::string PointerOf(const std::vector<Level>& stack) {
  std::string pointer;
  for (const Level& level : stack) {
    pointer = level.array ? Child(pointer, level.index) : Child(pointer, level.key);
  }
  return pointer;
}

}  // namespace

Status CheckJsonDepth(const char* text, size_t size, int max_depth) {
  std::vector<Level> stack;
  std::string last_string;  // raw (escapes kept): good enough to name a key in a message
  for (size_t i = 0; i < size; ++i) {
    const char c = text[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < size && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j, size);  // a trailing backslash in an unterminated string skips past it
      if (j - i - 1 <= 200) last_string.assign(text + i + 1, j - i - 1);
      i = j;
    } else if (c == '[' || c == '{') {
      if (static_cast<int>(stack.size()) >= max_depth) {
        return MalformedAt(PointerOf(stack), "the document nests deeper than " +
                                                 std::to_string(max_depth) + " levels");
      }
      stack.push_back(Level{c == '[', 0, std::string()});
    } else if (c == ']' || c == '}') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',' && !stack.empty() && stack.back().array) {
      ++stack.back().index;
    } else if (c == ':' && !stack.empty() && !stack.back().array) {
      stack.back().key = last_string;
    }
  }
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
