// The store writing on its own thread while the reader parses (IngestOptions::write_behind, on
// two cores or more) loads what the serial ingest loads, on both backends: the same rows, issues
// and sums, report line by report line. Small batches make hundreds of hand-overs from one file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/core/cores.h"
#include "aicost/ledger/report.h"
#include "backends.h"
#include "ledger_test_support.h"

namespace aicost {
namespace {

class WriteBehindIngest : public testing::BackendTest {};

std::vector<ledger::ReportLine> by_service_resource_team_day(ledger::Store& store) {
  ledger::ReportRequest req;
  req.by = {{ledger::Dimension::kService, ""},
            {ledger::Dimension::kResource, ""},
            {ledger::Dimension::kTag, "team"}};
  req.granularity = ledger::Granularity::kDay;
  auto report = ledger::run_report(store, req);
  EXPECT_TRUE(report) << report.error().what();
  return report ? report->lines : std::vector<ledger::ReportLine>{};
}

TEST_P(WriteBehindIngest, LoadsWhatTheSerialIngestLoads) {
  if (core::usable_cores() < 2) GTEST_SKIP() << "one core: both ingests run serially";
  const std::string sample = testing::samples_dir() + "focus-sample-data/focus_sample.csv";
  auto serial = testing::fresh_store(GetParam());
  ASSERT_TRUE(serial.store) << serial.skip_reason;

  billing::IngestOptions o;
  o.batch = 7;
  o.keep_issues = 1000;
  auto threaded = billing::ingest_file(store(), sample, o);
  o.write_behind = false;
  auto plain = billing::ingest_file(*serial.store, sample, o);
  ASSERT_TRUE(threaded) << threaded.error().what();
  ASSERT_TRUE(plain) << plain.error().what();

  EXPECT_GT(plain->record.rows, 100);  // many batches of 7
  EXPECT_EQ(threaded->record.rows, plain->record.rows);
  EXPECT_EQ(threaded->record.rejected, plain->record.rejected);
  EXPECT_EQ(threaded->record.warnings, plain->record.warnings);
  EXPECT_EQ(threaded->issue_count, plain->issue_count);
  ASSERT_EQ(threaded->issues.size(), plain->issues.size());
  for (std::size_t i = 0; i < plain->issues.size(); ++i) {
    EXPECT_EQ(threaded->issues[i].line, plain->issues[i].line);
    EXPECT_EQ(threaded->issues[i].message, plain->issues[i].message);
  }

  const auto a = by_service_resource_team_day(store());
  const auto b = by_service_resource_team_day(*serial.store);
  ASSERT_FALSE(b.empty());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(a[i].period, b[i].period);
    EXPECT_EQ(a[i].values, b[i].values);
    EXPECT_EQ(a[i].currency, b[i].currency);
    EXPECT_TRUE(a[i].sums.billed == b[i].sums.billed &&
                a[i].sums.effective == b[i].sums.effective && a[i].sums.list == b[i].sums.list &&
                a[i].sums.rows == b[i].sums.rows && a[i].sums.gpu_hours == b[i].sums.gpu_hours)
        << "line " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, WriteBehindIngest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
