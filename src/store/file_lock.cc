#include "file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "aicost/core/text.h"

namespace aicost::store {

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

void FileLock::release() noexcept {
  if (fd_ < 0) return;
  // Deleted while still held: a process that opened it meanwhile finds its file gone once it gets
  // the lock, and opens the path again (acquire's inode check), so two never hold it at once.
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

LockHolder parse_holder(const std::string& text) {
  LockHolder h;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const auto space = line.find(' ');
    if (space == std::string::npos) continue;
    const std::string key = line.substr(0, space), value = line.substr(space + 1);
    if (key == "pid")
      h.pid = std::atoll(value.c_str());
    else if (key == "since")
      h.since = value;
    else if (key == "what")
      h.what = value;
  }
  return h;
}

namespace {

std::string read_all(int fd) {
  std::string out;
  char buf[256];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    at += n;
    if (out.size() > 4096) break;
  }
  return out;
}

bool same_file(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

core::Error io_error(const std::string& what, const std::string& path) {
  return core::make_error(core::ErrorCode::kIo, what + ": " + std::strerror(errno), path);
}

}  // namespace

core::Error still_locked(const LockHolder& holder, std::chrono::milliseconds timeout,
                         const std::string& where) {
  return core::make_error(
      core::ErrorCode::kIo,
      describe(holder) + (timeout.count() > 0
                              ? " and still held the ledger after " + describe(timeout) +
                                    "; run this again once it has finished, or wait "
                                    "longer (--lock-timeout)"
                              : "; run this again once it has finished, or wait for "
                                "it (--lock-timeout)"),
      where);
}

core::Result<FileLock> FileLock::acquire(const std::string& db, const char* what,
                                         const StoreOptions& options) {
  FileLock lock;
  if (db.empty() || db == ":memory:") return lock;
  lock.path_ = db + ".lock";
  const auto deadline = std::chrono::steady_clock::now() + options.lock_timeout;
  auto pause = std::chrono::milliseconds(10);
  std::optional<LockHolder> told;  // the holder on_wait was last given
  for (int round = 0;; ++round) {
    if (lock.fd_ < 0) {
      lock.fd_ = ::open(lock.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (lock.fd_ < 0) return io_error("cannot open the ledger's lock file", lock.path_);
    }
    if (::flock(lock.fd_, LOCK_EX | LOCK_NB) == 0) {
      if (!same_file(lock.fd_,
                     lock.path_)) {  // its holder deleted it as it let go: take the new one
        ::close(lock.fd_);
        lock.fd_ = -1;
        continue;
      }
      const std::string text = "pid " + std::to_string(::getpid()) + "\nsince " +
                               core::utc_now_iso() + "\nwhat " + what + "\n";
      if (::ftruncate(lock.fd_, 0) != 0 ||
          ::pwrite(lock.fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
        return io_error("cannot write the ledger's lock file", lock.path_);
      return lock;
    }
    if (errno != EWOULDBLOCK && errno != EINTR)
      return io_error("cannot lock the ledger", lock.path_);
    const LockHolder holder = parse_holder(read_all(lock.fd_));
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(lock.fd_);  // not ours: never deleted
      lock.fd_ = -1;
      return still_locked(holder, options.lock_timeout, lock.path_);
    }
    // A holder that has the lock but has not written its pid yet is told once it has, or after a
    // few rounds as unknown.
    const bool changed = !told || holder.pid != told->pid || holder.since != told->since;
    if (options.on_wait && changed && (holder.pid != 0 || round >= 4)) {
      options.on_wait(holder, options.lock_timeout);
      told = holder;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    std::this_thread::sleep_for(std::clamp(left, std::chrono::milliseconds(1), pause));
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
}

}  // namespace aicost::store
