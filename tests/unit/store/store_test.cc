// The ledger store contract, run against every backend (SQLite and PostgreSQL).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "aicost/ledger/report.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "ledger_test_support.h"

namespace aicost {
namespace {

using billing::IngestResult;
using testing::independent_sum;
using testing::samples_dir;

const std::string kFocusSample = samples_dir() + "focus-sample-data/focus_sample.csv";

class StoreTest : public testing::BackendTest {
 protected:
  IngestResult ingest(const std::string& path, bool replace = false) {
    billing::IngestOptions o;
    o.replace = replace;
    auto r = billing::ingest_file(store(), path, o);
    EXPECT_TRUE(r) << (r ? "" : r.error().what());
    return r ? *r : IngestResult{};
  }

  // Totals per currency over everything loaded, through the report path.
  std::map<std::string, ledger::Sums> totals() { return testing::ledger_totals(store()); }

  std::string temp_copy(const std::string& from, const std::string& name,
                        const std::string& append = "") {
    const auto to = files_.path() / (GetParam() + "-" + name);
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    // The shared samples are read-only; the copy must take appends.
    std::filesystem::permissions(to, std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    if (!append.empty()) std::ofstream(to, std::ios::app) << append;
    return to.string();
  }

 private:
  testing::TempDir files_{"aicost-src"};
};

TEST_P(StoreTest, FreshStoreIsAtTheLatestSchema) {
  EXPECT_EQ(store().schema_version(), 10);
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  EXPECT_TRUE(sources->empty());
}

TEST_P(StoreTest, FocusSampleTotalsEqualAnIndependentSum) {
  const auto r = ingest(kFocusSample);
  EXPECT_EQ(r.outcome, IngestResult::Outcome::kLoaded);
  EXPECT_EQ(r.record.rows, 1000);
  EXPECT_EQ(r.record.rejected, 0);
  EXPECT_EQ(r.record.file.format, "focus-1.0");
  const auto billed = independent_sum(kFocusSample, "BilledCost", "BillingCurrency");
  const auto effective = independent_sum(kFocusSample, "EffectiveCost", "BillingCurrency");
  const auto t = totals();
  ASSERT_EQ(t.size(), billed.size());
  for (const auto& [currency, atto] : billed) {
    ASSERT_TRUE(t.count(currency)) << currency;
    // Each value is exact to 1e-9 after half-even rounding; 1000 rows bound the difference.
    EXPECT_NEAR(static_cast<double>(t.at(currency).billed), testing::atto_to_nanos(atto),
                1000 * 0.5)
        << currency;
    EXPECT_NEAR(static_cast<double>(t.at(currency).effective),
                testing::atto_to_nanos(effective.at(currency)), 1000 * 0.5);
    EXPECT_EQ(t.at(currency).rows, 1000);
  }
}

TEST_P(StoreTest, ReingestingTheSameBytesIsANoOp) {
  const auto first = ingest(kFocusSample);
  const auto before = totals();
  const auto again = ingest(temp_copy(kFocusSample, "same-bytes.csv"));  // other path, same bytes
  EXPECT_EQ(again.outcome, IngestResult::Outcome::kAlreadyLoaded);
  EXPECT_EQ(again.record.id, first.record.id);
  const auto after = totals();
  ASSERT_EQ(after.size(), before.size());
  for (const auto& [c, s] : before) EXPECT_EQ(after.at(c).billed, s.billed);
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 1u);
}

TEST_P(StoreTest, ChangedFileAtTheSamePathNeedsReplace) {
  const auto path = temp_copy(kFocusSample, "changing.csv");
  ingest(path);
  const auto before = totals();
  // The export is re-delivered with one more row.
  const auto rows = testing::naive_csv(kFocusSample);
  std::ofstream(path, std::ios::app) << "\n";  // a blank line alone does not change the totals
  billing::IngestOptions o;
  auto refused = billing::ingest_file(store(), path, o);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--replace"), std::string::npos) << refused.error().what();
  EXPECT_EQ(totals().begin()->second.billed, before.begin()->second.billed);
  const auto swapped = ingest(path, /*replace=*/true);
  EXPECT_EQ(swapped.outcome, IngestResult::Outcome::kReplaced);
  EXPECT_EQ(swapped.replaced.size(), 1u);
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 1u);
  EXPECT_EQ(totals().begin()->second.billed, before.begin()->second.billed);
  (void)rows;
}

// A FOCUS 1.3 Contract Commitment file goes into contract_commitments (schema 4) with its money
// exact, counts as its source's rows, and a re-delivery replaces its terms rather than adding to
// them. The expected values are the fixture's cells
// (tests/data/ledger/focus-1.3-contract-commitment.csv).
TEST_P(StoreTest, ContractCommitmentsAreKeptExactlyAndReplaced) {
  const auto path = temp_copy(
      std::string(AICOST_SOURCE_DIR) + "/tests/data/ledger/focus-1.3-contract-commitment.csv",
      "commitments.csv");
  const auto loaded = ingest(path);
  EXPECT_EQ(loaded.record.rows, 2);
  EXPECT_EQ(loaded.record.file.format, "focus-1.3-contract-commitment");
  auto read = store().commitments();
  ASSERT_TRUE(read) << read.error().what();
  ASSERT_EQ(read->size(), 2u);
  const auto& spend = (*read)[0];
  EXPECT_EQ(spend.contract_id, "C-100");
  EXPECT_EQ(spend.commitment_id, "12346");
  EXPECT_EQ(spend.category, "Spend");
  EXPECT_EQ(spend.type, "Spend Commitment");
  EXPECT_EQ(spend.description, "Spend 500,000 USD on the relevant service");
  EXPECT_EQ(spend.currency, "USD");
  ASSERT_TRUE(spend.cost);
  EXPECT_EQ(*spend.cost, 500'000'000'000'000);
  EXPECT_FALSE(spend.quantity);
  EXPECT_EQ(spend.line, 2);
  EXPECT_EQ(spend.commitment_start, 1764547200);  // 2025-12-01T00:00:00Z
  EXPECT_EQ(spend.contract_end, 1859241600);      // 2028-12-01T00:00:00Z
  const auto& usage = (*read)[1];
  EXPECT_EQ(usage.commitment_id, "23456");
  EXPECT_FALSE(usage.cost);
  ASSERT_TRUE(usage.quantity);
  EXPECT_EQ(*usage.quantity, 8760.0);
  EXPECT_EQ(usage.unit, "compute_hours");
  // Re-delivered with the usage term only: the earlier two rows go.
  std::ifstream in(path);
  std::string header, first, second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  in.close();
  std::ofstream(path, std::ios::trunc) << header << "\n" << second << "\n";
  const auto swapped = ingest(path, /*replace=*/true);
  EXPECT_EQ(swapped.outcome, IngestResult::Outcome::kReplaced);
  read = store().commitments();
  ASSERT_TRUE(read) << read.error().what();
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].commitment_id, "23456");
}

