// The ledger store contract, queries: windows, the rollup against the raw rows, tags, answering
// several queries together, units and bound filter values, on every backend (SQLite and
// PostgreSQL).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "aicost/billing/reader.h"
#include "aicost/ledger/report.h"
#include "store_fixture.h"

namespace aicost {
namespace {

using testing::kFocusSample;

class StoreQueryTest : public testing::StoreFixture {};

// Three monthly exports, one source each: a window inside one month reads that month's charges
// only (SQLite skips the other sources), one across two months reads both, one with no charges
// reads nothing; each answer is the sum the test makes itself.
TEST_P(StoreQueryTest, WindowsOverMonthlySourcesSumTheirOwnDays) {
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

TEST_P(StoreQueryTest, RollupAndRawScanAgree) {
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

TEST_P(StoreQueryTest, ReportByTagAndDayAddsUpAndShowsTheUntaggedShare) {
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
TEST_P(StoreQueryTest, TagAliasesAndFiltersMatchAnIndependentSum) {
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
TEST_P(StoreQueryTest, AggregateEachAnswersAsAggregateDoes) {
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
      if (queries[i].gpu_rows_only) {
        EXPECT_GT(b.sums.gpu_hours, 0);
      }
    }
  }
}

// ConsumedQuantity sums by unit (where it means something) as the rows do; the rollup keeps the
// unit and the sum (schema 8), so a query it answers sums the same as the rows: by service, every
// unit together.
TEST_P(StoreQueryTest, ConsumedQuantitySumsByUnitAsTheRowsDo) {
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

TEST_P(StoreQueryTest, FilterValuesAreBoundNeverSpliced) {
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

INSTANTIATE_TEST_SUITE_P(Backends, StoreQueryTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
