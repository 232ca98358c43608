// `aicost serve` (dashboard/server.h): a real server on a free loopback port against the example
// governance ledger; every route's status, the /api JSON and /metrics against the bytes the built
// CLI prints for the same question, the token, the body limit, a bad plan's file:line:col, and the
// ledger left as it was. The server is stopped and the files removed when a test fails too (RAII).
// What the server refuses or keeps (bad input, the token, the ledger): server_guard_test.cc.
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

TEST(Dashboard, EveryPageLoadsWithItsCharts) {
  Dashboard d;
  auto c = d.client();
  for (const char* path : {"/", "/?by=tag:team", "/budgets", "/anomalies", "/waste", "/plans",
                           "/whatif", "/whatif?plan=gpt3.yaml"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path << "\n" << r->body.substr(0, 2000);
    EXPECT_NE(r->body.find("id=\"aicost-specs\""), std::string::npos) << path;
    // A page loads the chart scripts from this server alone, each of them there.
    for (auto at = r->body.find("<script src=\""); at != std::string::npos;
         at = r->body.find("<script src=\"", at + 1)) {
      const auto start = at + 13;
      const std::string src = r->body.substr(start, r->body.find('"', start) - start);
      EXPECT_EQ(src.rfind("/assets/", 0), 0u) << path << " loads " << src;
      const auto script = c.Get(src);
      ASSERT_TRUE(script) << src;
      EXPECT_EQ(script->status, 200) << src;
      EXPECT_GT(script->body.size(), 50'000u) << src;
    }
    EXPECT_NE(r->body.find("<script src=\"/assets/vega-lite-6.5.0.min.js\">"), std::string::npos)
        << path;
    EXPECT_NE(r->body.find("<nav>"), std::string::npos) << path;
  }
  // The overview draws spend by day and the budgets; the waste page its savings; the plans page
  // the run budget's categories; the what-if page starts from the plan of --plans.
  EXPECT_NE(c.Get("/")->body.find("Effective cost by service"), std::string::npos);
  EXPECT_NE(c.Get("/")->body.find("Budgets: spent, forecast"), std::string::npos);
  // The budget page adds each budget's spend by day (six budgets); the overview keeps the bars.
  const std::string burn = "spend by day against";
  std::size_t burns = 0;
  const std::string budgets = c.Get("/budgets")->body;
  for (auto at = budgets.find(burn); at != std::string::npos; at = budgets.find(burn, at + 1))
    ++burns;
  EXPECT_EQ(burns, 6u);
  EXPECT_EQ(c.Get("/")->body.find(burn), std::string::npos);
  EXPECT_NE(c.Get("/?by=tag:team")->body.find("Effective cost by tag:team"), std::string::npos);
  EXPECT_NE(c.Get("/waste")->body.find("Waste: saving a month if fixed"), std::string::npos);
  EXPECT_NE(c.Get("/anomalies")->body.find("Anomalies: actual against expected spend"),
            std::string::npos);
  EXPECT_NE(c.Get("/plans")->body.find("plan to date against actual"), std::string::npos);
  EXPECT_NE(c.Get("/whatif?plan=gpt3.yaml")->body.find("name: gpt3-175b"), std::string::npos);
  EXPECT_EQ(c.Get("/whatif?plan=../../etc/passwd")->status, 404);
  // The budget page's table ends with the check's gate and why; a part's page shows its part alone.
  EXPECT_NE(c.Get("/budgets")->body.find("gate: FAILED (a budget is at a gating level)"),
            std::string::npos);
  for (const char* part : {"/waste", "/anomalies", "/plans"}) {
    const std::string body = c.Get(part)->body;
    const std::string page = body.substr(body.find("<h2>Figures</h2>"));  // not the inline scripts
    EXPECT_EQ(page.find("gate: "), std::string::npos) << part;
    EXPECT_EQ(page.find("Budgets as of"), std::string::npos) << part;
  }
  EXPECT_EQ(c.Get("/nothing")->status, 404);
}

TEST(Dashboard, ApiJsonIsTheCliJson) {
  Dashboard d;
  auto c = d.client();
  int code = 0;
  const std::string check = cli(d.dir(),
                                "ledger check --dry-run -o json --db " + d.db() + " --budgets " +
                                    kGov + "budgets.yaml --as-of " + kAsOf,
                                &code);
  EXPECT_EQ(code, 3);  // the example's budgets are at a gate
  ASSERT_FALSE(check.empty());
  auto r = c.Get("/api/check");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, check);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");

  const std::string report = cli(d.dir(), "ledger report -o json --db " + d.db() +
                                              " --by tag:team,service --granularity week --top 5");
  r = c.Get("/api/report?by=tag:team,service&granularity=week&top=5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, report);
  ASSERT_FALSE(report.empty());

  const std::string metrics =
      cli(d.dir(), "ledger check --dry-run --prometheus - --db " + d.db() + " --budgets " + kGov +
                       "budgets.yaml --as-of " + kAsOf);
  r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, metrics);
  EXPECT_NE(metrics.find("# TYPE"), std::string::npos);

  const std::string plan = slurp(kSource + "/examples/gpt3-175b-a100.yaml");
  const std::string estimate = cli(d.dir(), "estimate examples/gpt3-175b-a100.yaml -o json");
  r = c.Post("/api/estimate?name=gpt3-175b-a100.yaml", plan, "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, estimate);
}

// A file ingested while the server runs shows in the next answer (the check is kept only while
// its inputs are unchanged), as the CLI's check then sees it.
TEST(Dashboard, IngestWhileServingShowsInTheNextAnswer) {
  Dashboard d;
  auto c = d.client();
  const std::string before = c.Get("/api/check")->body;
  EXPECT_EQ(c.Get("/api/check")->body, before);
  const std::string page_before = c.Get("/")->body,
                    report_before = c.Get("/api/report?by=service")->body;
  EXPECT_EQ(c.Get("/")->body, page_before);
  {
    auto store = store::open_store(d.db());
    ASSERT_TRUE(store) << store.error().what();
    auto r =
        billing::ingest_file(**store, kSource + "/examples/ledger/focus-ai-lab-2025-06.csv", {});
    ASSERT_TRUE(r) << r.error().what();
  }
  const std::string after = c.Get("/api/check")->body;
  EXPECT_NE(after, before);
  EXPECT_EQ(after, cli(d.dir(), "ledger check --dry-run -o json --db " + d.db() + " --budgets " +
                                    kGov + "budgets.yaml --as-of " + kAsOf));
  // The pages and the report too: every answer is kept for one state of the ledger only.
  EXPECT_NE(c.Get("/")->body, page_before);
  const std::string report = c.Get("/api/report?by=service")->body;
  EXPECT_NE(report, report_before);
  EXPECT_EQ(report, cli(d.dir(), "ledger report -o json --by service --db " + d.db()));
}

// Every answer goes as it was made, whatever encodings the client takes: cpp-httplib would
// otherwise compress each one anew (brotli at its slowest quality for a browser's "br").
TEST(Dashboard, AnswersAreSentAsMadeWhateverTheClientAccepts) {
  Dashboard d;
  auto c = d.client();
  c.set_decompress(false);
  for (const char* path :
       {"/", "/budgets", "/api/check", "/metrics", "/assets/vega-6.4.0.min.js"}) {
    const auto plain = c.Get(path, {{"Accept-Encoding", "identity"}});
    const auto br = c.Get(path, {{"Accept-Encoding", "gzip, deflate, br"}});
    ASSERT_TRUE(plain && br) << path;
    EXPECT_EQ(br->status, 200) << path;
    EXPECT_FALSE(br->has_header("Content-Encoding")) << path;
    EXPECT_EQ(br->body, plain->body) << path;
    EXPECT_EQ(br->get_header_value("Content-Length"), std::to_string(plain->body.size())) << path;
  }
  const auto post = c.Post("/api/estimate?name=gpt3.yaml", {{"Accept-Encoding", "br"}},
                           slurp(kSource + "/examples/gpt3-175b-a100.yaml"), "application/yaml");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 200);
  EXPECT_FALSE(post->has_header("Content-Encoding"));
}

// The chart scripts, by the names the pages give them (report::vega_scripts), for browsers to keep;
// no other name is a file.
TEST(Dashboard, ServesTheChartScriptsByTheirVersionedNames) {
  Dashboard d;
  auto c = d.client();
  for (const auto& script : report::vega_scripts()) {
    const auto r = c.Get("/assets/" + std::string(script.name));
    ASSERT_TRUE(r) << script.name;
    EXPECT_EQ(r->status, 200) << script.name;
    EXPECT_EQ(r->body, script.text) << script.name;
    EXPECT_EQ(r->get_header_value("Cache-Control"), "public, max-age=31536000, immutable");
    EXPECT_EQ(r->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  }
  for (const char* path :
       {"/assets/vega.min.js", "/assets/../CMakeLists.txt", "/assets/%2e%2e/x.js", "/assets/"}) {
    const auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
  }
}

// A burst of connections waits in the listening queue, not in the clients' SYN retries:
// cpp-httplib's library listens with a queue of 5, the server sets a longer one. Here nobody
// accepts (the server is bound but not run): 100 loopback connections all complete their
// handshake, where only about 6 did with the library's queue.
TEST(Dashboard, AHundredConnectionsWaitInTheListeningQueue) {
  testing::TempDir dir("aicost-dashboard");
  const std::string db = dir.file("gov.db");
  {
    auto store = store::open_store(db, {.mode = store::OpenMode::kCreate});
    ASSERT_TRUE(store) << store.error().what();
  }
  dashboard::ServeOptions o;
  o.db = db;
  o.port = 0;
  auto server = dashboard::Server::bind(std::move(o));
  ASSERT_TRUE(server) << server.error().what();
  std::vector<int> fds;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>((*server)->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 100; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(fd, 0);
    fds.push_back(fd);
    (void)::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);  // EINPROGRESS
  }
  // Writable once the handshake is done; the first SYN retry comes after 1 s, so the queue alone
  // lets a connection in within the 3 s waited here.
  int connected = 0;
  for (const int fd : fds) {
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    if (::poll(&p, 1, connected == 0 ? 3000 : 100) == 1 &&
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
      ++connected;
  }
  for (const int fd : fds) ::close(fd);
  EXPECT_EQ(connected, 100);
}

}  // namespace
}  // namespace aicost
