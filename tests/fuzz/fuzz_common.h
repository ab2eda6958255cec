// Shared by the libFuzzer targets: tight session limits (so a hostile model is refused before
// it can use more than a few MB) and a driver that runs a loaded session on small inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "core/session.h"

namespace webnx::fuzz {

// Limits that keep every plan within a few MB, and a plan cache of two.
SessionOptions FuzzOptions();

// Binds every input with its declared shape (symbolic and unknown dims 1..3, unknown rank a
// 1-D tensor), fills it from a PRNG seeded with `seed`, and runs twice (the second run reuses
// the plan). Skips models whose declared inputs alone exceed a small element budget. Reads
// every output byte so that a bad output pointer or size shows up under ASan.
void RunWithSmallInputs(Session& session, uint64_t seed);

// The side files fuzz_json offers documents: "weights.bin", 1 KB of a byte pattern.
const std::map<std::string, std::string>& FuzzJsonFiles();

// One fuzz input end to end: load it (ONNX bytes or a JSON document, with FuzzOptions and,
// for JSON, FuzzJsonFiles) and, when it loads, RunWithSmallInputs seeded by its hash.
void LoadAndRunOnnx(const uint8_t* data, size_t size);
void LoadAndRunJson(const uint8_t* data, size_t size);

// FNV-1a of the input, a deterministic seed for the run.
uint64_t Hash(const uint8_t* data, size_t size);

}  // namespace webnx::fuzz
