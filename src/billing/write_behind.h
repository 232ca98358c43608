// Store writes on a second thread: while the store writes one batch of rows, the reader parses
// the next, so an ingest uses two cores (docs/LEDGER.md, "Speed").
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "aicost/core/result.h"

namespace aicost::billing {

// Runs jobs one at a time, in the order submitted, on one thread of its own (or, unthreaded,
// inside `submit`). The first job to fail stops the rest: they are dropped, and its status is
// what `submit` and `wait` return from then on. An exception a job throws is thrown again by the
// next `submit` or `wait`. Not thread-safe itself: one thread submits and waits. The destructor
// waits for the jobs queued.
class WriteBehind {
 public:
  using Job = std::function<core::Status()>;

  explicit WriteBehind(bool threaded);
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  bool threaded() const { return thread_.joinable(); }

  // Queues `job` after those before it; returns the first failure so far (then `job` is
  // dropped). Unthreaded, runs it and returns its status.
  core::Status submit(Job job);

  // Waits until at most `pending` jobs are queued or running; the first failure so far.
  core::Status wait(std::size_t pending = 0);

 private:
  void run();
  core::Status failure_locked();  // the first failure, or an exception rethrown

  std::mutex mutex_;
  std::condition_variable work_, idle_;
  std::deque<Job> jobs_;  // the one running stays at the front until it ends
  core::Status status_;
  std::exception_ptr thrown_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace aicost::billing
