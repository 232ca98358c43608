// The write lock of a SQLite ledger: an flock(2) on "<ledger>.lock" beside it, holding the pid of
// the writer, when it started and what it does. SQLite's own lock cannot say who holds it, and
// its busy handler cannot tell anyone that it waits; this one does both. The kernel releases it
// when the holder dies (kill -9 included). The holder deletes the file when it lets go.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "aicost/core/result.h"
#include "aicost/store/open.h"

namespace aicost::store {

class FileLock {
 public:
  FileLock() = default;  // holds nothing
  ~FileLock() { release(); }
  FileLock(FileLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Takes the lock of the ledger at `db` for `what` ("ingest", ...). When another process holds
  // it: calls options.on_wait with the holder (again when the holder changes) and retries until
  // options.lock_timeout, then fails (kIo) naming the holder. A ledger with no file (":memory:",
  // "") has no lock: an empty FileLock.
  static core::Result<FileLock> acquire(const std::string& db, const char* what,
                                        const StoreOptions& options);

  bool held() const { return fd_ >= 0; }
  void release() noexcept;

 private:
  int fd_ = -1;
  std::string path_;
};

// The error of a write that gave up waiting for `holder` after `timeout` (kIo).
core::Error still_locked(const LockHolder& holder, std::chrono::milliseconds timeout,
                         const std::string& where);

// The holder recorded in a lock file's text ("pid 1234\nsince ...\nwhat ingest\n").
LockHolder parse_holder(const std::string& text);

}  // namespace aicost::store
