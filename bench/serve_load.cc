// `aicost serve` under load (issue 20: "200 concurrent requests from a loopback client, bounded in
// count and time, with no error and p99 < 200 ms"). The dashboard's server runs in this process on
// a free loopback port over a ledger made in a scratch folder (removed at the end); for each page
// and /api route, bursts of N requests are fired at once from N client threads (one connection
// each, released together), and each request's time from connect to the last byte is taken.
// The first burst of a route is "cold" (the first reads of the ledger behind it); later bursts
// are "warm". A last burst mixes every route. It prints p50/p99/max per burst and the machine's
// load average, and exits 1 when a request failed or a warm p99 missed the target.
//
//   aicost_serve_load                    the example governance ledger (examples/governance)
//   aicost_serve_load --rows 1000000     a generated ledger of that many charges
//   (ledger_bench.cc's,
//                                        2024-06..09, 12 team tags) with a budget per team
//   options: --concurrency 200 --bursts 3 --target-ms 200 --threads T (server's scan threads)
//            --routes /waste,/metrics (only these: a few routes of a big ledger)
//
// Run it in a Release build, alone if you can (`nice` says nothing about the other processes
// on a shared machine: the load average printed is the context of the figures).
#include <httplib.h>
#include <stdlib.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "aicost/api/api.h"
#include "aicost/billing/ingest.h"
#include "aicost/dashboard/server.h"
#include "aicost/store/open.h"
#include "ledger_fixtures.h"

namespace {

namespace fs = std::filesystem;
using namespace aicost;
using Clock = std::chrono::steady_clock;

const std::string kSource = AICOST_SOURCE_DIR;

double load_average() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

// A scratch folder removed with everything in it when the program ends (a failure included).
struct Scratch {
  fs::path path;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "aicost-serve-load-XXXXXX").string();
    if (::mkdtemp(pattern.data())) path = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

struct Ledger {
  std::string db, budgets, as_of, what;
};

// The example governance ledger of docs/GOVERNANCE.md and the dashboard's tests.
core::Result<Ledger> example_ledger(const Scratch& s) {
  const std::string gov = kSource + "/examples/governance/";
  Ledger l{(s.path / "gov.db").string(), gov + "budgets.yaml", "2025-06-28", "examples/governance"};
  store::StoreOptions so;
  so.mode = store::OpenMode::kCreate;
  auto store = store::open_store(l.db, so);
  if (!store) return store.error();
  for (const auto* f : {"focus-ai-lab-2025-05-06.csv", "dcgm-ai-lab-2025-06-26.prom"})
    if (auto r = billing::ingest_file(**store, gov + f, {}); !r) return r.error();
  return l;
}

// ledger_bench.cc's generated ledger of `rows` charges (kept under the build folder, as the other
// ledger benchmarks keep it), copied so the server reads a file of its own, and a budget file: the
// organisation's month and one budget per team tag, as governance_bench.cc has them.
core::Result<Ledger> generated_ledger(const Scratch& s, std::size_t rows) {
  const auto made = bench::ledger_with(rows);
  if (made.empty())
    return core::make_error(core::ErrorCode::kIo,
                            "could not generate the ledger (is " + bench::kSample + " there?)");
  Ledger l{(s.path / "ledger.db").string(), (s.path / "budgets.yaml").string(), "2024-09-28",
           std::to_string(rows) + " generated charges"};
  fs::copy_file(made, l.db);
  std::ofstream b(l.budgets);
  b << "budgets:\n  - name: org\n    amount: 5000000 USD\n    period: month\n";
  for (const char* team : {"search", "ads", "llm-train", "llm-serve", "vision", "speech", "infra",
                           "data", "research", "safety", "growth", "platform"})
    b << "  - name: " << team
      << "\n    parent: org\n    amount: 300000 USD\n    period: month\n    scope:\n"
      << "      tag:team: " << team << "\n";
  if (!b) return core::make_error(core::ErrorCode::kIo, "could not write " + l.budgets);
  return l;
}

struct Burst {
  std::vector<double> ms;  // per request that succeeded
  int errors = 0;
  std::size_t bytes = 0;
  double wall_ms = 0;
  std::string first_error;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least p of the requests at or below it.
  const auto rank =
      static_cast<std::size_t>(std::max(1.0, std::ceil(p * static_cast<double>(v.size()))));
  return v[std::min(rank, v.size()) - 1];
}

// `n` requests at once, request i asking for paths[i % paths.size()]; each waits at most 60 s.
Burst burst(int port, const std::vector<std::string>& paths, int n) {
  Burst out;
  std::vector<double> ms(n, -1);
  std::vector<std::string> errors(n);
  std::vector<std::size_t> bytes(n, 0);
  std::barrier start(n + 1);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", port);
      c.set_connection_timeout(60, 0);
      c.set_read_timeout(60, 0);
      const std::string& path = paths[i % paths.size()];
      start.arrive_and_wait();
      const auto t0 = Clock::now();
      auto r = c.Get(path);
      const auto t1 = Clock::now();
      if (!r)
        errors[i] = path + ": " + httplib::to_string(r.error());
      else if (r->status != 200)
        errors[i] = path + ": HTTP " + std::to_string(r->status);
      else {
        ms[i] = std::chrono::duration<double, std::milli>(t1 - t0).count();
        bytes[i] = r->body.size();
      }
    });
  }
  const auto t0 = Clock::now();
  start.arrive_and_wait();
  for (auto& t : threads) t.join();
  out.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  for (int i = 0; i < n; ++i) {
    if (ms[i] >= 0)
      out.ms.push_back(ms[i]);
    else if (out.errors++ == 0)
      out.first_error = errors[i];
    out.bytes += bytes[i];
  }
  return out;
}

