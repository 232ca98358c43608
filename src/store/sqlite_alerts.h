// The SQLite store's alert bookkeeping (`alerts_sent`, docs/GOVERNANCE.md): the alerts sent, and
// the claims that let one of several checks running at once send each. SqliteStore delegates to it.
#pragma once

#include <sqlite3.h>

#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"

namespace aicost::store {

class SqliteAlerts {
 public:
  // `db` is the store's connection, which outlives this; `path` names it in errors.
  SqliteAlerts(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  core::Result<std::vector<ledger::SentAlert>> sent();
  core::Status record(std::span<const ledger::SentAlert> alerts);
  core::Result<std::vector<std::string>> claim(std::span<const std::string> keys, const ledger::AlertClaim& claim);
  core::Status release(std::span<const std::string> keys, const std::string& owner);

 private:
  // `body` in a write transaction (BEGIN IMMEDIATE), committed when it succeeds. When the ledger
  // stays locked past the connection's busy timeout (a long ingest holds it), tries again, up to
  // kWriteAttempts times in all.
  core::Status write(const std::string& what, const std::function<core::Status()>& body);

  sqlite3* db_;
  std::string path_;
};

}  // namespace aicost::store
