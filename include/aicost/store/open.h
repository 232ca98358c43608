// Opens the ledger store a --db argument names: a PostgreSQL URL or a SQLite file.
#pragma once

#include <memory>
#include <string>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"

namespace aicost::store {

// "postgresql://..." or "postgres://..." (libpq connection URI) opens PostgreSQL; anything else is
// a SQLite file, created with its folder if missing. Applies pending migrations either way.
core::Result<std::unique_ptr<ledger::Store>> open_store(const std::string& db);

// True for "postgresql://..." and "postgres://...".
bool is_postgres_url(const std::string& db);

// $AICOST_DB, else $XDG_DATA_HOME/aicost/ledger.db, else ~/.local/share/aicost/ledger.db.
std::string default_db();

// Hides the password of a PostgreSQL URL for messages ("postgresql://u:***@host/db").
std::string redact(const std::string& db);

}  // namespace aicost::store