TEST_P(StoreTest, RolledBackIngestLeavesNothing) {
  ledger::SourceFile f{"/tmp/x.csv", std::string(64, 'a'), 10, "focus-1.2"};
  ASSERT_TRUE(store().begin_source(f, {}));
  ledger::Charge c;
  c.period_start = 86400 * 20000;
  c.currency = "USD";
  c.billed = c.effective = c.list = 5;
  c.tags = {{"team", "ml"}};
  ASSERT_TRUE(store().add_charges(std::vector<ledger::Charge>{c}));
  store().rollback();
  EXPECT_TRUE(totals().empty());
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  EXPECT_TRUE(sources->empty());
  auto tagsets = store().tagsets();
  ASSERT_TRUE(tagsets);
  EXPECT_TRUE(tagsets->empty());
}

// Three monthly exports, one source each: a window inside one month reads that month's charges
// only (SQLite skips the other sources), one across two months reads both, one with no charges
// reads nothing; each answer is the sum the test makes itself.
TEST_P(StoreTest, WindowsOverMonthlySourcesSumTheirOwnDays) {
  const ledger::Day june = ledger::days_from_civil(2025, 6, 1);
  std::map<std::pair<std::string, ledger::Day>, core::WideNanos>
      made;  // (resource, day) -> effective
  for (int month = 0; month < 3; ++month) {
    ledger::SourceFile f{"/tmp/month-" + std::to_string(month) + ".csv",
                         std::string(64, static_cast<char>('a' + month)), 10, "focus-1.2"};
    ASSERT_TRUE(store().begin_source(f, {}));
    std::vector<ledger::Charge> rows;
    for (int day = 0; day < 30; ++day) {
      for (const char* resource : {"bucket-a", "bucket-b"}) {
        ledger::Charge c;
        c.line = static_cast<std::int64_t>(rows.size() + 2);
        c.period_start = static_cast<ledger::UnixSeconds>(june + 30 * month + day) * 86400;
        c.period_end = c.period_start + 86400;
        c.currency = "USD";
        c.resource_id = resource;
        c.service_category = "Storage";
        c.billed = c.effective = c.list = (month + 1) * 1000 + day;
        made[{resource, june + 30 * month + day}] += c.effective;
        rows.push_back(c);
      }
    }
    ASSERT_TRUE(store().add_charges(rows));
    ASSERT_TRUE(store().commit_source("focus-1.2", 0));
  }
  auto expect = [&](ledger::Day from, ledger::Day to) {
    SCOPED_TRACE("days " + std::to_string(from - june) + ".." + std::to_string(to - june));
    ledger::AggregateQuery q;
    q.dims = {ledger::Dimension::kResource};
    q.by_day = true;
    q.from = from;
    q.to = to;
    ledger::AggregateQuery totals = q;  // the other path: several queries read together
    totals.by_day = false;
    const std::vector<ledger::AggregateQuery> both = {q, totals};
    auto rows = store().aggregate(q);
    auto together = store().aggregate_each(both);
    ASSERT_TRUE(rows && together);
    std::map<std::pair<std::string, ledger::Day>, core::WideNanos> want;
    std::map<std::string, core::WideNanos> want_totals;
    for (const auto& [key, nanos] : made)
      if (key.second >= from && key.second < to) {
        want[key] = nanos;
        want_totals[key.first] += nanos;
      }
    std::map<std::pair<std::string, ledger::Day>, core::WideNanos> got;
    for (const auto& r : *rows) got[{r.values[0], r.day}] += r.sums.effective;
    EXPECT_EQ(got, want);
    EXPECT_EQ((*together)[0].size(), rows->size());
    std::map<std::string, core::WideNanos> got_totals;
    for (const auto& r : (*together)[1]) got_totals[r.values[0]] += r.sums.effective;
    EXPECT_EQ(got_totals, want_totals);
  };
  expect(june + 65, june + 75);    // inside the third month
  expect(june + 60, june + 90);    // the third month, its first and last rows too
  expect(june + 25, june + 35);    // across the first two
  expect(june + 100, june + 110);  // after them all
}

