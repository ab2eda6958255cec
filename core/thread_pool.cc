#include "core/thread_pool.h"

#include <algorithm>

namespace webnx {
namespace {

thread_local bool in_task = false;

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kHaveThreads = false;
#else
constexpr bool kHaveThreads = true;
#endif

}  // namespace

ThreadPool& ThreadPool::Global() {
  static ThreadPool* pool = new ThreadPool();  // never destroyed: workers may outlive statics
  return *pool;
}

int ThreadPool::MaxThreads() {
  if (!kHaveThreads) return 1;
#ifdef WEBNX_MAX_THREADS
  return WEBNX_MAX_THREADS;  // the wasm build's pthread pool size
#else
  return std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
#endif
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::EnsureWorkers(int count) {
  while (static_cast<int>(workers_.size()) < count) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

void ThreadPool::Work(int slot, uint64_t generation) {
  for (;;) {
    int64_t task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // A worker late for its job must not take tasks of the next one.
      if (generation_ != generation || next_task_ >= tasks_) return;
      task = next_task_++;
    }
    (*fn_)(task, slot);
    std::lock_guard<std::mutex> lock(mutex_);
    if (++finished_ == tasks_) done_.notify_all();
  }
}

void ThreadPool::WorkerLoop() {
  in_task = true;
  uint64_t seen = 0;
  for (;;) {
    int slot;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Parked here (no spinning) until a job that wants another participant arrives.
      wake_.wait(lock,
                 [&] { return stopping_ || (generation_ != seen && joined_ < participants_); });
      if (stopping_) return;
      seen = generation_;
      slot = ++joined_;  // 1..participants: indexes the job's per-thread scratch
    }
    Work(slot, seen);
  }
}

void ThreadPool::Run(int threads, int64_t tasks, const TaskFn& fn) {
  threads = std::max(1, std::min<int>(threads, MaxThreads()));
  if (tasks <= 0) return;
  if (threads == 1 || tasks == 1 || in_task || !kHaveThreads) {
    for (int64_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (busy_) {  // another session's run holds the pool: do this one inline
    lock.unlock();
    for (int64_t t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  busy_ = true;
  const int helpers = static_cast<int>(std::min<int64_t>(threads - 1, tasks - 1));
  EnsureWorkers(helpers);
  fn_ = &fn;
  tasks_ = tasks;
  next_task_ = 0;
  finished_ = 0;
  participants_ = helpers;
  joined_ = 0;
  const uint64_t generation = ++generation_;
  lock.unlock();
  wake_.notify_all();
  in_task = true;
  Work(0, generation);
  in_task = false;
  lock.lock();
  done_.wait(lock, [&] { return finished_ == tasks_; });
  participants_ = 0;
  fn_ = nullptr;
  busy_ = false;
}

}  // namespace webnx
