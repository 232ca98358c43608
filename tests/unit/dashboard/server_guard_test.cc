// `aicost serve` (dashboard/server.h) on what it refuses and what it keeps: a bad query or plan
// gets the CLI's message, a body over the limit and a request without the token are refused, the
// ledger is left as it was and a read-only store refuses writes; listen addresses and tokens.
// The server is stopped and the files removed when a test fails too (RAII).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "aicost/api/api.h"
#include "aicost/billing/ingest.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/dashboard/server.h"
#include "aicost/report/error_report.h"
#include "aicost/report/html.h"
#include "aicost/store/open.h"
#include "dashboard_fixture.h"
#include "temp_dir.h"

namespace aicost {
namespace {

TEST(Dashboard, BadQueryIsAnErrorNamingTheOption) {
  Dashboard d;
  auto r = d.client().Get("/api/report?granularity=fortnight");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  const auto j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j["error"]["context"], "--granularity");
}

TEST(Dashboard, BadPlanGetsTheCliMessage) {
  Dashboard d;
  auto c = d.client();
  // The CLI's JSON error for the same file, run from its folder so that it names it the same.
  const std::string want =
      cli(d.dir(), "-o json estimate typo.yaml", nullptr, true, kSource + "/examples");
  ASSERT_NE(want.find("\"line\""), std::string::npos) << want;
  auto r = c.Post("/api/estimate?name=typo.yaml", slurp(kSource + "/examples/typo.yaml"),
                  "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, want);
  // The what-if page shows it as the CLI prints it: "error: typo.yaml:LINE:COL: ...".
  const auto j = nlohmann::json::parse(want);
  const std::string where = "typo.yaml:" + std::to_string(j["error"]["line"].get<int>()) + ":" +
                            std::to_string(j["error"]["column"].get<int>());
  r = c.Post("/whatif", httplib::Params{{"name", "typo.yaml"},
                                        {"plan", slurp(kSource + "/examples/typo.yaml")}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("id=\"plan-error\">error: " + where), std::string::npos) << where;
}

TEST(Dashboard, PostedPlanNamesNoFile) {
  Dashboard d;
  const std::string plan = "name: x\nmodel:\n  hf_config: /etc/passwd\n";
  auto r = d.client().Post("/api/estimate?name=x.yaml", plan, "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  const auto j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j["error"]["file"], "x.yaml");
  EXPECT_EQ(j["error"]["line"], 3);
  EXPECT_EQ(j["error"]["column"], 3);
  EXPECT_NE(j["error"]["message"].get<std::string>().find("cannot name a file on the server"),
            std::string::npos);
}

TEST(Dashboard, WhatIfRunsEstimateAndOptimize) {
  Dashboard d;
  const std::string plan = slurp(kSource + "/examples/gpt3-175b-a100.yaml");
  auto r = d.client().Post("/whatif", httplib::Params{{"name", "mine.yaml"}, {"plan", plan}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body.substr(r->body.size() > 4000 ? r->body.size() - 4000 : 0);
  // The estimate's charts (step time by cause, cost by category) and the optimiser's savings.
  for (const char* title : {"time per step (s)", "cost (USD)", "saving (USD)"})
    EXPECT_NE(r->body.find(title), std::string::npos) << title;
  EXPECT_EQ(r->body.find("plan-error"), std::string::npos);
}

TEST(Dashboard, BodyLargerThanTheLimitIsRefused) {
  Dashboard d("", 1024);
  auto r = d.client().Post("/api/estimate", std::string(4096, '#'), "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(r->body.find("larger than this server takes"), std::string::npos) << r->body;
}

TEST(Dashboard, TokenIsAskedOfEveryRequest) {
  Dashboard d("s3cret-token");
  auto c = d.client();
  for (const char* path : {"/", "/api/check", "/metrics", "/whatif", "/assets/vega-6.4.0.min.js"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << path;
  }
  EXPECT_EQ(c.Post("/api/estimate", "name: x\n", "application/yaml")->status, 401);
  EXPECT_EQ(c.Get("/metrics", {{"Authorization", "Bearer s3cret-tokex"}})->status, 401);
  EXPECT_EQ(c.Get("/metrics", {{"Authorization", "Bearer s3cret-token"}})->status, 200);
  auto r = c.Get("/budgets?token=s3cret-token");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Set-Cookie").rfind("aicost_token=s3cret-token;", 0), 0u);
  EXPECT_EQ(c.Get("/waste", {{"Cookie", "aicost_token=s3cret-token"}})->status, 200);
  EXPECT_EQ(c.Get("/assets/vega-6.4.0.min.js", {{"Cookie", "aicost_token=s3cret-token"}})->status,
            200);
}

TEST(Dashboard, OffLoopbackWithoutTokenIsRefused) {
  dashboard::ServeOptions o;
  o.host = "0.0.0.0";
  o.port = 0;
  auto s = dashboard::Server::bind(std::move(o));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(s.error().message.find("give a token"), std::string::npos);
}

TEST(Dashboard, LedgerIsLeftAsItWas) {
  std::string before, db;
  {
    Dashboard d;
    db = d.db();
    before = slurp(db);
    auto c = d.client();
    for (const char* path : {"/", "/budgets", "/anomalies", "/waste", "/plans", "/api/check",
                             "/metrics", "/api/report"})
      EXPECT_EQ(c.Get(path)->status, 200) << path;
    EXPECT_EQ(slurp(db), before);
    // The check over HTTP records no alert: the CLI's dry run still finds them new.
    const std::string check =
        cli(d.dir(), "ledger check --dry-run -o json --db " + d.db() + " --budgets " + kGov +
                         "budgets.yaml --as-of " + kAsOf);
    EXPECT_EQ(check, c.Get("/api/check")->body);
    EXPECT_NE(check.find("\"new\": true"), std::string::npos);
  }
}

TEST(Dashboard, ReadOnlyStoreRefusesWrites) {
  testing::TempDir dir;
  const std::string db = dir.file("l.db");
  store::StoreOptions so;
  so.mode = store::OpenMode::kCreate;
  ASSERT_TRUE(store::open_store(db, so));
  so.mode = store::OpenMode::kReadOnly;
  auto ro = store::open_store(db, so);
  ASSERT_TRUE(ro) << ro.error().what();
  const std::vector<ledger::SentAlert> sent = {{"k", "2025-01-01T00:00:00Z", "m"}};
  EXPECT_FALSE((*ro)->record_sent(sent));
  so.mode = store::OpenMode::kReadOnly;
  EXPECT_FALSE(store::open_store(dir.file("missing.db"), so));
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST(DashboardListen, ParsesAddresses) {
  std::string host;
  int port = 0;
  ASSERT_TRUE(dashboard::parse_listen("127.0.0.1:8080", host, port));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 8080);
  ASSERT_TRUE(dashboard::parse_listen("[::1]:0", host, port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 0);
  ASSERT_TRUE(dashboard::parse_listen(":9000", host, port));
  EXPECT_EQ(host, "127.0.0.1");
  for (const char* bad : {"8080", "host:", "h:70000", "h:8x"}) {
    auto s = dashboard::parse_listen(bad, host, port);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().context, "--listen");
  }
  EXPECT_TRUE(dashboard::is_loopback("127.0.0.1"));
  EXPECT_TRUE(dashboard::is_loopback("::1"));
  EXPECT_FALSE(dashboard::is_loopback("0.0.0.0"));
  EXPECT_FALSE(dashboard::is_loopback("192.168.1.2"));
}

TEST(DashboardToken, ComparesWholeTokens) {
  EXPECT_TRUE(dashboard::same_token("abc", "abc"));
  EXPECT_FALSE(dashboard::same_token("abc", "abd"));
  EXPECT_FALSE(dashboard::same_token("abc", "abcd"));
  EXPECT_FALSE(dashboard::same_token("", ""));  // an empty token never lets anyone in
  EXPECT_FALSE(dashboard::same_token(std::string_view("abc\0", 4), "abc"));
}

}  // namespace
}  // namespace aicost
