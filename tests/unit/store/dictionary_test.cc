// The dictionary encoding of the charges' text columns (src/store/schema.h), on every backend:
// text comes back byte for byte, ids handed out in a rolled-back ingest are never trusted again,
// and two connections writing one ledger share one dictionary.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "aicost/ledger/rollup.h"
#include "aicost/store/open.h"
#include "backends.h"

namespace aicost {
namespace {

using ledger::Charge;
using ledger::Dimension;

constexpr ledger::UnixSeconds kDay = 86400;
constexpr ledger::UnixSeconds kStart = 20000 * kDay;

// Text that trips up encodings: COPY's escapes (tab, newline, backslash), an array literal's
// quoting (quote, comma, braces, "NULL"), multi-byte UTF-8, and the empty string (a FOCUS null).
const std::vector<std::string> kOdd = {
    "tab\there", "line\nbreak", "back\\slash", "quote\"d",    "a,b",
    "{braced}",  "NULL",        "  padded ",   "Zürich 東京", ""};

Charge charge(const std::string& service, std::int64_t billed) {
  Charge c;
  c.period_start = kStart;
  c.period_end = kStart + 3600;
  c.currency = "USD";
  c.billed = c.effective = c.list = billed;
  c.provider = "p";
  c.service_name = service;
  c.resource_id = "r-" + service;
  return c;
}

// Every text column of `c` set from `text` (each column a variation, so no two share a value).
Charge odd_charge(const std::string& text, std::int64_t billed) {
  Charge c = charge(text, billed);
  int i = 0;
  for (std::string* f : ledger::text_fields(c)) {
    if (f == &c.currency || f == &c.service_name) continue;  // kept valid: charge() set them
    *f = text + "#" + std::to_string(i++);
  }
  return c;
}

// One number from the ledger's own SQL, to check the stored rows without the store's code.
std::int64_t scalar(const std::string& db, const std::string& sql) {
  if (store::is_postgres_url(db)) {
    PGconn* conn = PQconnectdb(db.c_str());
    PGresult* r = PQexec(conn, sql.c_str());
    const std::int64_t v =
        PQresultStatus(r) == PGRES_TUPLES_OK ? std::atoll(PQgetvalue(r, 0, 0)) : -1;
    EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(conn);
    PQclear(r);
    PQfinish(conn);
    return v;
  }
  sqlite3* conn = nullptr;
  sqlite3_open_v2(db.c_str(), &conn, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  std::int64_t v = -1;
  if (sqlite3_prepare_v2(conn, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  else
    ADD_FAILURE() << sqlite3_errmsg(conn);
  sqlite3_finalize(s);
  sqlite3_close(conn);
  return v;
}

class DictionaryTest : public testing::BackendTest {
 protected:
  static void load(ledger::Store& s, const std::string& name, const std::vector<Charge>& rows) {
    ledger::SourceFile f{"/tmp/" + name, std::string(63, 'a') + name, 1, "focus-1.2"};
    auto begun = s.begin_source(f, {});
    ASSERT_TRUE(begun) << begun.error().what();
    auto added = s.add_charges(rows);
    ASSERT_TRUE(added) << added.error().what();
    auto r = s.commit_source("focus-1.2", 0);
    ASSERT_TRUE(r) << r.error().what();
  }

  // Billed cost by the values of `d` (raw charges or rollup, as aggregate picks).
  std::map<std::string, core::WideNanos> by(ledger::Store& s, Dimension d,
                                            std::vector<ledger::Filter> filters = {}) {
    ledger::AggregateQuery q;
    q.dims = {d};
    q.filters = std::move(filters);
    auto rows = s.aggregate(q);
    EXPECT_TRUE(rows) << rows.error().what();
    std::map<std::string, core::WideNanos> out;
    if (rows)
      for (const auto& r : *rows) out[r.values.at(0)] += r.sums.billed;
    return out;
  }

  // Charges whose string ids do not all resolve (charges_text joins every one).
  std::int64_t unresolved() {
    return scalar(fresh_.db,
                  "SELECT (SELECT COUNT(*) FROM charges) - (SELECT COUNT(*) FROM charges_text)");
  }
};

TEST_P(DictionaryTest, EveryDimensionReadsBackTheTextWritten) {
  std::vector<Charge> rows;
  for (std::size_t i = 0; i < kOdd.size(); ++i)
    rows.push_back(odd_charge(kOdd[i], static_cast<std::int64_t>(i + 1)));
  load(*fresh_.store, "odd", rows);
  for (Dimension d :
       {Dimension::kProvider, Dimension::kBillingAccount, Dimension::kSubAccount,
        Dimension::kService, Dimension::kServiceCategory, Dimension::kRegion, Dimension::kResource,
        Dimension::kResourceName, Dimension::kResourceType, Dimension::kSku,
        Dimension::kChargeCategory, Dimension::kChargeFrequency, Dimension::kPricingCategory,
        Dimension::kCommitmentStatus, Dimension::kCommitment, Dimension::kConsumedUnit}) {
    std::map<std::string, core::WideNanos> want;
    for (const auto& c : rows) want[ledger::dimension_value(c, d)] += c.billed;
    EXPECT_EQ(by(*fresh_.store, d), want) << "dimension " << ledger::group_key_name({d, {}});
  }
  EXPECT_EQ(unresolved(), 0);
}

// Many distinct names (a resource name per group, as a report by resource reads): their texts
// come back in one pass over the dictionary, each with its own rows, interleaved with few ids.
TEST_P(DictionaryTest, ManyDistinctValuesReadBackInOnePass) {
  std::vector<Charge> rows;
  for (int i = 0; i < 1500; ++i) {
    Charge c = odd_charge(kOdd[static_cast<std::size_t>(i) % kOdd.size()], i + 1);
    c.resource_name = "name-" + std::to_string(i * 7919 % 1500);
    c.resource_id = "id-" + std::to_string(i);
    c.billed = i + 1;
    rows.push_back(c);
  }
  load(*fresh_.store, "many", rows);
  std::map<std::string, core::WideNanos> want;
  for (const auto& c : rows) want[c.resource_name] += c.billed;
  ledger::AggregateQuery q;
  q.dims = {Dimension::kResourceName, Dimension::kResource, Dimension::kProvider};
  auto got = fresh_.store->aggregate(q);
  ASSERT_TRUE(got) << got.error().what();
  ASSERT_EQ(got->size(), rows.size());
  std::map<std::string, core::WideNanos> names;
  for (const auto& r : *got) {
    names[r.values[0]] += r.sums.billed;
    EXPECT_EQ(r.values[0],
              "name-" + std::to_string((std::stoi(r.values[1].substr(3)) * 7919) % 1500));
  }
  EXPECT_EQ(names, want);
}

TEST_P(DictionaryTest, FiltersMatchTextExactlyAndAnUnseenValueMatchesNothing) {
  load(*fresh_.store, "f", {charge("svc a", 5), charge("svc b", 7), charge("svc a", 11)});
  using M = std::map<std::string, core::WideNanos>;
  // kService is in the rollup; kResource (stored as text) and kSku (encoded) are read from charges.
  EXPECT_EQ(by(*fresh_.store, Dimension::kService, {{{Dimension::kService, {}}, "svc a"}}),
            (M{{"svc a", 16}}));
  EXPECT_EQ(by(*fresh_.store, Dimension::kService, {{{Dimension::kResource, {}}, "r-svc b"}}),
            (M{{"svc b", 7}}));
  EXPECT_EQ(by(*fresh_.store, Dimension::kSku, {{{Dimension::kService, {}}, "svc b"}}),
            (M{{"", 7}}));
  for (Dimension d : {Dimension::kService, Dimension::kResource, Dimension::kSku})
    EXPECT_TRUE(by(*fresh_.store, Dimension::kService, {{{d, {}}, "svc c"}}).empty());
  // A prefix or a different case is another value.
  EXPECT_TRUE(by(*fresh_.store, Dimension::kService, {{{Dimension::kService, {}}, "svc"}}).empty());
  EXPECT_TRUE(
      by(*fresh_.store, Dimension::kService, {{{Dimension::kService, {}}, "SVC A"}}).empty());
}

// SQLite numbers a new string max(id) + 1: an id handed out in a rolled-back ingest comes back for
// another string, so a store that kept it in its cache would file "gone" under that string.
TEST_P(DictionaryTest, IdsOfARolledBackIngestAreNotReused) {
  auto& s = *fresh_.store;
  load(s, "first", {charge("kept", 1)});
  ledger::SourceFile f{"/tmp/rolled", std::string(64, 'r'), 1, "focus-1.2"};
  ASSERT_TRUE(s.begin_source(f, {}));
  ASSERT_TRUE(s.add_charges(std::vector<Charge>{charge("gone", 100)}));
  s.rollback();
  load(s, "second", {charge("new", 10), charge("gone", 1000), charge("kept", 2)});
  using M = std::map<std::string, core::WideNanos>;
  EXPECT_EQ(by(s, Dimension::kService), (M{{"gone", 1000}, {"kept", 3}, {"new", 10}}));
  EXPECT_EQ(by(s, Dimension::kResource), (M{{"r-gone", 1000}, {"r-kept", 3}, {"r-new", 10}}));
  EXPECT_EQ(unresolved(), 0);
}

// Two connections take turns writing: each must see the strings (and tag sets) the other stored
// since it last looked, or it would store them again (refused by UNIQUE) or under other ids.
TEST_P(DictionaryTest, TwoConnectionsShareOneDictionary) {
  auto& one = *fresh_.store;
  auto other = store::open_store(fresh_.db);
  ASSERT_TRUE(other) << other.error().what();
  auto tagged = [](Charge c) {
    c.tags = {{"team", "ml"}};
    return c;
  };
  load(one, "a", {charge("a", 1), charge("b", 2)});
  load(**other, "b", {charge("b", 20), tagged(charge("c", 30))});
  load(one, "c", {tagged(charge("c", 300)), charge("d", 400)});
  load(**other, "d", {charge("a", 1000), charge("d", 4000)});
  using M = std::map<std::string, core::WideNanos>;
  for (ledger::Store* s : {&one, other->get()}) {
    EXPECT_EQ(by(*s, Dimension::kService), (M{{"a", 1001}, {"b", 22}, {"c", 330}, {"d", 4400}}));
    auto tagsets = s->tagsets();
    ASSERT_TRUE(tagsets);
    EXPECT_EQ(tagsets->size(), 1u);
  }
  EXPECT_EQ(scalar(fresh_.db, "SELECT COUNT(*) FROM strings WHERE value IN ('a', 'b', 'c', 'd')"),
            4);
  EXPECT_EQ(unresolved(), 0);
}

// `n` characters of text after `seed`, pseudo-random letters and digits: PostgreSQL compresses a
// long index entry before it checks the size, so a repetitive text would pass where a real
// description or tag value (no pattern to compress) is refused.
std::string long_text(std::size_t n, const std::string& seed) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string out = seed + ":";
  std::uint64_t x = std::hash<std::string>{}(seed) | 1;
  while (out.size() < n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
    out += kChars[(x >> 33) % 62];
  }
  out.resize(n);
  return out;
}

// PostgreSQL refuses a btree entry over 2704 bytes: 30 tags of 100 characters (within what AWS
// allows) made a tag set's canonical text too long for a unique index on it, and one tag value of
// 4 KB a tag too long for tagset_tags' key. Both load and read back, also through a second
// connection that finds them stored (ON CONFLICT on their digest).
TEST_P(DictionaryTest, LongTagSetsLoadAndReadBack) {
  std::vector<ledger::Tag> tags;
  for (int i = 0; i < 30; ++i)
    tags.push_back({"key" + std::to_string(i), long_text(100, "v" + std::to_string(i))});
  const std::vector<ledger::Tag> one_long = {{"team", long_text(4000, "team")}};
  Charge a = charge("a", 1), b = charge("b", 2);
  a.tags = tags;
  b.tags = one_long;
  load(*fresh_.store, "long-tags", {a, b, a});
  auto other = store::open_store(fresh_.db);
  ASSERT_TRUE(other) << other.error().what();
  Charge c = charge("c", 4);
  c.tags = one_long;
  load(**other, "long-tags-again", {a, c});
  auto sets = fresh_.store->tagsets();
  ASSERT_TRUE(sets) << sets.error().what();
  ASSERT_EQ(sets->size(), 2u);
  std::vector<std::vector<ledger::Tag>> got;
  for (const auto& [id, t] : *sets) got.push_back(t);
  std::sort(got.begin(), got.end(),
            [](const auto& x, const auto& y) { return x.size() > y.size(); });
  auto sorted = tags;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& x, const auto& y) { return x.key < y.key; });
  EXPECT_EQ(got[0], sorted);
  EXPECT_EQ(got[1], one_long);
  ledger::AggregateQuery q;
  q.tags = {{"team", {}}};
  auto rows = fresh_.store->aggregate(q);
  ASSERT_TRUE(rows) << rows.error().what();
  std::map<std::string, core::WideNanos> by_team;
  for (const auto& r : *rows) by_team[r.values.at(0)] += r.sums.billed;
  EXPECT_EQ(by_team, (std::map<std::string, core::WideNanos>{{"", 3}, {one_long[0].value, 6}}));
}

// A 10 KB ChargeDescription and resource name go into `strings`, whose unique index on the value
// PostgreSQL refused; a source path of 3 KB into `sources`. They load, read back byte for byte,
// are found again by a second connection (one string each, not two), and a filter finds them.
TEST_P(DictionaryTest, TextLongerThanAnIndexPageLoadsAndReadsBack) {
  Charge c = charge("s", 5);
  c.charge_description = long_text(10240, "description");
  c.resource_name = long_text(10240, "name");
  ledger::SourceFile f{"/tmp/" + long_text(3000, "path"), std::string(64, 'p'), 1, "focus-1.2"};
  auto begun = fresh_.store->begin_source(f, {});
  ASSERT_TRUE(begun) << begun.error().what();
  auto added = fresh_.store->add_charges(std::vector<Charge>{c});
  ASSERT_TRUE(added) << added.error().what();
  auto committed = fresh_.store->commit_source("focus-1.2", 0);
  ASSERT_TRUE(committed) << committed.error().what();
  auto at = fresh_.store->sources_at(f.path);
  ASSERT_TRUE(at) << at.error().what();
  ASSERT_EQ(at->size(), 1u);
  EXPECT_EQ(at->front().file.path, f.path);
  auto other = store::open_store(fresh_.db);
  ASSERT_TRUE(other) << other.error().what();
  load(**other, "again", {c});
  using M = std::map<std::string, core::WideNanos>;
  EXPECT_EQ(by(*fresh_.store, Dimension::kResourceName), (M{{c.resource_name, 10}}));
  EXPECT_EQ(
      by(*fresh_.store, Dimension::kService, {{{Dimension::kResourceName, {}}, c.resource_name}}),
      (M{{"s", 10}}));
  EXPECT_EQ(scalar(fresh_.db, "SELECT COUNT(*) FROM charges_text WHERE charge_description = '" +
                                  c.charge_description + "'"),
            2);
  EXPECT_EQ(scalar(fresh_.db,
                   "SELECT COUNT(*) FROM strings WHERE value = '" + c.charge_description + "'"),
            1);
  EXPECT_EQ(unresolved(), 0);
}

// One row with 1,000 tag keys loads, and every tag reads back. (The store used to send each tag
// its set's whole canonical text, memory growing with the square of the keys.)
TEST_P(DictionaryTest, ATagSetOfAThousandKeysLoadsAndReadsBack) {
  Charge c = charge("wide", 7);
  for (int i = 0; i < 1000; ++i)
    c.tags.push_back({"k" + std::to_string(i), "v" + std::to_string(i)});
  load(*fresh_.store, "wide", {c, c});
  auto sets = fresh_.store->tagsets();
  ASSERT_TRUE(sets) << sets.error().what();
  ASSERT_EQ(sets->size(), 1u);
  const auto& got = sets->begin()->second;
  ASSERT_EQ(got.size(), 1000u);
  std::map<std::string, std::string> want, have;
  for (const auto& t : c.tags) want[t.key] = t.value;
  for (const auto& t : got) have[t.key] = t.value;
  EXPECT_EQ(have, want);
  ledger::AggregateQuery q;
  q.tags = {{"k999", {}}};
  auto rows = fresh_.store->aggregate(q);
  ASSERT_TRUE(rows) << rows.error().what();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().values.at(0), "v999");
  EXPECT_EQ(rows->front().sums.rows, 2);
}

// A PostgreSQL ledger made before the digests (schema 2: unique btrees over the text) migrates:
// its tag sets, strings and alerts sent read back, the same values load again without a second
// copy, and long ones load.
TEST_P(DictionaryTest, APostgresLedgerOfSchemaTwoMovesItsIndexesOntoDigests) {
  if (GetParam() != "postgresql")
    GTEST_SKIP() << "SQLite keeps its indexes (AlertClaimsTest migrates its alerts)";
  Charge tagged = charge("a", 1);
  tagged.tags = {{"team", "ml"}};
  load(*fresh_.store, "before", {tagged, charge("b", 2)});
  ASSERT_TRUE(fresh_.store->record_sent(
      std::vector<ledger::SentAlert>{{"old", "2025-06-01T00:00:00Z", "p"}}));
  fresh_.store.reset();
  PGconn* conn = PQconnectdb(fresh_.db.c_str());
  // Schema 6 (charges partitioned by month) undone first, then 5 to 3.
  PGresult* r =
      PQexec(conn, (std::string(testing::kUndoSchema8) + testing::kUnpartitionCharges + R"SQL(
    DROP INDEX tagsets_canonical; ALTER TABLE tagsets ADD CONSTRAINT tagsets_canonical_key UNIQUE (canonical);
    DROP INDEX tagset_tags_tag; ALTER TABLE tagset_tags ADD PRIMARY KEY (tagset_id, key, value);
    DROP INDEX strings_value; DROP INDEX strings_value_lookup;
    ALTER TABLE strings ADD CONSTRAINT strings_value_key UNIQUE (value);
    DROP INDEX sources_path; CREATE INDEX sources_path ON sources (path);
    CREATE INDEX gpu_samples_host_time ON gpu_samples (host, time);
    DROP INDEX alerts_sent_key; DELETE FROM alerts_sent WHERE state <> 'sent';
    ALTER TABLE alerts_sent DROP COLUMN state, DROP COLUMN claimed_by, DROP COLUMN lease_until;
    ALTER TABLE alerts_sent ADD PRIMARY KEY (key);
    DROP FUNCTION aicost_digest(text);
    DROP INDEX sources_export; ALTER TABLE sources DROP COLUMN export_key, DROP COLUMN periods;
    DELETE FROM schema_migrations WHERE version > 2;)SQL")
                       .c_str());
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(conn);
  PQclear(r);
  PQfinish(conn);
  auto reopened = store::open_store(fresh_.db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  fresh_.store = std::move(*reopened);
  EXPECT_EQ(fresh_.store->schema_version(), 11);
  Charge long_one = charge("c", 4);
  long_one.tags = {{"team", long_text(4000, "team")}};
  long_one.charge_description = long_text(10240, "description");
  load(*fresh_.store, "after", {tagged, charge("b", 20), long_one});
  using M = std::map<std::string, core::WideNanos>;
  EXPECT_EQ(by(*fresh_.store, Dimension::kService), (M{{"a", 2}, {"b", 22}, {"c", 4}}));
  auto sets = fresh_.store->tagsets();
  ASSERT_TRUE(sets) << sets.error().what();
  EXPECT_EQ(sets->size(), 2u);
  EXPECT_EQ(scalar(fresh_.db, "SELECT COUNT(*) FROM strings WHERE value IN ('a', 'b')"), 2);
  auto sent = fresh_.store->sent_alerts();
  ASSERT_TRUE(sent) << sent.error().what();
  ASSERT_EQ(sent->size(), 1u);
  EXPECT_EQ(sent->front().key, "old");
  EXPECT_EQ(unresolved(), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, DictionaryTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
