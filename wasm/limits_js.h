// SessionLimits from the JS options object (InferenceSession.create(src, { limits })): keys are
// the names in LimitFields() ("maxNodes"...), values non-negative integers. Unknown keys and bad
// values are InvalidArgument, so a typo never silently keeps a default.
#pragma once

#include <emscripten/val.h>

#include <cmath>
#include <string>

#include "core/limits.h"

namespace webnx {

inline Status LimitsFromJs(const emscripten::val& js, SessionLimits* limits) {
  using emscripten::val;
  *limits = SessionLimits();
  if (js.isUndefined() || js.isNull()) return Status::Ok();
  if (js.typeOf().as<std::string>() != "object") {
    return Status(ErrorCode::kInvalidArgument, "options.limits must be an object");
  }
  const val keys = val::global("Object").call<val>("keys", js);
  const unsigned count = keys["length"].as<unsigned>();
  for (unsigned i = 0; i < count; ++i) {
    const std::string key = keys[i].as<std::string>();
    const LimitField* field = nullptr;
    std::string known;
    for (const LimitField& f : LimitFields()) {
      if (key == f.name) field = &f;
      known += std::string(known.empty() ? "" : ", ") + f.name;
    }
    if (!field) {
      return Status(ErrorCode::kInvalidArgument,
                    "unknown limit '" + key + "'; the limits are " + known);
    }
    const val v = js[key];
    const double d = v.isNumber() ? v.as<double>() : -1;
    // 2^53: the largest integer a JS number holds exactly.
    if (!(d >= 0) || d != std::floor(d) || d > 9007199254740992.0) {
      return Status(ErrorCode::kInvalidArgument,
                    "limits." + key + " must be a non-negative integer");
    }
    limits->*(field->member) = static_cast<int64_t>(d);
  }
  return Status::Ok();
}

}  // namespace webnx
