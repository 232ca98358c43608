// Alert claims (ledger::Store::claim_alerts), on every backend: of several checks that find one
// alert due, exactly one wins it and sends it; a claim lapses after its lease (the clock is the
// caller's, so these tests pass their own and never sleep); recording settles a claim; releasing
// hands it back.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "aicost/store/open.h"
#include "backends.h"

namespace aicost {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::system_clock;

const Clock::time_point kNoon = Clock::time_point(seconds(1751112000));  // 2025-06-28T12:00:00Z

ledger::AlertClaim claim(const std::string& owner, Clock::time_point now,
                         seconds lease = seconds(600)) {
  return {owner, now, lease};
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

class AlertClaimsTest : public testing::BackendTest {
 protected:
  std::vector<std::string> claim_keys(ledger::Store& s, std::vector<std::string> keys,
                                      const ledger::AlertClaim& c) {
    auto won = s.claim_alerts(keys, c);
    EXPECT_TRUE(won) << won.error().what();
    return won ? sorted(*won) : std::vector<std::string>{};
  }
  std::vector<std::string> sent_keys() {
    auto sent = store().sent_alerts();
    EXPECT_TRUE(sent) << sent.error().what();
    std::vector<std::string> out;
    if (sent)
      for (const auto& a : *sent) out.push_back(a.key);
    return sorted(out);
  }
};

TEST_P(AlertClaimsTest, OneOwnerWinsEachKeyAndAClaimIsNotASend) {
  EXPECT_EQ(claim_keys(store(), {"a", "b"}, claim("one", kNoon)),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(claim_keys(store(), {"b", "c"}, claim("two", kNoon)), (std::vector<std::string>{"c"}));
  // The owner claiming again keeps what it holds (its lease renewed).
  EXPECT_EQ(claim_keys(store(), {"a", "b", "c"}, claim("one", kNoon)),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(sent_keys().empty());
}

// A check that died between claiming and recording holds its claims until the lease ends; then
// the next check takes them over (it sends them again: at least once).
TEST_P(AlertClaimsTest, AClaimLapsesAtTheEndOfItsLease) {
  EXPECT_EQ(claim_keys(store(), {"a"}, claim("dead", kNoon, seconds(300))),
            (std::vector<std::string>{"a"}));
  EXPECT_TRUE(claim_keys(store(), {"a"}, claim("next", kNoon + seconds(299))).empty());
  EXPECT_EQ(claim_keys(store(), {"a"}, claim("next", kNoon + seconds(300))),
            (std::vector<std::string>{"a"}));
  EXPECT_TRUE(claim_keys(store(), {"a"}, claim("dead", kNoon + seconds(301))).empty());
}

// Recorded alerts are never claimed again, however much later; a record settles whoever's claim.
TEST_P(AlertClaimsTest, RecordingSettlesAClaimForGood) {
  ASSERT_EQ(claim_keys(store(), {"a", "b"}, claim("one", kNoon)),
            (std::vector<std::string>{"a", "b"}));
  const std::vector<ledger::SentAlert> sent = {{"a", "2025-06-28T12:00:01Z", "{\"key\":\"a\"}"},
                                               {"z", "2025-06-28T12:00:01Z", "covered"}};
  ASSERT_TRUE(store().record_sent(sent));
  EXPECT_EQ(sent_keys(), (std::vector<std::string>{"a", "z"}));
  EXPECT_TRUE(
      claim_keys(store(), {"a", "z"}, claim("two", kNoon + std::chrono::hours(24 * 365))).empty());
  auto all = store().sent_alerts();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->front().payload, "{\"key\":\"a\"}");
}

// A delivery that failed hands its claims back: the next check wins them at once. Another owner's
// release, or a release of a key already sent, changes nothing.
TEST_P(AlertClaimsTest, ReleasedClaimsAreFreeAtOnce) {
  ASSERT_EQ(claim_keys(store(), {"a", "b"}, claim("one", kNoon)),
            (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(store().record_sent(std::vector<ledger::SentAlert>{{"b", "t", "p"}}));
  const std::vector<std::string> both = {"a", "b"};
  ASSERT_TRUE(store().release_alerts(both, "two"));
  EXPECT_TRUE(claim_keys(store(), both, claim("two", kNoon)).empty());
  ASSERT_TRUE(store().release_alerts(both, "one"));
  EXPECT_EQ(claim_keys(store(), both, claim("two", kNoon)), (std::vector<std::string>{"a"}));
  EXPECT_EQ(sent_keys(), (std::vector<std::string>{"b"}));
}

// PostgreSQL kept keys in a btree, which refuses an entry over 2704 bytes; a waste finding's key
// names a resource, which can be long.
TEST_P(AlertClaimsTest, LongKeysAreClaimedAndRecorded) {
  const std::string key = "waste|idle_gpu|" + std::string(5000, 'r');
  EXPECT_EQ(claim_keys(store(), {key}, claim("one", kNoon)), std::vector<std::string>{key});
  ASSERT_TRUE(store().record_sent(std::vector<ledger::SentAlert>{{key, "t", "p"}}));
  EXPECT_EQ(sent_keys(), std::vector<std::string>{key});
}

// Eight connections claim the same keys at once: each key is won exactly once.
TEST_P(AlertClaimsTest, ConcurrentClaimsWinEachKeyOnce) {
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) keys.push_back("k" + std::to_string(i));
  constexpr int kStores = 8;
  std::vector<std::unique_ptr<ledger::Store>> stores;
  for (int i = 0; i < kStores; ++i) {
    auto s = store::open_store(fresh_.db);
    ASSERT_TRUE(s) << s.error().what();
    stores.push_back(std::move(*s));
  }
  std::vector<std::vector<std::string>> won(kStores);
  std::vector<std::string> errors(kStores);
  std::vector<std::thread> threads;
  for (int i = 0; i < kStores; ++i)
    threads.emplace_back([&, i] {
      auto mine = keys;
      std::rotate(mine.begin(), mine.begin() + i * 5, mine.end());  // each in its own order
      auto r = stores[i]->claim_alerts(mine, claim("owner" + std::to_string(i), kNoon));
      if (r)
        won[i] = *r;
      else
        errors[i] = r.error().what();
    });
  for (auto& t : threads) t.join();
  std::multiset<std::string> all;
  for (int i = 0; i < kStores; ++i) {
    EXPECT_EQ(errors[i], "");
    all.insert(won[i].begin(), won[i].end());
  }
  EXPECT_EQ(all, std::multiset<std::string>(keys.begin(), keys.end()));
}

// A ledger at schema 2 keeps the alerts it sent: they read back, and are never claimed.
TEST_P(AlertClaimsTest, AlertsSentBeforeClaimsExistStaySent) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "rewinding a ledger's schema is done on SQLite";
  ASSERT_TRUE(
      store().record_sent(std::vector<ledger::SentAlert>{{"old", "2025-06-01T00:00:00Z", "p"}}));
  fresh_.store.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(fresh_.db.c_str(), &db), SQLITE_OK);
  const std::string rewind = std::string(testing::kUndoSchema8) +
                             "DROP TABLE alerts_sent; CREATE TABLE alerts_sent (key TEXT PRIMARY "
                             "KEY, sent_at TEXT NOT NULL, payload TEXT "
                             "NOT NULL); INSERT INTO alerts_sent VALUES ('old', "
                             "'2025-06-01T00:00:00Z', 'p'); DROP INDEX sources_export; "
                             "ALTER TABLE sources DROP COLUMN export_key; ALTER TABLE sources DROP "
                             "COLUMN periods; DELETE FROM schema_migrations "
                             "WHERE version > 2";
  ASSERT_EQ(sqlite3_exec(db, rewind.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto reopened = store::open_store(fresh_.db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  fresh_.store = std::move(*reopened);
  EXPECT_EQ(sent_keys(), std::vector<std::string>{"old"});
  EXPECT_TRUE(claim_keys(store(), {"old"}, claim("one", kNoon)).empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, AlertClaimsTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
