// Usage priced by a rate card at ingest (ledger::price_usage): a row whose cost the ledger cannot
// hold is refused where it stands (its line and the column its quantity came from), the rest loads.
// Before, llroundl turned such a cost into whatever it returns out of range (LLONG_MIN here).
#include <gtest/gtest.h>

#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/ledger/rate_card.h"
#include "aicost/store/open.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

TEST(PricedUsage, ARowPricedBeyondWhatTheLedgerHoldsIsRefusedAtItsPlace) {
  testing::TempDir dir("aicost-priced-usage");
  // Line 2: 4 GPUs for one hour, 4 x 2.10 = 8.40 USD. Line 3: 5e9 GPUs for two hours, 1e10
  // GPU-hours, 2.1e10 USD: past 2^63 nano-units.
  const auto file =
      dir.write("sacct.txt",
                "JobID|JobName|User|Account|Partition|Start|End|Elapsed|AllocTRES|State\n"
                "1|ok|u|a|p|2025-06-01T00:00:00|2025-06-01T01:00:00|01:00:00|gres/gpu:h100=4,gres/"
                "gpu=4|COMPLETED\n"
                "2|absurd|u|a|p|2025-06-01T00:00:00|2025-06-01T02:00:00|02:00:00|gres/"
                "gpu:h100=5000000000,gres/gpu=5000000000|COMPLETED\n");
  ledger::RateCard card;
  card.source = "rates.yaml";
  card.currency = "USD";
  card.gpus["h100"] = ledger::RateCard::Rate{2'100'000'000, "rates.yaml:2", "rate card"};
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  IngestOptions options;
  options.rate_card = &card;
  auto r = ingest_file(**store, file, options);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->record.rows, 1);
  EXPECT_EQ(r->summary.rejected, 1);
  ASSERT_EQ(r->issues.size(), 1u);
  EXPECT_EQ(r->issues[0].line, 3);
  EXPECT_EQ(r->issues[0].column, "AllocTRES");
  EXPECT_EQ(r->issues[0].severity, ledger::RowIssue::Severity::kError);
  EXPECT_NE(r->issues[0].message.find(
                "1e+10 GPU-hours at 2.1 USD per GPU-hour (rates.yaml:2) cost 2.1e+10 USD, beyond "
                "what a ledger row holds"),
            std::string::npos)
      << r->issues[0].message;
  ASSERT_EQ(r->record.totals.size(), 1u);
  EXPECT_EQ(r->record.totals[0].currency, "USD");
  EXPECT_EQ(r->record.totals[0].billed, 8'400'000'000);
}

}  // namespace
}  // namespace aicost::billing