TEST_P(StoreTest, RollupAndRawScanAgree) {
  ingest(kFocusSample);
  // By service from the rollup, and by (service, resource) from the raw charges, summed by service.
  ledger::AggregateQuery rolled;
  rolled.dims = {ledger::Dimension::kService};
  rolled.by_day = true;
  ledger::AggregateQuery raw = rolled;
  raw.dims.push_back(ledger::Dimension::kResource);
  auto a = store().aggregate(rolled);
  auto b = store().aggregate(raw);
  ASSERT_TRUE(a && b);
  std::map<std::tuple<ledger::Day, std::string, std::string>, ledger::Sums> from_raw, from_rollup;
  for (const auto& r : *a) from_rollup[{r.day, r.values[0], r.currency}] += r.sums;
  for (const auto& r : *b) from_raw[{r.day, r.values[0], r.currency}] += r.sums;
  ASSERT_EQ(from_raw.size(), from_rollup.size());
  for (const auto& [k, s] : from_rollup) {
    EXPECT_EQ(s.billed, from_raw.at(k).billed);
    EXPECT_EQ(s.effective, from_raw.at(k).effective);
    EXPECT_EQ(s.rows, from_raw.at(k).rows);
  }
}

TEST_P(StoreTest, ReportByTagAndDayAddsUpAndShowsTheUntaggedShare) {
  ingest(kFocusSample);
  ledger::ReportRequest req;
  req.by = {*ledger::parse_group_key("tag:environment")};
  req.granularity = ledger::Granularity::kDay;
  auto rep = ledger::run_report(store(), req);
  ASSERT_TRUE(rep) << rep.error().what();
  core::WideNanos sum = 0;
  bool saw_untagged = false, saw_dev = false;
  for (const auto& l : rep->lines) {
    sum += l.sums.billed;
    saw_untagged |= l.values[0] == ledger::kUntagged;
    saw_dev |= l.values[0] == "dev";
  }
  EXPECT_TRUE(saw_untagged);
  EXPECT_TRUE(saw_dev);
  ASSERT_EQ(rep->totals.size(), 1u);
  EXPECT_EQ(sum, rep->totals[0].sums.billed);
  ASSERT_EQ(rep->untagged.size(), 1u);
  // 711 of 1000 rows carry Tags; the untagged share of cost is strictly between 0 and 1.
  EXPECT_GT(rep->untagged[0].share, 0.0);
  EXPECT_LT(rep->untagged[0].share, 1.0);
}

