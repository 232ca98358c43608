// The dictionary encoding of the charges' text columns (src/store/schema.h), on every backend:
// text comes back byte for byte, ids handed out in a rolled-back ingest are never trusted again,
// and two connections writing one ledger share one dictionary.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <cstdlib>
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
  for (std::string* f : {&c.provider,
                         &c.billing_account_id,
                         &c.billing_account_name,
                         &c.sub_account_id,
                         &c.sub_account_name,
                         &c.service_category,
                         &c.region_id,
                         &c.resource_id,
                         &c.resource_name,
                         &c.resource_type,
                         &c.sku_id,
                         &c.charge_category,
                         &c.charge_class,
                         &c.charge_frequency,
                         &c.pricing_category,
                         &c.commitment_discount_id,
                         &c.commitment_discount_status,
                         &c.pricing_unit,
                         &c.consumed_unit,
                         &c.charge_description})
    *f = text + "#" + std::to_string(i++);
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
    ASSERT_TRUE(s.begin_source(f, {}));
    ASSERT_TRUE(s.add_charges(rows));
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
  for (Dimension d : {Dimension::kProvider, Dimension::kBillingAccount, Dimension::kSubAccount,
                      Dimension::kService, Dimension::kServiceCategory, Dimension::kRegion,
                      Dimension::kResource, Dimension::kResourceName, Dimension::kResourceType,
                      Dimension::kSku, Dimension::kChargeCategory, Dimension::kChargeFrequency,
                      Dimension::kPricingCategory, Dimension::kCommitmentStatus, Dimension::kCommitment,
                      Dimension::kConsumedUnit}) {
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
    EXPECT_EQ(r.values[0], "name-" + std::to_string((std::stoi(r.values[1].substr(3)) * 7919) % 1500));
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

INSTANTIATE_TEST_SUITE_P(Backends, DictionaryTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
