// `aicost serve` over a PostgreSQL ledger (read-only sessions, read per request, no answer kept)
// answers what it answers over the same ledger in SQLite: every page and /api route, byte for
// byte, and `ledger check -o html`'s cut and -o json through the api. PostgreSQL is the server
// named by $AICOST_TEST_PG_URL (`make test` starts one); without it the test is skipped, unless
// $AICOST_TEST_PG_REQUIRED=1, where fresh_postgres_db fails it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "aicost/api/ledger.h"
#include "dashboard_fixture.h"
#include "store/backends.h"

namespace aicost {
namespace {

TEST(DashboardPostgres, EveryAnswerEqualsTheSqliteLedgers) {
  const auto fresh = testing::fresh_postgres_db();
  if (fresh.db.empty()) {
    const char* required = std::getenv("AICOST_TEST_PG_REQUIRED");
    if (required && std::string(required) == "1")
      FAIL() << "PostgreSQL is required: " << fresh.skip_reason;
    GTEST_SKIP() << fresh.skip_reason;
  }
  Dashboard pg("", 64 * 1024, fresh.db), lite;
  auto p = pg.client(), s = lite.client();
  for (const char* path :
       {"/", "/?by=tag:team&granularity=week&top=5", "/budgets", "/anomalies", "/waste", "/plans",
        "/api/check", "/metrics", "/api/check?limit=3", "/metrics?limit=3", "/api/report",
        "/api/report?by=tag:team,service&granularity=day&top=5",
        "/api/report?by=service&from=2025-06-01&filter=tag:team=llm-serve&useful=1", "/api/plans",
        "/nothing"}) {
    const auto a = p.Get(path), b = s.Get(path);
    ASSERT_TRUE(a) << path;
    ASSERT_TRUE(b) << path;
    EXPECT_EQ(a->status, b->status) << path;
    EXPECT_EQ(a->get_header_value("Content-Type"), b->get_header_value("Content-Type")) << path;
    EXPECT_EQ(a->body, b->body) << path;
    EXPECT_GT(a->body.size(), 20u) << path;
  }
  // The page is a real one: the check ran on PostgreSQL (the budgets and their gate are there).
  EXPECT_NE(p.Get("/budgets")->body.find("gate: FAILED"), std::string::npos);
  EXPECT_EQ(p.Get("/budgets")->status, 200);
  // `ledger check -o html` cut to its 3 largest findings (as the 50 of a big ledger), and the JSON
  // with each budget's forecast path, are the same on both.
  for (auto f : {report::Format::kHtml, report::Format::kJson}) {
    std::string text[2];
    for (int i = 0; i < 2; ++i) {
      api::LedgerDb db;
      db.db = (i == 0 ? pg : lite).db();
      api::LedgerCheckOptions o;
      o.budgets = kGov + "budgets.yaml";
      o.as_of = kAsOf;
      o.dry_run = true;
      o.html_limit = 3;
      auto r = api::ledger_check(db, o, f);
      ASSERT_TRUE(r) << r.error().what();
      text[i] = r->text;
    }
    EXPECT_EQ(text[0], text[1]) << static_cast<int>(f);
    EXPECT_NE(
        text[0].find(f == report::Format::kHtml ? "the largest 3 of 12 findings" : "\"path\": ["),
        std::string::npos);
  }
}

}  // namespace
}  // namespace aicost
