// The ledger store contract, run against every backend (SQLite and PostgreSQL).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "aicost/billing/ingest.h"
#include "aicost/ledger/report.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "ledger_test_support.h"
#include "store_fixture.h"

namespace aicost {
namespace {

using billing::IngestResult;
using testing::independent_sum;
using testing::kFocusSample;

class StoreTest : public testing::StoreFixture {};

TEST_P(StoreTest, FreshStoreIsAtTheLatestSchema) {
  EXPECT_EQ(store().schema_version(), 11);
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

TEST_P(StoreTest, ReopeningKeepsTheLedger) {
  ingest(kFocusSample);
  const auto before = totals();
  fresh_.store.reset();
  auto reopened = store::open_store(fresh_.db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  fresh_.store = std::move(*reopened);
  EXPECT_EQ(store().schema_version(), 11);
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

// Two sources' samples of the same hours, hosts and GPUs whose names sort otherwise as numbers
// ("h-10" before "h-9"), added in no order and met first out of text order: gpu_hours gives one row
// per host, GPU, hour and metric, in that order as text, with both sources' samples summed
// (eighths: every sum exact in any order).
TEST_P(StoreTest, GpuHoursSortsAndSumsAcrossSources) {
  using Key = std::tuple<std::string, std::string, ledger::UnixSeconds, ledger::GpuMetric>;
  std::map<Key, std::pair<double, std::int64_t>> want;
  for (int source = 0; source < 2; ++source) {
    ASSERT_TRUE(store().begin_source({"/tmp/gpu-hours-" + std::to_string(source) + ".prom",
                                      std::string(64, static_cast<char>('d' + source)), 1, "dcgm"},
                                     {}));
    std::vector<ledger::GpuSample> samples;
    for (int i = 0; i < 96; ++i) {
      const int k = (i * 37 + source * 11) % 96;  // every (host, GPU, minute, metric) once
      ledger::GpuSample s;
      s.line = i + 1;
      s.host = std::vector<std::string>{"h-9", "h-10", "h-1"}[k % 3];
      s.gpu = k / 3 % 2 ? "10" : "9";
      s.metric = k / 6 % 2 ? ledger::GpuMetric::kGpuUtil : ledger::GpuMetric::kSmActive;
      s.time = 1'750'000'000 / 3600 * 3600 + (k / 12) * 1200;  // 8 times: 3 hours
      s.value = 0.125 * (k % 7 + source);
      // The first source's first hour has h-9 only: the hosts are met first in another order.
      if (source == 0 && s.host != "h-9" && k / 12 < 3) continue;
      auto& w = want[{s.host, s.gpu, s.time / 3600 * 3600, s.metric}];
      w.first += s.value;
      ++w.second;
      samples.push_back(s);
    }
    ASSERT_TRUE(store().add_samples(samples));
    ASSERT_TRUE(store().commit_source("dcgm", 0));
  }
  auto got = store().gpu_hours(std::nullopt, std::nullopt);
  ASSERT_TRUE(got) << got.error().what();
  ASSERT_EQ(got->size(), want.size());
  std::size_t i = 0;
  for (const auto& [key, sum] : want) {
    const auto& h = (*got)[i++];
    EXPECT_EQ(std::tie(h.host, h.gpu, h.hour, h.metric), key) << i;
    EXPECT_EQ(h.sum, sum.first) << i;
    EXPECT_EQ(h.samples, sum.second) << i;
  }
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
    EXPECT_EQ(store().schema_version(), 11);
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
