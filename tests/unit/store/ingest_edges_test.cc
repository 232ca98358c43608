// Edges of an ingest seen from the ledger, on both backends (docs/LEDGER.md, "Bad input"):
// - the readers' byte policy: a file with bytes that are not UTF-8 and NULs loads (PostgreSQL
//   refused the whole file, SQLite stored the bytes that later crashed every JSON output), with
//   the text repaired to U+FFFD, the money kept and the warnings recorded;
// - a day's sum beyond what the ledger holds names the file and the row.
#include <gtest/gtest.h>

#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/core/text.h"
#include "aicost/ledger/report.h"
#include "backends.h"
#include "temp_dir.h"

namespace aicost {
namespace {

using namespace std::string_literals;

class IngestEdges : public testing::BackendTest {};

TEST_P(IngestEdges, InvalidBytesAndNulLoadRepaired) {
  testing::TempDir dir("aicost-bytes");
  const auto path =
      dir.write("latin1.csv",
                "BilledCost,ChargePeriodStart,BillingCurrency,ServiceName,ResourceId,Tags\n"
                "1.5,2024-09-01T00:00:00Z,EUR,M\xFCnchen,r1,\"{\"\"Team\"\":\"\"gr\xFC\xDF\"\"}\"\n"
                "2.5,2024-09-01T00:00:00Z,EUR,ok,r\0"
                "2,\n"s
                "3,2024-09-01T00:00:00Z,eur,ok,r3,\"{\"\"k\"\":\"\"a\\u0000b\"\"}\"\n");
  auto r = billing::ingest_file(store(), path, {});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->record.rows, 3);
  EXPECT_EQ(r->record.rejected, 0);
  EXPECT_GE(r->record.warnings, 3);

  ledger::ReportRequest req;
  req.by = {{ledger::Dimension::kService, ""},
            {ledger::Dimension::kResource, ""},
            {ledger::Dimension::kTag, "team"}};
  auto report = ledger::run_report(store(), req);
  ASSERT_TRUE(report) << report.error().what();
  ASSERT_EQ(report->totals.size(), 1u);  // eur and EUR are one currency
  EXPECT_EQ(report->totals[0].currency, "EUR");
  EXPECT_EQ(report->totals[0].sums.billed, 7'000'000'000);
  bool repaired_service = false, repaired_resource = false, repaired_tag = false;
  for (const auto& line : report->lines) {
    for (const auto& v : line.values) EXPECT_TRUE(core::utf8_clean(v)) << v;
    repaired_service = repaired_service || line.values[0] == "M\xEF\xBF\xBDnchen";
    repaired_resource = repaired_resource || line.values[1] ==
                                                 "r\xEF\xBF\xBD"
                                                 "2";
    repaired_tag = repaired_tag || line.values[2] == "gr\xEF\xBF\xBD\xEF\xBF\xBD";
  }
  EXPECT_TRUE(repaired_service && repaired_resource && repaired_tag);

  auto issues = store().issues(r->record.id, 100);
  ASSERT_TRUE(issues) << issues.error().what();
  bool warned = false;
  for (const auto& i : *issues) {
    EXPECT_TRUE(core::utf8_clean(i.message)) << i.message;
    warned = warned || (i.column == "ServiceName" && i.line == 2 &&
                        i.message.find("not UTF-8") != std::string::npos);
  }
  EXPECT_TRUE(warned);
}

// Each row fits (5e9 <= 9.2e9 units), their day's sum in one group does not.
TEST_P(IngestEdges, ADaysSumBeyondTheLedgerNamesTheFileAndLine) {
  testing::TempDir dir("aicost-bytes");
  const auto path = dir.write("big.csv",
                              "BilledCost,ChargePeriodStart,BillingCurrency\n"
                              "5000000000,2024-09-01T00:00:00Z,USD\n"
                              "1,2024-09-02T00:00:00Z,USD\n"
                              "5000000000,2024-09-01T06:00:00Z,USD\n");
  auto r = billing::ingest_file(store(), path, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find(path + ": line 4"), std::string::npos) << r.error().what();
  EXPECT_NE(r.error().message.find("exceeds 9.2e9"), std::string::npos) << r.error().what();
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  EXPECT_TRUE(sources->empty());  // nothing of the file was committed
}

INSTANTIATE_TEST_SUITE_P(Backends, IngestEdges, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