// Tag values resolve per tag set in the store (GroupFold): an alias stands in for a missing key,
// a tag filter drops whole tag sets, and the rollup and raw-row paths agree with a sum over the
// reader's own rows.
TEST_P(StoreTest, TagAliasesAndFiltersMatchAnIndependentSum) {
  ingest(kFocusSample);
  std::vector<ledger::Charge> charges;
  billing::Sink sink;
  sink.charge = [&](ledger::Charge&& c) {
    charges.push_back(std::move(c));
    return core::Status{};
  };
  ASSERT_TRUE(billing::read_file(kFocusSample, billing::Format::kFocus, sink));
  auto find = [](const ledger::Charge& c, const std::string& key) {
    for (const auto& t : c.tags)
      if (t.key == key && !t.value.empty()) return t.value;
    return std::string();
  };
  auto env = [&](const ledger::Charge& c) {
    std::string v = find(c, "environment");
    if (v.empty()) v = find(c, "env");
    return v.empty() ? std::string(ledger::kUntagged) : v;
  };
  // Filter on the business unit (or its absence, "") whose rows show the most environments.
  std::map<std::string, std::map<std::string, core::WideNanos>> by_unit;
  for (const auto& c : charges) by_unit[find(c, "business_unit")][env(c)] += c.effective;
  std::string unit;
  std::map<std::string, core::WideNanos> expected;
  for (const auto& [u, sums] : by_unit)
    if (sums.size() > expected.size()) unit = u, expected = sums;
  ASSERT_GE(expected.size(), 2u);

  ledger::ReportRequest req;
  req.by = {*ledger::parse_group_key("tag:environment")};
  req.aliases["environment"] = {"env"};
  req.filters.push_back({*ledger::parse_group_key("tag:business_unit"), unit});
  for (bool raw : {false, true}) {
    SCOPED_TRACE(raw ? "raw rows (by resource)" : "daily rollup");
    if (raw) req.by.push_back({ledger::Dimension::kResource, {}});
    auto rep = ledger::run_report(store(), req);
    ASSERT_TRUE(rep) << rep.error().what();
    std::map<std::string, core::WideNanos> got;
    for (const auto& l : rep->lines) got[l.values[0]] += l.sums.effective;
    EXPECT_EQ(got, expected);
  }
}

