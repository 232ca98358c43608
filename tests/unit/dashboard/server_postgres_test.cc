// `aicost serve` over a PostgreSQL ledger (read-only sessions, read per request, no answer kept)
// answers what it answers over the same ledger in SQLite: every page and /api route, byte for
// byte. PostgreSQL is the server named by $AICOST_TEST_PG_URL (`make test` starts one); without it
// the test is skipped, unless $AICOST_TEST_PG_REQUIRED=1, where fresh_postgres_db fails it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

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
}

}  // namespace
}  // namespace aicost
