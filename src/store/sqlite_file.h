// The SQLite ledger file itself, apart from its rows: its journal (WAL), its schema version and
// migrations, and its write generation, which a scan split over connections compares.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <utility>

#include "aicost/core/result.h"
#include "aicost/store/open.h"

namespace aicost::store {

// Switches the ledger `db` (named `path` in errors) to WAL: readers read the last commit while a
// writer writes, where a rollback journal's writer locks them out for as long as it spills to or
// commits the file (a whole large load). A ledger made with a rollback journal switches on its
// first open by this aicost; that needs no other connection on it, so one that cannot (another
// process reading, a read-only file) stays as it is for now: correct, only not concurrent.
core::Status use_wal(sqlite3* db, const std::string& path);

// Copies the log into the file and empties it, as far as no reader of an older state needs it,
// without waiting for one (the next commit, or the last connection to close, finishes it).
void checkpoint(sqlite3* db) noexcept;

// The schema version the ledger is at: 0 for a file with no tables; an error for a SQLite file
// with tables but not aicost's.
core::Result<int> applied_version(sqlite3* db, const std::string& path);

// Which state of the ledger a read transaction sees, as far as a scan of the charges cares: the
// schema cookie (VACUUM, which renumbers rowids, adds one) and the write generation (PRAGMA
// user_version, one more in every transaction that changes the charges). Read inside the
// transaction.
using Generation = std::pair<std::int64_t, std::int64_t>;
core::Result<Generation> generation(sqlite3* db, const std::string& path);
// Adds one to the write generation, in the open write transaction.
core::Status bump_generation(sqlite3* db, const std::string& path);

}  // namespace aicost::store
