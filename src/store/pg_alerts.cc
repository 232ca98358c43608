#include "pg_alerts.h"

#include <chrono>
#include <map>
#include <set>

namespace aicost::store {
namespace {

constexpr int kWriteAttempts = 3;

std::string unix_ms(std::chrono::system_clock::time_point t) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

// Keys as one text[] parameter, sorted: concurrent claims then lock rows in one order and cannot
// deadlock each other.
std::string key_array(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) array_add(out, k);
  return "{" + out + "}";
}

}  // namespace

core::Status PgAlerts::write(const char* what, const std::function<core::Status()>& body) {
  for (int attempt = 1;; ++attempt) {
    if (auto r = pg_.run(what, "BEGIN"); !r) return r.error();
    auto s = body();
    if (s) {
      if (auto r = pg_.run(what, "COMMIT"); !r) s = r.error();
      else return s;
    }
    const std::string state = pg_.last_sqlstate();
    (void)pg_.run(what, "ROLLBACK");
    const bool transient = state == "40001" || state == "40P01" || state == "55P03";
    if (!transient || attempt == kWriteAttempts) return s;
  }
}

core::Result<std::vector<ledger::SentAlert>> PgAlerts::sent() {
  auto r = pg_.run("reading the alerts sent",
                   "SELECT key, sent_at, payload FROM alerts_sent WHERE state = 'sent' ORDER BY sent_at, key");
  if (!r) return r.error();
  std::vector<ledger::SentAlert> out(static_cast<std::size_t>(PQntuples(r->get())));
  bool ok = true;
  for (int row = 0; row < PQntuples(r->get()); ++row) {
    auto& a = out[static_cast<std::size_t>(row)];
    ok &= cell(r->get(), row, 0, a.key) && cell(r->get(), row, 1, a.sent_at) && cell(r->get(), row, 2, a.payload);
  }
  if (!ok) return pg_.unexpected("reading the alerts sent");
  return out;
}

// A key sent before keeps its first record; a claimed one (by any check) becomes sent. One
// statement per key: a key twice in one statement would be refused ("cannot affect row a second
// time"), and the alerts of one check are few.
core::Status PgAlerts::record(std::span<const ledger::SentAlert> alerts) {
  std::map<std::string, const ledger::SentAlert*> by_key;  // sorted, first of each key
  for (const auto& a : alerts) by_key.emplace(a.key, &a);
  return write("recording alerts sent", [&]() -> core::Status {
    for (const auto& [key, a] : by_key) {
      auto r = pg_.run("recording an alert sent",
                       "INSERT INTO alerts_sent (key, sent_at, payload) VALUES ($1, $2, $3) ON CONFLICT "
                       "((aicost_digest(key))) DO UPDATE SET sent_at = EXCLUDED.sent_at, payload = EXCLUDED.payload, "
                       "state = 'sent', claimed_by = NULL, lease_until = NULL WHERE alerts_sent.state = 'claimed'",
                       {key, a->sent_at, a->payload});
      if (!r) return r.error();
    }
    return {};
  });
}

// One statement: a key is won when it is new (inserted as claimed), or claimed before by this
// owner or under a lapsed lease. A claim racing another's waits for it on the key's unique index
// and then sees its row, so exactly one of them wins.
core::Result<std::vector<std::string>> PgAlerts::claim(std::span<const std::string> keys, const ledger::AlertClaim& c) {
  const std::set<std::string> distinct(keys.begin(), keys.end());
  std::vector<std::string> won;
  auto s = write("claiming alerts", [&]() -> core::Status {
    won.clear();
    auto r = pg_.run("claiming alerts",
                     "INSERT INTO alerts_sent (key, sent_at, payload, state, claimed_by, lease_until) SELECT k, '', '', "
                     "'claimed', $2, $3 FROM unnest($1::text[]) WITH ORDINALITY AS u (k, n) ORDER BY n ON CONFLICT "
                     "((aicost_digest(key))) DO UPDATE SET claimed_by = EXCLUDED.claimed_by, lease_until = "
                     "EXCLUDED.lease_until WHERE alerts_sent.state = 'claimed' AND (alerts_sent.lease_until <= $4 OR "
                     "alerts_sent.claimed_by = EXCLUDED.claimed_by) RETURNING key",
                     {key_array(distinct), c.owner, unix_ms(c.now + c.lease), unix_ms(c.now)});
    if (!r) return r.error();
    for (int row = 0; row < PQntuples(r->get()); ++row) {
      won.emplace_back();
      cell(r->get(), row, 0, won.back());
    }
    return {};
  });
  if (!s) return s.error();
  return won;
}

core::Status PgAlerts::release(std::span<const std::string> keys, const std::string& owner) {
  const std::set<std::string> distinct(keys.begin(), keys.end());
  return write("releasing alert claims", [&]() -> core::Status {
    auto r = pg_.run("releasing alert claims",
                     "DELETE FROM alerts_sent WHERE aicost_digest(key) IN (SELECT aicost_digest(k) FROM "
                     "unnest($1::text[]) AS u (k)) AND key = ANY ($1::text[]) AND state = 'claimed' AND claimed_by = $2",
                     {key_array(distinct), owner});
    if (!r) return r.error();
    return {};
  });
}

}  // namespace aicost::store
