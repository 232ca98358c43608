// ledger::stream_report on both stores, against build_report over every row in memory (the
// report as defined): lines as the store hands out its groups (cost order), top N kept as the
// groups close with the rest summed into (other), totals and untagged shares from their own query;
// and the report written as it is made reads byte for byte as the whole report rendered.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "aicost/ledger/report.h"
#include "aicost/report/ledger_report.h"
#include "backends.h"

namespace aicost {
namespace {

using ledger::Dimension;
using ledger::Granularity;
using ledger::ReportRequest;

constexpr std::int64_t kUnit = 1'000'000'000;

// 3,000 charges over 61 days: 400 resources of three services, a tenth of the rows in EUR, a team
// tag on three resources of four, a credit now and then, costs of a few values (many ties, some
// zero) and GPU-hours on one service.
class ReportStream : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const ledger::Day sep = ledger::days_from_civil(2024, 9, 1);
    ASSERT_TRUE(store().begin_source(
        {"/generated/report-stream.csv", std::string(64, '7'), 0, "focus-1.2"}, {}));
    std::vector<ledger::Charge> rows;
    static const char* kServices[] = {"Compute", "Storage", "AI Platform"};
    static const char* kTeams[] = {"ads", "search", "llm"};
    for (int n = 0; n < 3000; ++n) {
      ledger::Charge c;
      c.line = n + 2;
      const int resource = n * 7 % 400;
      c.period_start =
          (static_cast<ledger::UnixSeconds>(sep) + n * 7919 % 61) * 86400 + n % 24 * 3600;
      c.period_end = c.period_start + 3600;
      c.currency = n % 10 == 3 ? "EUR" : "USD";
      c.resource_id = "res-" + std::to_string(resource);
      c.service_name = kServices[resource % 3];
      c.charge_category = n % 37 == 0 ? "Credit" : "Usage";
      c.billed = c.list = (n % 5) * kUnit / 4;
      c.effective = (c.charge_category == "Credit" ? -1 : 1) * (n % 4) * kUnit / 8;
      c.contracted = c.billed;
      if (resource % 3 == 2) c.gpu_hours = 0.25 * (n % 3);
      if (resource % 4 != 0) c.tags.push_back({"team", kTeams[resource % 3]});
      rows.push_back(std::move(c));
    }
    ASSERT_TRUE(store().add_charges(rows));
    ASSERT_TRUE(store().commit_source("focus-1.2", 0));
  }

  static void expect_same_line(const ledger::ReportLine& got, const ledger::ReportLine& want) {
    EXPECT_EQ(got.period, want.period);
    EXPECT_EQ(got.values, want.values);
    EXPECT_EQ(got.currency, want.currency);
    EXPECT_TRUE(got.sums.billed == want.sums.billed);
    EXPECT_TRUE(got.sums.effective == want.sums.effective);
    EXPECT_TRUE(got.sums.list == want.sums.list);
    EXPECT_TRUE(got.sums.contracted == want.sums.contracted);
    EXPECT_EQ(got.sums.rows, want.sums.rows);
    // Floating-point sums in another order: equal but for the last bits.
    EXPECT_NEAR(got.sums.gpu_hours, want.sums.gpu_hours,
                1e-9 * (1 + std::abs(want.sums.gpu_hours)));
  }

  // stream_report's answer is build_report's over the rows of aggregate_query(r).
  void expect_as_built(const ReportRequest& r) {
    auto rows = store().aggregate(ledger::aggregate_query(r));
    ASSERT_TRUE(rows) << rows.error().what();
    const ledger::Report want = ledger::build_report(r, *rows);
    auto got = ledger::run_report(store(), r);
    ASSERT_TRUE(got) << got.error().what();
    ASSERT_EQ(got->lines.size(), want.lines.size());
    EXPECT_GT(want.lines.size(), 0u);
    for (std::size_t i = 0; i < want.lines.size(); ++i) {
      SCOPED_TRACE("line " + std::to_string(i));
      expect_same_line(got->lines[i], want.lines[i]);
    }
    ASSERT_EQ(got->totals.size(), want.totals.size());
    for (std::size_t i = 0; i < want.totals.size(); ++i)
      expect_same_line(got->totals[i], want.totals[i]);
    ASSERT_EQ(got->untagged.size(), want.untagged.size());
    for (std::size_t i = 0; i < want.untagged.size(); ++i) {
      EXPECT_EQ(got->untagged[i].tag_key, want.untagged[i].tag_key);
      EXPECT_EQ(got->untagged[i].currency, want.untagged[i].currency);
      EXPECT_TRUE(got->untagged[i].untagged_effective == want.untagged[i].untagged_effective);
      EXPECT_DOUBLE_EQ(got->untagged[i].share, want.untagged[i].share);
    }
  }

  static ReportRequest by(std::vector<ledger::GroupKey> keys, Granularity g = Granularity::kTotal,
                          std::size_t top = 0) {
    ReportRequest r;
    r.by = std::move(keys);
    r.granularity = g;
    r.top = top;
    return r;
  }
};

const ledger::GroupKey kResource{Dimension::kResource, {}}, kService{Dimension::kService, {}},
    kTeam{Dimension::kTag, "team"}, kCurrency{Dimension::kCurrency, {}};

TEST_P(ReportStream, EveryLineAsTheStoreSortsIt) {
  expect_as_built(by({kResource}));
  expect_as_built(by({kService, kTeam}, Granularity::kWeek));
  expect_as_built(by({kTeam, kResource}, Granularity::kDay));
  expect_as_built(by({kCurrency, kService}, Granularity::kMonth));
  ReportRequest window = by({kResource, kService});
  window.from = ledger::days_from_civil(2024, 9, 10);
  window.to = ledger::days_from_civil(2024, 10, 5);
  window.filters.push_back({kService, "Storage"});
  window.filters.push_back({kService, "Compute"});
  expect_as_built(window);
}

// Top N with a running (other): the groups that drop out, summed per period and currency, are
// what a full sort folds into (other).
TEST_P(ReportStream, TopNWithOtherIsTheFullSortFolded) {
  for (std::size_t top : {1, 7, 399, 400, 1000}) {
    SCOPED_TRACE("top " + std::to_string(top));
    expect_as_built(by({kResource}, Granularity::kTotal, top));
  }
  expect_as_built(by({kResource}, Granularity::kWeek, 5));
  expect_as_built(by({kTeam}, Granularity::kDay, 2));
  expect_as_built(by({kService, kTeam}, Granularity::kMonth, 3));
  ReportRequest untagged = by({kTeam, kResource}, Granularity::kTotal, 4);
  untagged.filters.push_back({kTeam, ""});
  expect_as_built(untagged);
}

// Written as it is made (a table in two passes over the store's groups): the same bytes as the
// whole report rendered.
TEST_P(ReportStream, WrittenAsItComesReadsAsTheWholeReport) {
  for (const auto& r : {by({kResource}), by({kService, kTeam}, Granularity::kWeek, 2),
                        by({kTeam}, Granularity::kDay)})
    for (auto f : {report::Format::kTable, report::Format::kJson, report::Format::kCsv,
                   report::Format::kMarkdown}) {
      SCOPED_TRACE(std::string(report::to_string(f)) + " " + std::to_string(r.by.size()));
      auto whole = ledger::run_report(store(), r);
      ASSERT_TRUE(whole) << whole.error().what();
      std::ostringstream out;
      ASSERT_TRUE(report::write_ledger_report(store(), r, f, out));
      EXPECT_EQ(out.str(), report::render_ledger_report(*whole, f));
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, ReportStream, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
