#include "sqlite_file.h"

#include <climits>

#include "aicost/core/text.h"
#include "file_lock.h"
#include "schema.h"
#include "sqlite_stmt.h"

namespace aicost::store {

using core::ErrorCode;
using core::make_error;

core::Status use_wal(sqlite3* db, const std::string& path) {
  core::Status st;
  Stmt q(db, "PRAGMA journal_mode=WAL", st);
  if (!st) return st;
  const int rc = sqlite3_step(q.get());
  if (rc == SQLITE_ROW || rc == SQLITE_DONE || rc == SQLITE_BUSY || rc == SQLITE_LOCKED ||
      rc == SQLITE_READONLY)
    return {};
  return sqlite_error(db, path, "switching the ledger to WAL");
}

void checkpoint(sqlite3* db) noexcept {
  sqlite3_busy_timeout(db, 0);
  sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
}

core::Result<int> applied_version(sqlite3* db, const std::string& path) {
  core::Status st;
  Stmt t(db, "SELECT COUNT(*), SUM(name = 'schema_migrations') FROM sqlite_master", st);
  if (!st) return st.error();
  if (sqlite3_step(t.get()) != SQLITE_ROW)
    return sqlite_error(db, path, "reading the ledger's tables");
  if (sqlite3_column_int(t.get(), 1) == 0) {
    if (sqlite3_column_int(t.get(), 0) > 0)
      return make_error(ErrorCode::kInvalidInput,
                        "this is a SQLite database but not an aicost ledger (it has tables, none "
                        "of them aicost's); "
                        "name another file with --db",
                        path);
    return 0;
  }
  Stmt q(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", st);
  if (!st) return st.error();
  if (sqlite3_step(q.get()) != SQLITE_ROW)
    return sqlite_error(db, path, "reading the schema version");
  return sqlite3_column_int(q.get(), 0);
}

core::Result<Generation> generation(sqlite3* db, const std::string& path) {
  Generation g;
  for (auto [sql, out] : {std::pair{"PRAGMA schema_version", &g.first},
                          std::pair{"PRAGMA user_version", &g.second}}) {
    core::Status st;
    Stmt q(db, sql, st);
    if (!st) return st.error();
    if (sqlite3_step(q.get()) != SQLITE_ROW)
      return sqlite_error(db, path, "reading the ledger's generation");
    *out = sqlite3_column_int64(q.get(), 0);
  }
  return g;
}

core::Status bump_generation(sqlite3* db, const std::string& path) {
  auto g = generation(db, path);
  if (!g) return g.error();
  // user_version is 32 bits; after 2^31 ingests it starts again (a scan compares for equality).
  const std::int64_t next = g->second >= INT32_MAX ? 1 : g->second + 1;
  return sqlite_exec(db, path, "PRAGMA user_version=" + std::to_string(next));
}

}  // namespace aicost::store
