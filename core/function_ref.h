// A borrowed callable: the caller's callable and one trampoline per callable type, nothing
// copied or allocated, and each lambda costs one small function, not std::function's set of
// wrappers (7 KB of the .wasm for the thread pool's tasks alone). Pass a callable that outlives
// the call (a lambda written in the call's arguments does); never keep one. Empty by default.
#pragma once

#include <type_traits>

namespace webnx {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  FunctionRef() = default;
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& fn)  // NOLINT: implicit, as std::function's
      : object_(const_cast<void*>(static_cast<const void*>(&fn))),
        call_(&Call<std::remove_reference_t<F>>) {}
  explicit operator bool() const { return call_ != nullptr; }
  R operator()(Args... args) const { return call_(object_, args...); }

 private:
  template <typename F>
  static R Call(void* object, Args... args) {
    return (*static_cast<F*>(object))(args...);
  }
  void* object_ = nullptr;
  R (*call_)(void*, Args...) = nullptr;
};

}  // namespace webnx
