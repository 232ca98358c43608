// SQLite helpers both halves of the SQLite store use (sqlite_store.cc writes, sqlite_reads.cc
// reads): a prepared statement that finalizes itself, a text column, and errors that name the
// ledger file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "aicost/core/result.h"

namespace aicost::store {

// How long a statement waits for a lock SQLite holds (WAL recovery, a checkpoint, a writer that is
// not aicost), set on every connection before anything else. aicost's writers wait for each other
// through FileLock (file_lock.h), for StoreOptions::lock_timeout.
inline constexpr int kBusyTimeoutMs = 10'000;

class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3* db, const std::string& sql, core::Status& status) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
      status = core::make_error(core::ErrorCode::kInternal,
                                std::string("SQLite: ") + sqlite3_errmsg(db), sql.substr(0, 80));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(Stmt&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  sqlite3_stmt* get() const { return s_; }

  void text(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  void i64(int i, std::int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  void null(int i) { sqlite3_bind_null(s_, i); }

 private:
  sqlite3_stmt* s_ = nullptr;
};

inline std::string column_text(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<std::size_t>(sqlite3_column_bytes(s, i)))
           : std::string();
}

// sqlite3_exec's error as kIo, naming `path`.
core::Status sqlite_exec(sqlite3* db, const std::string& path, const std::string& sql);
// The connection's last error: kIo for a full disk, I/O, a busy or read-only file; else kInternal.
core::Error sqlite_error(sqlite3* db, const std::string& path, const std::string& what);

}  // namespace aicost::store
