#include "core/thread_pool.h"

#include <algorithm>

namespace webnx {
namespace {

thread_local bool in_task = false;
// The threaded wasm build's pthread workers, loaded by its JS before a session is ready: a thread
// beyond them would wait for a worker the blocked main thread cannot start.
std::atomic<int> workers_started{0};
std::atomic<uint64_t> helper_joins{0};

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
  return std::max(1, std::min(WEBNX_MAX_THREADS, workers_started.load() + 1));
#else
  return std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
#endif
}

void ThreadPool::SetWorkersStarted(int count) {
  workers_started.store(std::max(0, count));
}

uint64_t ThreadPool::HelperJoins() {
  return helper_joins.load(std::memory_order_relaxed);
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::EnsureWorkers(int count) {
  while (static_cast<int>(workers_.size()) < count) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

// Spins this many checks before parking: about 0.1 ms, long enough to span the gap between
// two steps of a run, short enough that an idle pool costs nothing.
constexpr int kSpinChecks = 200000;

template <typename Ready>
bool SpinUntil(Ready ready) {
  for (int i = 0; i < kSpinChecks; ++i)
    if (ready()) return true;
  return false;
}

// Participant `slot` takes the tasks of its own range first, then what is left of the others'.
// Steps in a row often split their tensors alike (runs of elements, blocks of columns), so a
// thread then mostly reads what it wrote itself, rather than lines the other core's cache holds;
// with one shared counter the split changed from job to job.
void ThreadPool::Work(int slot) {
  for (int i = 0; i < ranges_; ++i) {
    Range& range = range_[(slot + i) % ranges_];
    for (;;) {
      const int64_t task = range.next.fetch_add(1, std::memory_order_relaxed);
      if (task >= range.end) break;
      (*fn_)(task, slot);
      if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == tasks_) {
        std::lock_guard<std::mutex> lock(mutex_);  // the caller may be parked on done_
        done_.notify_all();
      }
    }
  }
}

void ThreadPool::WorkerLoop() {
  in_task = true;
  uint64_t seen = 0;
  for (;;) {
    SpinUntil([&] {
      return stopping_.load(std::memory_order_relaxed) ||
             generation_.load(std::memory_order_acquire) != seen;
    });
    int slot;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Parked here until a job that wants another participant arrives.
      wake_.wait(lock, [&] {
        return stopping_ || (generation_.load() != seen && joined_ < participants_);
      });
      if (stopping_) return;
      seen = generation_.load();
      slot = ++joined_;  // 1..participants: indexes the job's per-thread scratch
      helper_joins.fetch_add(1, std::memory_order_relaxed);
      active_.fetch_add(1);
    }
    Work(slot);
    active_.fetch_sub(1, std::memory_order_release);
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
  const int helpers = static_cast<int>(std::min<int64_t>({threads - 1, tasks - 1, kMaxRanges - 1}));
  EnsureWorkers(helpers);
  fn_ = &fn;
  tasks_ = tasks;
  ranges_ = helpers + 1;
  for (int r = 0; r < ranges_; ++r) {
    range_[r].next.store(tasks * r / ranges_, std::memory_order_relaxed);
    range_[r].end = tasks * (r + 1) / ranges_;
  }
  finished_.store(0);
  participants_ = helpers;
  joined_ = 0;
  generation_.fetch_add(1, std::memory_order_release);
  lock.unlock();
  wake_.notify_all();
  in_task = true;
  Work(0);
  in_task = false;
  const auto all_done = [&] { return finished_.load(std::memory_order_acquire) == tasks_; };
  if (!SpinUntil(all_done)) {
    lock.lock();
    done_.wait(lock, all_done);
    lock.unlock();
  }
  lock.lock();
  participants_ = 0;  // no one joins from here on
  lock.unlock();
  // A worker that joined late finds no task left and leaves at once.
  while (active_.load(std::memory_order_acquire) != 0) {
  }
  lock.lock();
  fn_ = nullptr;
  busy_ = false;
}

}  // namespace webnx
