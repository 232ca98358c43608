// Opens the ledger store a --db argument names: a PostgreSQL URL or a SQLite file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"

namespace aicost::store {

// How a store reads.
struct StoreOptions {
  // SQLite: the threads one read of the raw charges may use (0: the cores this process may run
  // on), each reading its own range of rows on its own read-only connection, and the fewest rows
  // each reads (fewer threads below that; a scan of fewer rows in all stays on the store's own
  // connection). PostgreSQL plans its own parallel scans.
  unsigned scan_threads = 0;
  std::int64_t rows_per_scan_thread = std::int64_t{1} << 20;
};

// "postgresql://..." or "postgres://..." (libpq connection URI) opens PostgreSQL; anything else is
// a SQLite file, created with its folder if missing. Applies pending migrations either way.
core::Result<std::unique_ptr<ledger::Store>> open_store(const std::string& db, const StoreOptions& options = {});

// True for "postgresql://..." and "postgres://...".
bool is_postgres_url(const std::string& db);

// $AICOST_DB, else $XDG_DATA_HOME/aicost/ledger.db, else ~/.local/share/aicost/ledger.db.
std::string default_db();

// Hides the password of a PostgreSQL URL for messages ("postgresql://u:***@host/db").
std::string redact(const std::string& db);

}  // namespace aicost::store