// Several raw-row queries answered together (SQLite: one scan, filters applied per row) give
// exactly what each gives alone: different days, dimensions, tags, OR-ed filters on an encoded
// dimension, a filter on the resource id (text), a tag filter, a value never seen, and GPU rows
// only.
TEST_P(StoreTest, AggregateEachAnswersAsAggregateDoes) {
  ingest(kFocusSample);
  ledger::AggregateQuery days;
  days.dims = {ledger::Dimension::kService};
  days.by_day = true;
  auto all_days = store().aggregate(days);
  ASSERT_TRUE(all_days && !all_days->empty());
  const auto [lo, hi] =
      std::minmax_element(all_days->begin(), all_days->end(),
                          [](const auto& a, const auto& b) { return a.day < b.day; });
  const ledger::Day first = lo->day, last = hi->day;
  ASSERT_GT(last - first, 4);
  // GPU rows (the sample has none): a node billed 8 GPU-hours an hour on three days, in another
  // source, between charges without GPU-hours.
  ASSERT_TRUE(
      store().begin_source({"/tmp/gpu-nodes.csv", std::string(64, 'g'), 10, "focus-1.2"}, {}));
  std::vector<ledger::Charge> nodes;
  for (int day = 2; day < 5; ++day) {
    for (const char* resource : {"gpu-node-1", "cpu-node-1"}) {
      ledger::Charge c;
      c.line = static_cast<std::int64_t>(nodes.size() + 2);
      c.period_start = static_cast<ledger::UnixSeconds>(first + day) * 86400;
      c.period_end = c.period_start + 3600;
      c.currency = "USD";
      c.resource_id = resource;
      c.service_category = "Compute";
      c.billed = c.effective = c.list = 98'320'000'000;
      c.gpu_hours = resource[0] == 'g' ? 8 : 0;
      nodes.push_back(c);
    }
  }
  ASSERT_TRUE(store().add_charges(nodes));
  ASSERT_TRUE(store().commit_source("focus-1.2", 0));

  ledger::AggregateQuery totals;
  totals.dims = {ledger::Dimension::kResource, ledger::Dimension::kService,
                 ledger::Dimension::kChargeCategory, ledger::Dimension::kCommitmentStatus};
  totals.tags = {{"environment", {"env"}}};
  totals.from = first;
  totals.to = last + 1;
  ledger::AggregateQuery storage;
  storage.dims = {ledger::Dimension::kResource, ledger::Dimension::kResourceName};
  storage.by_day = true;
  storage.from = first + 2;
  storage.to = last - 1;
  for (const char* c : {"Storage", "Compute", "no such category"})
    storage.filters.push_back({{ledger::Dimension::kServiceCategory, {}}, c});
  ledger::AggregateQuery one_resource = totals;
  one_resource.tags.clear();
  one_resource.by_day = true;
  one_resource.tag_filters.push_back({{"environment", {"env"}}, "dev"});
  const auto dev = store().aggregate(one_resource);
  ASSERT_TRUE(dev && !dev->empty());
  one_resource.filters.push_back(
      {{ledger::Dimension::kResource, {}}, (*dev)[dev->size() / 2].values[0]});

  // Only the GPU rows (SQLite drops the others as it folds the one scan).
  ledger::AggregateQuery gpus = storage;
  gpus.filters.clear();
  gpus.gpu_rows_only = true;

  const std::vector<ledger::AggregateQuery> queries = {totals, storage, one_resource, gpus};
  auto together = store().aggregate_each(queries);
  ASSERT_TRUE(together) << together.error().what();
  ASSERT_EQ(together->size(), queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i) {
    SCOPED_TRACE("query " + std::to_string(i));
    auto alone = store().aggregate(queries[i]);
    ASSERT_TRUE(alone) << alone.error().what();
    ASSERT_EQ((*together)[i].size(), alone->size());
    EXPECT_FALSE(alone->empty());
    for (std::size_t r = 0; r < alone->size(); ++r) {
      const auto& a = (*alone)[r];
      const auto& b = (*together)[i][r];
      EXPECT_EQ(a.day, b.day);
      EXPECT_EQ(a.values, b.values);
      EXPECT_EQ(a.currency, b.currency);
      EXPECT_EQ(a.sums.billed, b.sums.billed);
      EXPECT_EQ(a.sums.effective, b.sums.effective);
      EXPECT_EQ(a.sums.rows, b.sums.rows);
      EXPECT_EQ(a.sums.first_day, b.sums.first_day);
      EXPECT_EQ(a.sums.last_day, b.sums.last_day);
      EXPECT_DOUBLE_EQ(a.sums.consumed_quantity, b.sums.consumed_quantity);
      EXPECT_DOUBLE_EQ(a.sums.gpu_hours, b.sums.gpu_hours);
      if (queries[i].gpu_rows_only) EXPECT_GT(b.sums.gpu_hours, 0);
    }
  }
}

