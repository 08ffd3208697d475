// One queue of jobs, guarded by one mutex. A job is a caller's parallel_for:
// its chunks are claimed through an atomic counter, by the caller and by the
// workers that join it, so the caller always makes progress even when every
// worker is busy with another caller's job (no deadlock between contexts or
// threads that call ek_* at once).
#include "cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ek {
namespace cpu {
namespace {

struct Job {
  void (*fn)(void *, int64_t);
  void *arg;
  int64_t chunks;
  int helpers;                     // workers wanted besides the caller
  std::atomic<int64_t> next{0};    // the next unclaimed chunk
  // Guarded by the pool's mutex:
  int joined = 0;                  // workers that took the job
  int running = 0;                 // of them, those not yet finished with it
  int64_t done = 0;                // chunks finished
  std::exception_ptr error;        // the first exception a chunk threw
};

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    work_.notify_all();
    for (auto &t : workers_) t.join();
  }

  void run(Job &job) {
    {
      std::lock_guard<std::mutex> lock(m_);
      while (static_cast<int>(workers_.size()) < job.helpers) workers_.emplace_back([this] { work(); });
      queue_.push_back(&job);
    }
    work_.notify_all();
    std::exception_ptr error;
    const int64_t ran = claim(job, &error);
    std::unique_lock<std::mutex> lock(m_);
    unqueue(&job);
    finish(job, ran, error);
    done_.wait(lock, [&] { return job.done == job.chunks && job.running == 0; });
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  // Runs chunks until none is left; returns how many it ran.
  static int64_t claim(Job &job, std::exception_ptr *error) {
    int64_t ran = 0;
    for (int64_t i; (i = job.next.fetch_add(1, std::memory_order_relaxed)) < job.chunks; ++ran) {
      try {
        job.fn(job.arg, i);
      } catch (...) {  // never past a worker: handed to the caller
        if (!*error) *error = std::current_exception();
      }
    }
    return ran;
  }

  // Under m_.
  void finish(Job &job, int64_t ran, std::exception_ptr error) {
    job.done += ran;
    if (error && !job.error) job.error = error;
  }

  void unqueue(Job *job) {
    auto it = std::find(queue_.begin(), queue_.end(), job);
    if (it != queue_.end()) queue_.erase(it);
  }

  void work() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      Job &job = *queue_.front();
      if (++job.joined >= job.helpers) queue_.pop_front();
      ++job.running;
      lock.unlock();
      std::exception_ptr error;
      const int64_t ran = claim(job, &error);
      lock.lock();
      finish(job, ran, error);
      --job.running;
      done_.notify_all();  // the job's caller may be waiting
    }
  }

  std::mutex m_;
  std::condition_variable work_, done_;
  std::deque<Job *> queue_;
  std::vector<std::thread> workers_;
  bool stop_ = false;
};

Pool &pool() {
  static Pool p;
  return p;
}

}  // namespace

int64_t chunk_count(int64_t work, int threads) {
  if (threads <= 1 || work < kParallelMin) return 1;
  return std::min<int64_t>(int64_t(threads) * 4, work / kChunkMin);
}

void parallel_for(int threads, int64_t chunks, void (*fn)(void *, int64_t), void *arg) {
  if (threads <= 1 || chunks <= 1) {
    for (int64_t i = 0; i < chunks; ++i) fn(arg, i);
    return;
  }
  Job job;
  job.fn = fn;
  job.arg = arg;
  job.chunks = chunks;
  job.helpers = static_cast<int>(std::min<int64_t>(threads, chunks)) - 1;
  pool().run(job);
}

}  // namespace cpu
}  // namespace ek
