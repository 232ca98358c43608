// A check cut to its largest waste findings (report::largest_waste: `ledger check --limit`,
// `aicost serve`'s ?limit=), on a check built by hand.
#include <gtest/gtest.h>

#include "aicost/report/governance_report.h"

namespace aicost::report {
namespace {

// Five findings, largest saving first as run_check sorts them: 500 USD, 300 EUR, 200 USD, 100 USD,
// 50 EUR; one warning of the check's own.
governance::CheckResult five_findings() {
  governance::CheckResult r;
  r.warnings = {"the check's own warning"};
  const struct {
    double saving;
    const char* currency;
  } rows[] = {{500, "USD"}, {300, "EUR"}, {200, "USD"}, {100, "USD"}, {50, "EUR"}};
  for (const auto& row : rows) {
    governance::WasteResult w;
    w.finding.subject = "r" + std::to_string(r.waste.size());
    w.finding.currency = row.currency;
    w.finding.monthly_saving = row.saving;
    r.waste.push_back(w);
  }
  return r;
}

// Limit 2: the two largest stay; the other three save 200 + 100 = 300 USD and 50 EUR (currencies
// in name order).
TEST(LargestWaste, KeepsTheLargestAndCountsTheRestPerCurrency) {
  const auto cut = largest_waste(five_findings(), 2);
  ASSERT_EQ(cut.waste.size(), 2u);
  EXPECT_EQ(cut.waste[0].finding.subject, "r0");
  EXPECT_EQ(cut.waste[1].finding.subject, "r1");
  ASSERT_EQ(cut.warnings.size(), 2u);
  EXPECT_EQ(cut.warnings[0], "the check's own warning");
  EXPECT_EQ(cut.warnings[1],
            "waste: the largest 2 of 5 findings are listed (limit 2); the other 3 save 50.00 EUR, "
            "300.00 USD a month together");
}

TEST(LargestWaste, NoLimitOrRoomForAllLeavesTheCheckAsItIs) {
  for (std::size_t limit : {0, 5, 6}) {
    const auto same = largest_waste(five_findings(), limit);
    EXPECT_EQ(same.waste.size(), 5u) << limit;
    EXPECT_EQ(same.warnings.size(), 1u) << limit;
  }
}

// The JSON keeps its shape: the same keys, a shorter list, the warning in "warnings".
TEST(LargestWaste, TheJsonHasTheShapeOfTheWholeChecks) {
  const std::string whole = render_check(five_findings(), Format::kJson);
  const std::string cut = render_check(largest_waste(five_findings(), 1), Format::kJson);
  EXPECT_NE(cut.find("\"waste\""), std::string::npos);
  EXPECT_NE(cut.find("the largest 1 of 5 findings"), std::string::npos);
  EXPECT_LT(cut.size(), whole.size());
}

}  // namespace
}  // namespace aicost::report
