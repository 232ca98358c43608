// Opens the ledger store a --db argument names: a PostgreSQL connection string or a SQLite file.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"

namespace aicost::store {

// Whether open_store may make a new ledger. Only what loads data (`aicost ledger ingest`, `init`)
// creates one; a read of a ledger that is not there is an error, not an empty answer.
enum class OpenMode {
  kExisting,  // the ledger must be there (SQLite: the file, with aicost's tables; PostgreSQL: the
              // tables)
  kCreate,    // made when missing: SQLite file 0600 in folders made 0700; PostgreSQL tables
  kReadOnly,  // as kExisting, and nothing is ever written: SQLite opened read-only, PostgreSQL
              // sessions read-only (default_transaction_read_only); a ledger that needs a
              // migration is an error that says to run `aicost ledger init` (`aicost serve`)
};

// The process that holds a ledger's write lock, as a writer waiting for it sees it.
struct LockHolder {
  std::int64_t pid = 0;  // of the aicost process (0: unknown)
  std::string since;     // when it took the lock, ISO 8601 UTC ("": unknown)
  std::string what;  // "ingest", "compact", "check" (recording alerts), "migration"; "": unknown
  std::string
      detail;  // PostgreSQL, a holder that is not aicost: its server pid and application_name
};

// "another ingest is running (pid 1234, since 2026-12-01T10:00:00Z)".
std::string describe(const LockHolder& holder);
// "10min", "90s", "250ms": a lock timeout as --lock-timeout would take it.
std::string describe(std::chrono::milliseconds timeout);

// How a store reads, writes and waits. Defaults in brackets.
struct StoreOptions {
  OpenMode mode = OpenMode::kExisting;
  // SQLite: the threads one read of the raw charges may use (0: the cores this process may run
  // on), each reading its own range of rows on its own read-only connection, and the fewest rows
  // each reads (fewer threads below that; a scan of fewer rows in all stays on the store's own
  // connection). PostgreSQL plans its own parallel scans.
  unsigned scan_threads = 0;
  std::int64_t rows_per_scan_thread = std::int64_t{1} << 20;
  // How long a write (an ingest's transaction, a compact, recording alerts sent, a migration)
  // waits for another process's write to end before it fails with "another ingest is running
  // (pid ...)" [10 min]. 0 fails at once. Readers never wait for writers.
  std::chrono::milliseconds lock_timeout = std::chrono::minutes(10);
  // Called on the writing thread when a write starts waiting for another (again when the holder
  // changes), with who holds the lock and lock_timeout. The library never prints: the CLI says it.
  std::function<void(const LockHolder& holder, std::chrono::milliseconds timeout)> on_wait =
      nullptr;
  // Called once when open_store made a new ledger (OpenMode::kCreate), with redact(db).
  std::function<void(const std::string& where)> on_create = nullptr;
};

// A PostgreSQL connection string (below) opens PostgreSQL; anything else is a SQLite file. With
// OpenMode::kExisting a missing file is a kNotFound error that offers the closest .db file in
// its folder; kCreate makes it (and its missing folders). Applies pending migrations either way.
core::Result<std::unique_ptr<ledger::Store>> open_store(const std::string& db,
                                                        const StoreOptions& options = {});

// True for what libpq takes as a connection string: a URI ("postgresql://...", "postgres://...")
// or keyword=value pairs ("host=db1 dbname=ledger user=me"). A SQLite file whose name starts with
// "word=" is written "./word=...".
bool is_postgres_url(const std::string& db);

// $AICOST_DB, else $XDG_DATA_HOME/aicost/ledger.db, else ~/.local/share/aicost/ledger.db.
std::string default_db();

// `db` with its password hidden, for messages: "postgresql://u:***@host/db", "...?password=***",
// "host=h password=*** dbname=d". A SQLite path is returned as it is.
std::string redact(const std::string& db);

// `text` with every form of db's password (as written, percent-decoded, unquoted) replaced by
// "***": for messages that may quote it (libpq's own errors echo parts of a connection string).
std::string scrub(std::string text, const std::string& db);

}  // namespace aicost::store
