#include "sqlite_alerts.h"

#include <chrono>
#include <set>

#include "sqlite_stmt.h"

namespace aicost::store {
namespace {

constexpr int kWriteAttempts = 3;

std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

core::Status SqliteAlerts::write(const std::string& what, const std::function<core::Status()>& body) {
  for (int attempt = 1;; ++attempt) {
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      const bool busy = sqlite3_errcode(db_) == SQLITE_BUSY;
      if (busy && attempt < kWriteAttempts) continue;
      return sqlite_error(db_, path_, what + (busy ? " (another process kept the ledger locked)" : ""));
    }
    auto s = body();
    if (s) s = sqlite_exec(db_, path_, "COMMIT");
    if (s) return s;
    // A COMMIT waits for readers of a rollback journal, and may give up as BEGIN does.
    const bool busy = sqlite3_errcode(db_) == SQLITE_BUSY;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    if (!busy || attempt == kWriteAttempts) return s;
  }
}

core::Result<std::vector<ledger::SentAlert>> SqliteAlerts::sent() {
  core::Status st;
  Stmt q(db_, "SELECT key, sent_at, payload FROM alerts_sent WHERE state = 'sent' ORDER BY sent_at, key", st);
  if (!st) return st.error();
  std::vector<ledger::SentAlert> out;
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW)
    out.push_back({column_text(q.get(), 0), column_text(q.get(), 1), column_text(q.get(), 2)});
  if (rc != SQLITE_DONE) return sqlite_error(db_, path_, "reading the alerts sent");
  return out;
}

// A key sent before keeps its first record; a claimed one (by any check) becomes sent.
core::Status SqliteAlerts::record(std::span<const ledger::SentAlert> alerts) {
  return write("recording alerts sent", [&]() -> core::Status {
    core::Status st;
    Stmt q(db_,
           "INSERT INTO alerts_sent (key, sent_at, payload) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
           "sent_at = excluded.sent_at, payload = excluded.payload, state = 'sent', claimed_by = NULL, "
           "lease_until = NULL WHERE alerts_sent.state = 'claimed'",
           st);
    if (!st) return st;
    for (const auto& a : alerts) {
      sqlite3_reset(q.get());
      q.text(1, a.key);
      q.text(2, a.sent_at);
      q.text(3, a.payload);
      if (sqlite3_step(q.get()) != SQLITE_DONE) return sqlite_error(db_, path_, "recording an alert sent");
    }
    return {};
  });
}

// One transaction under the write lock, so claims of several processes take turns: a key is won
// when it is new (inserted as claimed), or claimed before by this owner or under a lapsed lease.
core::Result<std::vector<std::string>> SqliteAlerts::claim(std::span<const std::string> keys,
                                                           const ledger::AlertClaim& c) {
  const std::set<std::string> distinct(keys.begin(), keys.end());
  std::vector<std::string> won;
  auto s = write("claiming alerts", [&]() -> core::Status {
    won.clear();
    core::Status st;
    Stmt q(db_,
           "INSERT INTO alerts_sent (key, sent_at, payload, state, claimed_by, lease_until) VALUES (?1, '', '', "
           "'claimed', ?2, ?3) ON CONFLICT (key) DO UPDATE SET claimed_by = excluded.claimed_by, lease_until = "
           "excluded.lease_until WHERE alerts_sent.state = 'claimed' AND (alerts_sent.lease_until <= ?4 OR "
           "alerts_sent.claimed_by = excluded.claimed_by)",
           st);
    if (!st) return st;
    q.text(2, c.owner);
    q.i64(3, unix_ms(c.now + c.lease));
    q.i64(4, unix_ms(c.now));
    for (const auto& key : distinct) {
      sqlite3_reset(q.get());
      q.text(1, key);
      if (sqlite3_step(q.get()) != SQLITE_DONE) return sqlite_error(db_, path_, "claiming an alert");
      if (sqlite3_changes(db_) > 0) won.push_back(key);
    }
    return {};
  });
  if (!s) return s.error();
  return won;
}

core::Status SqliteAlerts::release(std::span<const std::string> keys, const std::string& owner) {
  return write("releasing alert claims", [&]() -> core::Status {
    core::Status st;
    Stmt q(db_, "DELETE FROM alerts_sent WHERE key = ? AND state = 'claimed' AND claimed_by = ?", st);
    if (!st) return st;
    q.text(2, owner);
    for (const auto& key : keys) {
      sqlite3_reset(q.get());
      q.text(1, key);
      if (sqlite3_step(q.get()) != SQLITE_DONE) return sqlite_error(db_, path_, "releasing an alert claim");
    }
    return {};
  });
}

}  // namespace aicost::store