// ConsumedQuantity sums by unit (where it means something) as the rows do; the rollup keeps the
// unit and the sum (schema 8), so a query it answers sums the same as the rows: by service, every
// unit together.
TEST_P(StoreTest, ConsumedQuantitySumsByUnitAsTheRowsDo) {
  ingest(kFocusSample);
  std::map<std::string, double> expected, by_service;
  billing::Sink sink;
  sink.charge = [&](ledger::Charge&& c) {
    expected[c.consumed_unit] += c.consumed_quantity.value_or(0);
    by_service[c.service_name] += c.consumed_quantity.value_or(0);
    return core::Status{};
  };
  ASSERT_TRUE(billing::read_file(kFocusSample, billing::Format::kFocus, sink));
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kConsumedUnit};
  auto rows = store().aggregate(q);
  ASSERT_TRUE(rows) << rows.error().what();
  std::map<std::string, double> got;
  for (const auto& r : *rows) got[r.values[0]] += r.sums.consumed_quantity;
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [unit, quantity] : expected)
    EXPECT_NEAR(got[unit], quantity, 1e-6 * (1 + std::abs(quantity))) << unit;
  q.dims = {ledger::Dimension::kService};  // answered by the rollup
  rows = store().aggregate(q);
  ASSERT_TRUE(rows);
  got.clear();
  for (const auto& r : *rows) got[r.values[0]] += r.sums.consumed_quantity;
  ASSERT_EQ(got.size(), by_service.size());
  for (const auto& [service, quantity] : by_service)
    EXPECT_NEAR(got[service], quantity, 1e-6 * (1 + std::abs(quantity))) << service;
}

TEST_P(StoreTest, FilterValuesAreBoundNeverSpliced) {
  ingest(kFocusSample);
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kProvider};
  q.filters = {{{ledger::Dimension::kProvider, {}}, "AWS' OR '1'='1"}};
  auto rows = store().aggregate(q);
  ASSERT_TRUE(rows) << rows.error().what();
  EXPECT_TRUE(rows->empty());
  q.filters = {{{ledger::Dimension::kProvider, {}}, "AWS"}};
  rows = store().aggregate(q);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().sums.rows, 942);  // the sample's AWS rows
  // Two values of one dimension OR together; another dimension ANDs (a value no row has: none).
  q.filters.push_back({{ledger::Dimension::kProvider, {}}, "Microsoft"});
  rows = store().aggregate(q);
  ASSERT_TRUE(rows);
  std::int64_t both = 0;
  for (const auto& r : *rows) both += r.sums.rows;
  EXPECT_EQ(both, 993);  // the sample: 942 AWS, 51 Microsoft, 7 Oracle rows
  q.filters.push_back({{ledger::Dimension::kRegion, {}}, "no-such-region"});
  rows = store().aggregate(q);
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->empty());
  // A tag key with quotes is only ever a value to match.
  ledger::ReportRequest req;
  req.by = {{ledger::Dimension::kTag, "x'); DROP TABLE charges; --"}};
  auto rep = ledger::run_report(store(), req);
  ASSERT_TRUE(rep);
  EXPECT_EQ(totals().begin()->second.rows, 1000);
}

