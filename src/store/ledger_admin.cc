// LedgerBase outside an ingest: the migrations loop, contract commitments, and the alerts sent or
// claimed (`alerts_sent`, docs/GOVERNANCE.md).
#include <chrono>
#include <map>
#include <set>

#include "aicost/core/text.h"
#include "ledger_base.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

constexpr int kAlertWriteAttempts = 3;

std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// The unique index an alert's key conflicts on: PostgreSQL's is over its digest (schema.cc, v3).
std::string alert_conflict(Dialect d) {
  return d == Dialect::kSqlite ? "(key)" : "((aicost_digest(key)))";
}

const char* const kSelectCommitments =
    "SELECT line, contract_id, commitment_id, category, type, description, currency, cost, "
    "quantity, unit, "
    "commitment_start, commitment_end, contract_start, contract_end FROM contract_commitments "
    "ORDER BY contract_id, commitment_id, commitment_start, source_id, line";

}  // namespace

core::Status LedgerBase::open_schema(const std::string& where) {
  ledger_ = where;
  auto current = applied_version();
  if (!current) return current.error();
  if (*current < latest_schema_version()) {
    if (*current == 0 && options_.mode != OpenMode::kCreate) return no_ledger();
    if (options_.mode == OpenMode::kReadOnly)
      return make_error(
          ErrorCode::kInvalidInput,
          "the ledger is at schema " + std::to_string(*current) +
              " and this aicost writes schema " + std::to_string(latest_schema_version()) +
              "; it is opened read-only here, so migrate it first: aicost ledger init --db ...",
          ledger_);
    if (auto s = begin_write(Writer::kMigration); !s) return s;
    bool made = false;
    auto s = [&]() -> core::Status {
      // Another process may have migrated it while this one waited.
      current = applied_version();
      if (!current) return current.error();
      made = *current == 0;
      if (auto r = query("creating schema_migrations",
                         "CREATE TABLE IF NOT EXISTS schema_migrations (version "
                         "INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
          !r)
        return r.error();
      for (const auto& m : migrations(dialect())) {
        if (m.version <= *current) continue;
        if (auto s = script(("applying migration " + std::to_string(m.version)).c_str(), m.sql); !s)
          return s;
        const std::string now = core::utc_now_iso();
        if (auto r = query("recording a migration", "INSERT INTO schema_migrations VALUES ($1, $2)",
                           {std::int64_t{m.version}, std::string_view(now)});
            !r)
          return r.error();
      }
      return commit_write();
    }();
    if (!s) {
      rollback_write();
      return s;
    }
    current = applied_version();
    if (!current) return current.error();
    if (made && options_.on_create) options_.on_create(ledger_);
  }
  if (*current > latest_schema_version())
    return make_error(ErrorCode::kInvalidInput,
                      "the ledger was written by a newer aicost (schema " +
                          std::to_string(*current) + ", this one knows " +
                          std::to_string(latest_schema_version()) + "); upgrade aicost",
                      ledger_);
  version_ = *current;
  return {};
}

core::Result<std::vector<ledger::ContractCommitment>> LedgerBase::commitments() {
  auto q = query("reading contract commitments", kSelectCommitments);
  if (!q) return q.error();
  std::vector<ledger::ContractCommitment> out;
  for (std::size_t r = 0; r < q->size(); ++r) {
    ledger::ContractCommitment c;
    c.line = q->i64(r, 0);
    int i = 1;
    for (std::string* v :
         {&c.contract_id, &c.commitment_id, &c.category, &c.type, &c.description, &c.currency})
      *v = q->text(r, i++);
    if (!q->null(r, 7)) c.cost = q->i64(r, 7);
    if (!q->null(r, 8)) c.quantity = q->real(r, 8);
    c.unit = q->text(r, 9);
    c.commitment_start = q->i64(r, 10);
    c.commitment_end = q->i64(r, 11);
    c.contract_start = q->i64(r, 12);
    c.contract_end = q->i64(r, 13);
    out.push_back(std::move(c));
  }
  if (!q->ok())
    return make_error(ErrorCode::kInternal, "an unexpected value in contract_commitments", ledger_);
  return out;
}

// `body` in a write transaction, committed when it succeeds; tried again, up to
// kAlertWriteAttempts times in all, when it failed on a lock conflict (SQLite busy past its
// timeout, a PostgreSQL deadlock, serialization failure or lock timeout).
core::Status LedgerBase::write_alerts(const std::function<core::Status()>& body) {
  for (int attempt = 1;; ++attempt) {
    auto s = begin_write(Writer::kCheck);
    if (s) {
      s = body();
      if (s) s = commit_write();
      if (s) return s;
    }
    const bool transient = transient_failure();
    rollback_write();
    if (!transient || attempt == kAlertWriteAttempts) return s;
  }
}

core::Result<std::vector<ledger::SentAlert>> LedgerBase::sent_alerts() {
  auto q = query(
      "reading the alerts sent",
      "SELECT key, sent_at, payload FROM alerts_sent WHERE state = 'sent' ORDER BY sent_at, key");
  if (!q) return q.error();
  std::vector<ledger::SentAlert> out;
  for (std::size_t r = 0; r < q->size(); ++r)
    out.push_back({q->text(r, 0), q->text(r, 1), q->text(r, 2)});
  if (!q->ok())
    return make_error(ErrorCode::kInternal, "an unexpected value in alerts_sent", ledger_);
  return out;
}

// A key sent before keeps its first record; a claimed one (by any check) becomes sent. One
// statement per key (the alerts of one check are few), in key order, the first of each key.
core::Status LedgerBase::record_sent(std::span<const ledger::SentAlert> alerts) {
  std::map<std::string, const ledger::SentAlert*> by_key;
  for (const auto& a : alerts) by_key.emplace(a.key, &a);
  const std::string sql =
      "INSERT INTO alerts_sent (key, sent_at, payload) VALUES ($1, $2, $3) ON CONFLICT " +
      alert_conflict(dialect()) +
      " DO UPDATE SET sent_at = excluded.sent_at, payload = excluded.payload, state = 'sent', "
      "claimed_by = NULL, lease_until = NULL WHERE alerts_sent.state = 'claimed'";
  return write_alerts([&]() -> core::Status {
    for (const auto& [key, a] : by_key)
      if (auto r = query(
              "recording an alert sent", sql,
              {std::string_view(key), std::string_view(a->sent_at), std::string_view(a->payload)});
          !r)
        return r.error();
    return {};
  });
}

// A key is won when it is new (inserted as claimed), or claimed before by this owner or under a
// lapsed lease. Keys in order: concurrent claims lock them in one order and cannot deadlock; a
// claim racing another's waits for it on the key's unique index, then sees its row, so exactly
// one of them wins.
core::Result<std::vector<std::string>> LedgerBase::claim_alerts(std::span<const std::string> keys,
                                                                const ledger::AlertClaim& c) {
  const std::set<std::string> distinct(keys.begin(), keys.end());
  const std::string sql =
      "INSERT INTO alerts_sent (key, sent_at, payload, state, claimed_by, lease_until) VALUES "
      "($1, '', '', 'claimed', $2, $3) ON CONFLICT " +
      alert_conflict(dialect()) +
      " DO UPDATE SET claimed_by = excluded.claimed_by, lease_until = excluded.lease_until WHERE "
      "alerts_sent.state = 'claimed' AND (alerts_sent.lease_until <= $4 OR alerts_sent.claimed_by "
      "= excluded.claimed_by) RETURNING key";
  std::vector<std::string> won;
  auto s = write_alerts([&]() -> core::Status {
    won.clear();
    for (const auto& key : distinct) {
      auto r = query("claiming an alert", sql,
                     {std::string_view(key), std::string_view(c.owner), unix_ms(c.now + c.lease),
                      unix_ms(c.now)});
      if (!r) return r.error();
      if (r->size() > 0) won.push_back(key);
    }
    return {};
  });
  if (!s) return s.error();
  return won;
}

core::Status LedgerBase::release_alerts(std::span<const std::string> keys,
                                        const std::string& owner) {
  const std::set<std::string> distinct(keys.begin(), keys.end());
  // PostgreSQL finds the key through its digest's index.
  const std::string sql =
      std::string("DELETE FROM alerts_sent WHERE ") +
      (dialect() == Dialect::kSqlite ? "" : "aicost_digest(key) = aicost_digest($1) AND ") +
      "key = $1 AND state = 'claimed' AND claimed_by = $2";
  return write_alerts([&]() -> core::Status {
    for (const auto& key : distinct)
      if (auto r = query("releasing an alert claim", sql,
                         {std::string_view(key), std::string_view(owner)});
          !r)
        return r.error();
    return {};
  });
}

}  // namespace aicost::store
