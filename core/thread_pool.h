// A process-wide pool of worker threads that park on a condition variable when idle (an idle
// session costs nothing). Between the jobs of one run they first spin for a moment (~0.1 ms):
// a run's steps follow each other within microseconds, and a futex wake-up costs more than
// many small steps. Kernels split their work into independent tasks; every output is
// computed by the same operations whichever thread runs its task, so results are identical for
// any thread count. In a single-threaded wasm build the pool has no workers and runs inline.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "core/function_ref.h"

namespace webnx {

// fn(task, slot), borrowed (core/function_ref.h): a job calls it only before Run returns.
using TaskFn = FunctionRef<void(int64_t task, int slot)>;

class ThreadPool {
 public:
  // fn(task, slot): `slot` < threads identifies the participant (0 = the caller), for per-thread
  // scratch.
  using TaskFn = webnx::TaskFn;

  static ThreadPool& Global();
  // Threads this build can use at most (1 without thread support; in the threaded wasm build,
  // 1 + the pthread workers its runtime started, which SetWorkersStarted reports).
  static int MaxThreads();
  static void SetWorkersStarted(int count);
  // Jobs the workers have joined, all pools and sessions together: shows they take part.
  static uint64_t HelperJoins();

  // Runs fn for every task in [0, tasks) on up to `threads` participants (the caller included)
  // and returns when all are done. Calls from inside a task run inline.
  void Run(int threads, int64_t tasks, const TaskFn& fn);

  ~ThreadPool();

 private:
  ThreadPool() = default;
  void EnsureWorkers(int count);
  void WorkerLoop();
  void Work(int slot);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> workers_;
  // The current job: set under mutex_ before generation_ moves, read by the participants it
  // admits; Run does not return (or start another job) while one of them is still in Work.
  const TaskFn* fn_ = nullptr;
  int64_t tasks_ = 0;
  // The tasks split into one contiguous range per participant (Work).
  struct alignas(64) Range {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  static constexpr int kMaxRanges = 16;
  Range range_[kMaxRanges];
  int ranges_ = 0;
  std::atomic<int64_t> finished_{0};
  std::atomic<int> active_{0};  // workers inside Work
  int participants_ = 0;        // workers allowed to join the current job (mutex_)
  int joined_ = 0;              // (mutex_)
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  bool busy_ = false;  // (mutex_)
};

}  // namespace webnx
