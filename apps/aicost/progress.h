// A progress bar on stderr for long computations (search, simulation).
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace aicost::app {

// A progress line on stderr, only on a terminal and only once the search has run for a second.
class Progress {
 public:
  Progress(const char* label, const std::atomic<uint64_t>& done, uint64_t total)
      : label_(label), done_(done), total_(total) {
    if (!isatty(STDERR_FILENO) || total == 0) return;
    thread_ = std::thread([this] { run(); });
  }
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (shown_) std::fputs("\r\033[K", stderr);
  }

 private:
  void run() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
      if (std::chrono::steady_clock::now() - start < std::chrono::seconds(1)) continue;
      const double share = static_cast<double>(done_.load()) / total_;
      const int width = 30;
      const int filled = static_cast<int>(share * width);
      std::fprintf(stderr, "\r%s [%s%s] %3.0f %%", label_, std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), share * 100);
      std::fflush(stderr);
      shown_ = true;
    }
  }
  const char* label_;
  const std::atomic<uint64_t>& done_;
  uint64_t total_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool shown_ = false;
};

}  // namespace aicost::app