struct Args {
  std::size_t rows = 0;
  int concurrency = 200, bursts = 3;
  double target_ms = 200;
  unsigned threads = 0;
  std::vector<std::string> routes;  // --routes a,b,c: only these (default: every route)
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (k == "--rows")
      a.rows = std::strtoull(v, nullptr, 10);
    else if (k == "--concurrency")
      a.concurrency = std::atoi(v);
    else if (k == "--bursts")
      a.bursts = std::atoi(v);
    else if (k == "--target-ms")
      a.target_ms = std::atof(v);
    else if (k == "--threads")
      a.threads = static_cast<unsigned>(std::atoi(v));
    else if (k == "--routes")
      for (std::string s = v; !s.empty();) {
        const auto comma = s.find(',');
        a.routes.push_back(s.substr(0, comma));
        s = comma == std::string::npos ? "" : s.substr(comma + 1);
      }
    else
      return false;
  }
  return a.concurrency > 0 && a.bursts > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: aicost_serve_load [--rows N] [--concurrency 200] [--bursts 3] "
                 "[--target-ms 200] [--threads T] [--routes /a,/b]\n");
    return 2;
  }
  Scratch scratch;
  if (scratch.path.empty()) return std::fprintf(stderr, "cannot make a scratch folder\n"), 1;
  auto ledger = a.rows ? generated_ledger(scratch, a.rows) : example_ledger(scratch);
  if (!ledger) return std::fprintf(stderr, "error: %s\n", ledger.error().what().c_str()), 1;

  dashboard::ServeOptions o;
  o.db = ledger->db;
  o.budgets = ledger->budgets;
  o.as_of = ledger->as_of;
  o.port = 0;
  o.threads = a.threads;
  auto cat = api::load_catalog({});
  if (!cat) return std::fprintf(stderr, "error: %s\n", cat.error().what().c_str()), 1;
  o.catalog = std::move(*cat);
  auto server = dashboard::Server::bind(std::move(o));
  if (!server) return std::fprintf(stderr, "error: %s\n", server.error().what().c_str()), 1;
  std::thread serving([&] { (*server)->run(); });
  const int port = (*server)->port();

  std::vector<std::string> routes = {"/",
                                     "/?by=tag:team",
                                     "/budgets",
                                     "/anomalies",
                                     "/waste",
                                     "/plans",
                                     "/whatif",
                                     "/api/report?by=service&granularity=day",
                                     "/api/check",
                                     "/metrics",
                                     "/assets/vega-6.4.0.min.js"};
  if (!a.routes.empty()) routes = a.routes;
  std::printf(
      "aicost serve under load: ledger %s; %d concurrent requests a burst, %d bursts a route; "
      "load average %.1f on %u CPUs at start\n",
      ledger->what.c_str(), a.concurrency, a.bursts, load_average(),
      std::thread::hardware_concurrency());
  std::printf("%-40s %-5s %5s %8s %8s %8s %9s %10s\n", "route", "burst", "ok", "p50 ms", "p99 ms",
              "max ms", "wall ms", "KB/answer");
  bool met = true;
  int failed = 0;
  const auto report = [&](const std::string& name, int b, const Burst& r) {
    const double p99 = percentile(r.ms, 0.99);
    std::printf(
        "%-40s %-5s %5zu %8.1f %8.1f %8.1f %9.1f %10.1f\n", name.c_str(), b == 0 ? "cold" : "warm",
        r.ms.size(), percentile(r.ms, 0.5), p99, percentile(r.ms, 1.0), r.wall_ms,
        r.ms.empty() ? 0.0
                     : static_cast<double>(r.bytes) / static_cast<double>(r.ms.size()) / 1024);
    if (r.errors) std::printf("  %d failed, the first: %s\n", r.errors, r.first_error.c_str());
    failed += r.errors;
    if (b > 0 && p99 >= a.target_ms) met = false;
  };
  for (const auto& route : routes)
    for (int b = 0; b < a.bursts; ++b) report(route, b, burst(port, {route}, a.concurrency));
  for (int b = 1; b <= a.bursts; ++b)
    report("every route at once", b, burst(port, routes, a.concurrency));
  std::printf("load average %.1f at the end; warm p99 < %.0f ms: %s; failed requests: %d\n",
              load_average(), a.target_ms, met ? "met" : "NOT met", failed);
  (*server)->stop();
  serving.join();
  return met && failed == 0 ? 0 : 1;
}
