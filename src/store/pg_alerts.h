// The PostgreSQL store's alert bookkeeping (`alerts_sent`, docs/GOVERNANCE.md): the alerts sent,
// and the claims that let one of several checks running at once send each. PgStore delegates to it.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"
#include "pg_conn.h"

namespace aicost::store {

class PgAlerts {
 public:
  explicit PgAlerts(PgConn& pg) : pg_(pg) {}

  core::Result<std::vector<ledger::SentAlert>> sent();
  core::Status record(std::span<const ledger::SentAlert> alerts);
  core::Result<std::vector<std::string>> claim(std::span<const std::string> keys, const ledger::AlertClaim& claim);
  core::Status release(std::span<const std::string> keys, const std::string& owner);

 private:
  // `body` in a transaction, committed when it succeeds; tried again, up to kWriteAttempts times in
  // all, when the server ended it on a transient lock conflict (deadlock, serialization failure,
  // lock timeout).
  core::Status write(const char* what, const std::function<core::Status()>& body);

  PgConn& pg_;  // the store's session, which outlives this
};

}  // namespace aicost::store
