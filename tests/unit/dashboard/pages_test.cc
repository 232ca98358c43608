// The dashboard's pages as pure functions of a check (src/dashboard/pages.h): what each shows.
#include "pages.h"

#include <gtest/gtest.h>

#include <string>

namespace aicost::dashboard {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Five findings, largest saving first as run_check orders them; the page keeps two and sums the
// other three per currency: 30 + 10 USD and 20 EUR.
TEST(WastePage, TheLargestFindingsAndOneLineForTheRest) {
  governance::CheckResult r;
  r.as_of = ledger::days_from_civil(2025, 6, 28);
  const struct {
    const char* subject;
    const char* currency;
    double saving;
  } findings[] = {{"host-a", "USD", 50},
                  {"host-b", "USD", 40},
                  {"host-c", "USD", 30},
                  {"host-d", "EUR", 20},
                  {"host-e", "USD", 10}};
  for (const auto& f : findings) {
    governance::WasteResult w;
    w.finding.subject = f.subject;
    w.finding.currency = f.currency;
    w.finding.monthly_saving = f.saving;
    w.finding.message = std::string(f.subject) + " is idle";
    r.waste.push_back(w);
  }
  const std::string page = check_page(Page::kWaste, r, {}, 2);
  for (const char* kept : {"host-a", "host-b"})
    EXPECT_NE(page.find(kept), std::string::npos) << kept;
  for (const char* cut : {"host-c", "host-d", "host-e"})
    EXPECT_EQ(page.find(cut), std::string::npos) << cut;
  EXPECT_NE(page.find("... and 3 more findings, saving 20.00 EUR, 40.00 USD a month together (the "
                      "largest 2 are "
                      "above"),
            std::string::npos);
  EXPECT_EQ(count(page, "\"finding\":"), 2u);  // the chart's bars: the findings kept
  // At the limit nothing is cut and there is no such line.
  const std::string whole = check_page(Page::kWaste, r, {}, 5);
  EXPECT_NE(whole.find("host-e"), std::string::npos);
  EXPECT_EQ(whole.find("more findings"), std::string::npos);
}

}  // namespace
}  // namespace aicost::dashboard
