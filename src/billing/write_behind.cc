#include "write_behind.h"

#include <utility>

namespace aicost::billing {

WriteBehind::WriteBehind(bool threaded) {
  if (threaded) thread_ = std::thread([this] { run(); });
}

WriteBehind::~WriteBehind() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_.notify_one();
  thread_.join();
}

core::Status WriteBehind::failure_locked() {
  if (thrown_) std::rethrow_exception(std::exchange(thrown_, nullptr));
  return status_;
}

core::Status WriteBehind::submit(Job job) {
  if (!thread_.joinable()) {
    if (!status_) return status_;
    status_ = job();
    return status_;
  }
  {
    std::lock_guard lock(mutex_);
    if (!status_ || thrown_) return failure_locked();
    jobs_.push_back(std::move(job));
  }
  work_.notify_one();
  return {};
}

core::Status WriteBehind::wait(std::size_t pending) {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.size() <= pending; });
  return failure_locked();
}

void WriteBehind::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stop_, with nothing left to do
    Job& job = jobs_.front();
    core::Status s;
    std::exception_ptr thrown;
    lock.unlock();
    try {
      s = job();
    } catch (...) {
      thrown = std::current_exception();
    }
    lock.lock();
    jobs_.pop_front();
    if (thrown) {
      thrown_ = thrown;
      jobs_.clear();
    } else if (!s) {
      status_ = std::move(s);
      jobs_.clear();
    }
    idle_.notify_all();
  }
}

}  // namespace aicost::billing