TEST_P(StoreTest, ReopeningKeepsTheLedger) {
  ingest(kFocusSample);
  const auto before = totals();
  fresh_.store.reset();
  auto reopened = store::open_store(fresh_.db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  fresh_.store = std::move(*reopened);
  EXPECT_EQ(store().schema_version(), 10);
  EXPECT_EQ(totals().begin()->second.billed, before.begin()->second.billed);
}

// Compacting keeps every row and sum, refuses to run inside an ingest, and says what it did.
TEST_P(StoreTest, CompactKeepsEveryRowAndRefusesDuringAnIngest) {
  ingest(kFocusSample);
  const auto before = totals();
  auto c = store().compact();
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_GT(c->bytes_before, 0);
  EXPECT_GT(c->bytes_after, 0);
  EXPECT_NE(c->how.find("VACUUM"), std::string::npos);
  testing::expect_same_totals(totals(), before);
  ASSERT_TRUE(
      store().begin_source({"/tmp/compact-during.csv", std::string(64, 'c'), 1, "focus-1.2"}, {}));
  auto during = store().compact();
  ASSERT_FALSE(during);
  EXPECT_NE(during.error().what().find("ingest"), std::string::npos);
  store().rollback();
}

// gpu_hours reads the activity metrics, and FB_USED as well when asked (rightsize): the
// optimize-ledger example has hourly SM_ACTIVE of 3 dev hosts x 1 GPU and i-eval0's 8 GPUs, and
// FB_USED of i-eval0's 8, over 28 days of 24 h.
TEST_P(StoreTest, GpuHoursReadMemoryOnlyWhenAsked) {
  ingest(std::string(AICOST_SOURCE_DIR) +
         "/examples/optimize-ledger/dcgm-dev-pool-2025-04-05.prom");
  auto activity = store().gpu_hours(std::nullopt, std::nullopt);
  ASSERT_TRUE(activity) << activity.error().what();
  EXPECT_EQ(activity->size(), (3u + 8u) * 28 * 24);
  auto both = store().gpu_hours(std::nullopt, std::nullopt, true);
  ASSERT_TRUE(both) << both.error().what();
  EXPECT_EQ(both->size(), (3u + 8u + 8u) * 28 * 24);
  std::size_t memory = 0;
  for (const auto& h : *both) {
    if (h.metric != ledger::GpuMetric::kFbUsed) continue;
    ++memory;
    EXPECT_EQ(h.host, "i-eval0");
    // 5-6 GiB, written in MiB and kept in bytes.
    EXPECT_GE(h.mean(), 5.0 * 1024 * 1024 * 1024);
    EXPECT_LE(h.mean(), 6.0 * 1024 * 1024 * 1024);
  }
  EXPECT_EQ(memory, 8u * 28 * 24);
}

// A ledger written at schema 1 (before governance) opens at the latest schema with its charges,
// and alerts sent go in once: a key recorded again keeps its first record.
TEST_P(StoreTest, SchemaOneMigratesAndAlertsAreRecordedOnce) {
  ingest(kFocusSample);
  ingest(std::string(AICOST_SOURCE_DIR) + "/examples/ledger/dcgm-ai-lab-2025-06-03.prom");
  const auto before = totals();
  auto hours = store().gpu_hours(std::nullopt, std::nullopt);
  ASSERT_TRUE(hours) << hours.error().what();
  EXPECT_EQ(
      hours->size(),
      384u);  // 6 hosts x 8 GPUs x 4 scrapes, 6 h apart x (SM_ACTIVE or GR_ENGINE_ACTIVE, GPU_UTIL)
  if (GetParam() == "sqlite") {
    fresh_.store.reset();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(fresh_.db.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(
            db,
            (std::string(testing::kUndoSchema8) +
             "DROP TABLE alerts_sent; DROP TABLE gpu_hourly; DROP INDEX sources_export; "
             "ALTER TABLE sources DROP COLUMN export_key; ALTER TABLE sources DROP COLUMN periods; "
             "DELETE FROM schema_migrations WHERE version >= 2")
                .c_str(),
            nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
    auto reopened = store::open_store(fresh_.db);
    ASSERT_TRUE(reopened) << reopened.error().what();
    fresh_.store = std::move(*reopened);
    EXPECT_EQ(store().schema_version(), 10);
    EXPECT_EQ(totals().begin()->second.billed, before.begin()->second.billed);
    // The migration rebuilt the hourly telemetry from the samples.
    auto migrated = store().gpu_hours(std::nullopt, std::nullopt);
    ASSERT_TRUE(migrated) << migrated.error().what();
    ASSERT_EQ(migrated->size(), hours->size());
    for (std::size_t i = 0; i < hours->size(); ++i) {
      EXPECT_EQ((*migrated)[i].host, (*hours)[i].host);
      EXPECT_EQ((*migrated)[i].hour, (*hours)[i].hour);
      EXPECT_DOUBLE_EQ((*migrated)[i].sum, (*hours)[i].sum);
      EXPECT_EQ((*migrated)[i].samples, (*hours)[i].samples);
    }
  }
  const std::vector<ledger::SentAlert> first{
      {"b|2025-06|actual|red", "2025-06-28T00:00:00Z", "one"},
      {"b|2025-06|actual|yellow", "2025-06-28T00:00:00Z", "two"}};
  ASSERT_TRUE(store().record_sent(first));
  const std::vector<ledger::SentAlert> again{
      {"b|2025-06|actual|red", "2025-06-29T00:00:00Z", "changed"}};
  ASSERT_TRUE(store().record_sent(again));
  auto sent = store().sent_alerts();
  ASSERT_TRUE(sent) << sent.error().what();
  ASSERT_EQ(sent->size(), 2u);
  EXPECT_EQ((*sent)[0].key, "b|2025-06|actual|red");
  EXPECT_EQ((*sent)[0].payload, "one");
  EXPECT_EQ((*sent)[1].payload, "two");
}

TEST_P(StoreTest, UsefulShareJoinsTelemetryByHostAndDay) {
  const std::string dir = std::string(AICOST_SOURCE_DIR) + "/examples/ledger/";
  ingest(dir + "focus-ai-lab-2025-06.csv");
  const auto samples = ingest(dir + "dcgm-ai-lab-2025-06-03.prom");
  EXPECT_EQ(samples.record.rows, 384);  // 6 hosts x 8 GPUs x 4 scrapes x 2 metrics
  ledger::ReportRequest req;
  req.by = {*ledger::parse_group_key("resource_name")};
  req.from = ledger::days_from_civil(2025, 6, 3);
  req.to = *req.from + 1;
  req.useful = true;
  auto rep = ledger::run_report(store(), req);
  ASSERT_TRUE(rep) << rep.error().what();
  std::map<std::string, ledger::Sums> by;
  for (const auto& l : rep->lines) by[l.values[0]] = l.sums;
  // The dev box reads GPU_UTIL 100 on a hung GPU, but SM_ACTIVE 0: nothing useful.
  EXPECT_DOUBLE_EQ(by.at("i-dev9").observed_gpu_hours, 64.0);
  EXPECT_DOUBLE_EQ(by.at("i-dev9").useful_gpu_hours, 0.0);
  // Training hosts near 0.8 SM_ACTIVE; the serving host has GR_ENGINE_ACTIVE only (~0.35).
  EXPECT_NEAR(by.at("i-train0").useful_gpu_hours / by.at("i-train0").observed_gpu_hours, 0.82,
              0.03);
  EXPECT_NEAR(by.at("i-serve0").useful_gpu_hours / by.at("i-serve0").observed_gpu_hours, 0.35,
              0.03);
  // No telemetry for the second serving host: nothing observed, and its cost is still there.
  EXPECT_DOUBLE_EQ(by.at("i-serve1").observed_gpu_hours, 0.0);
  EXPECT_GT(by.at("i-serve1").effective, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
