// `?limit=N` of /api/check and /metrics: the bytes of `aicost ledger check --limit N` (JSON and
// Prometheus text) on the example governance ledger, whose check has 12 waste findings; a limit
// that is not a count is a 400 naming --limit; `ledger check -o html`'s default cut. The server is
// stopped and the files removed when a test fails too (RAII).
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "aicost/api/ledger.h"
#include "aicost/report/governance_report.h"
#include "dashboard_fixture.h"

namespace aicost {
namespace {

std::string check_args(const Dashboard& d) {
  return "ledger check --dry-run --db " + d.db() + " --budgets " + kGov + "budgets.yaml --as-of " +
         kAsOf;
}

TEST(DashboardLimit, ApiCheckAndMetricsWithALimitAreTheCliWithIt) {
  Dashboard d;
  auto c = d.client();
  const std::string json = cli(d.dir(), check_args(d) + " -o json --limit 3");
  auto r = c.Get("/api/check?limit=3");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, json);
  const auto j = nlohmann::json::parse(json);
  const auto whole = nlohmann::json::parse(c.Get("/api/check")->body);
  ASSERT_EQ(whole["waste"].size(), 12u);
  ASSERT_EQ(j["waste"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(j["waste"][i], whole["waste"][i]) << i;
  // The same keys as the whole check's JSON; the rest counted in the last warning.
  for (const auto& [key, value] : whole.items()) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.size(), whole.size());
  const std::string last = j["warnings"].back();
  EXPECT_EQ(last.rfind("waste: the largest 3 of 12 findings are listed (limit 3); the other 9 "
                       "save ",
                       0),
            0u)
      << last;

  const std::string metrics = cli(d.dir(), check_args(d) + " --prometheus - --limit 3");
  r = c.Get("/metrics?limit=3");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, metrics);
  std::size_t series = 0;
  for (std::size_t at = metrics.find("\naicost_waste_monthly_saving{"); at != std::string::npos;
       at = metrics.find("\naicost_waste_monthly_saving{", at + 1))
    ++series;
  EXPECT_EQ(series, 3u);
  // limit=0 is no limit, as --limit 0 is.
  EXPECT_EQ(c.Get("/api/check?limit=0")->body, c.Get("/api/check")->body);
}

// `ledger check -o html` lists the largest `html_limit` findings (report::kHtmlWasteFindings by
// default, more than the example's 12) when no --limit is given: the page of html_limit 3 is the
// page of --limit 3, byte for byte, and its warnings name the 9 left out; a --limit wins over it,
// and the other forms and the metrics ignore it.
TEST(DashboardLimit, TheHtmlOfACheckListsTheLargestByDefault) {
  Dashboard d;
  api::LedgerDb db;
  db.db = d.db();
  api::LedgerCheckOptions o;
  o.budgets = kGov + "budgets.yaml";
  o.as_of = kAsOf;
  o.dry_run = true;
  o.prometheus = "-";
  const auto run = [&](std::size_t limit, std::size_t html_limit, report::Format f) {
    o.limit = limit;
    o.html_limit = html_limit;
    auto r = api::ledger_check(db, o, f);
    EXPECT_TRUE(r) << r.error().what();
    return r ? *r : api::LedgerCheckOutput{};
  };
  using report::Format;
  static_assert(report::kHtmlWasteFindings > 12);
  // The default lists all 12 of the example; html_limit 0 too.
  const auto whole = run(0, 0, Format::kHtml);
  EXPECT_EQ(run(0, report::kHtmlWasteFindings, Format::kHtml).text, whole.text);
  const auto cut = run(0, 3, Format::kHtml);
  const auto limited = run(3, 0, Format::kHtml);
  EXPECT_EQ(cut.text, limited.text);
  EXPECT_EQ(cut.warnings, limited.warnings);
  EXPECT_LT(cut.text.size(), whole.text.size());
  ASSERT_FALSE(cut.warnings.empty());
  EXPECT_EQ(cut.warnings.back().rfind("waste: the largest 3 of 12 findings are listed", 0), 0u)
      << cut.warnings.back();
  // The metrics keep every finding without --limit.
  EXPECT_EQ(cut.metrics, whole.metrics);
  // --limit 5 wins over html_limit 3.
  EXPECT_EQ(run(5, 3, Format::kHtml).text, run(5, 0, Format::kHtml).text);
  EXPECT_NE(run(5, 3, Format::kHtml).text, cut.text);
  // Other forms list everything.
  for (auto f : {Format::kJson, Format::kTable, Format::kCsv})
    EXPECT_EQ(run(0, 3, f).text, run(0, 0, f).text) << static_cast<int>(f);
}

TEST(DashboardLimit, ALimitThatIsNotACountIsAnErrorNamingTheOption) {
  Dashboard d;
  auto c = d.client();
  for (const char* path : {"/api/check?limit=ten", "/metrics?limit=-1", "/api/check?limit="}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 400) << path;
    EXPECT_EQ(nlohmann::json::parse(r->body)["error"]["context"], "--limit") << path;
  }
}

}  // namespace
}  // namespace aicost
