// The ledger at scale (issue 18, item 6): `aicost_ledger_scale DB ROWS PARTS` loads ROWS generated
// charges into a new SQLite or PostgreSQL ledger DB in PARTS ingests (each one source, as a
// provider's files arrive), then times the report by team tag and day and a governance check on
// it (13 budgets as governance_bench.cc has them, ten times larger: an org month of 50M USD and
// 3M USD per team tag). It writes through the store's bulk path (Store::add_charges), as `aicost
// ledger ingest` does after its reader: no CSV is written, so a 100M-row ledger needs no 70 GB of
// CSV. Times are CPU (the process's, over the store's calls
// only: generating the rows is not counted) and wall; run it alone on a core (`taskset -c 0`).
// The charges are bench::generate_charges' (the FOCUS sample's rows, 50 per resource, a random
// hour of 2024-06..09, 70 % of the resources with one of 12 team tags); part p uses seed 7 + p
// and resources numbered on from the last part's. With --hourly they are
// bench::generate_hourly_charges' instead (each resource billed every hour of 3 to 21 days, as
// cloud exports bill a running instance; part p's resources numbered from p x ROWS / PARTS).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "aicost/governance/check.h"
#include "aicost/ledger/report.h"
#include "aicost/store/open.h"
#include "ledger_fixtures.h"

namespace {

using namespace aicost;

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double load_average() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

// CPU and wall seconds spent inside the store's calls.
struct Span {
  double cpu = 0, wall = 0;
  template <typename F>
  auto time(F&& f) {
    const double c0 = cpu_now(), w0 = wall_now();
    auto r = f();
    cpu += cpu_now() - c0;
    wall += wall_now() - w0;
    return r;
  }
};

// The source identity of part p: a made-up SHA-256 (64 hex digits), unique per part.
std::string mark(std::size_t p) {
  char buf[65];
  std::snprintf(buf, sizeof buf, "%064zx", p + 0x5ca1e);
  return buf;
}

const char* const kTeams[] = {"search", "ads",  "llm-train", "llm-serve", "vision", "speech",
                              "infra",  "data", "research",  "safety",    "growth", "platform"};

int run_queries(ledger::Store& store, int repeats) {
  ledger::ReportRequest req;
  req.by = {{ledger::Dimension::kTag, "team"}};
  req.granularity = ledger::Granularity::kDay;
  for (int i = 0; i < repeats; ++i) {
    Span s;
    auto r = s.time([&] { return ledger::run_report(store, req); });
    if (!r) {
      std::fprintf(stderr, "report: %s\n", r.error().what().c_str());
      return 1;
    }
    std::printf("report by tag:team by day: %zu lines, %.3f s CPU, %.3f s wall (load %.2f)\n",
                r->lines.size(), s.cpu, s.wall, load_average());
  }
  std::vector<governance::Budget> budgets(1);
  budgets[0].name = "org";
  budgets[0].amount = core::WideNanos{50'000'000} * core::kNanosPerUnit;
  for (const char* team : kTeams) {
    governance::Budget b;
    b.name = team;
    b.parent = "org";
    b.amount = core::WideNanos{3'000'000} * core::kNanosPerUnit;
    ledger::Filter f;  // field by field: GCC 12 misreads a braced GroupKey as uninitialised
    f.key.dim = ledger::Dimension::kTag;
    f.key.tag_key = "team";
    f.value = team;
    b.scope.push_back(std::move(f));
    budgets.push_back(b);
  }
  auto resolved = governance::resolve_hierarchy(budgets);
  if (!resolved) {
    std::fprintf(stderr, "budgets: %s\n", resolved.error().what().c_str());
    return 1;
  }
  governance::CheckOptions o;
  o.as_of = ledger::days_from_civil(2024, 9, 28);
  for (int i = 0; i < repeats; ++i) {
    Span s;
    auto r = s.time([&] { return governance::run_check(store, *resolved, o, {}); });
    if (!r) {
      std::fprintf(stderr, "check: %s\n", r.error().what().c_str());
      return 1;
    }
    std::printf(
        "check (13 budgets): %zu anomalies, %zu waste findings, %.3f s CPU, %.3f s wall (load "
        "%.2f)\n",
        r->anomalies.size(), r->waste.size(), s.cpu, s.wall, load_average());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DB ROWS PARTS [--query-only] [--hourly]\n", argv[0]);
    return 2;
  }
  const std::string db = argv[1];
  const std::size_t rows = std::strtoull(argv[2], nullptr, 10),
                    parts = std::strtoull(argv[3], nullptr, 10);
  bool query_only = false, hourly = false;
  for (int i = 4; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag != "--query-only" && flag != "--hourly") {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
    (flag == "--hourly" ? hourly : query_only) = true;
  }
  if (parts == 0 || rows % parts != 0 || (!hourly && rows / parts % 50 != 0)) {
    std::fprintf(stderr, "ROWS must be PARTS x a multiple of 50 (with --hourly: of PARTS)\n");
    return 2;
  }
  if (!query_only) {
    auto store = store::open_store(db, {.mode = store::OpenMode::kCreate});
    if (!store) {
      std::fprintf(stderr, "%s\n", store.error().what().c_str());
      return 1;
    }
    const std::size_t per = rows / parts;
    Span all;
    for (std::size_t p = 0; p < parts; ++p) {
      Span s;
      const std::string name = "part-" + std::to_string(p) + ".generated";
      auto begun = s.time([&] {
        return (*store)->begin_source({name, mark(p), 0, "generated"}, {});
      });
      if (!begun || *begun) {
        std::fprintf(stderr, "%s: not begun (%s)\n", name.c_str(),
                     begun ? "already loaded" : begun.error().what().c_str());
        return 1;
      }
      core::Status added;
      const auto add = [&](const std::vector<ledger::Charge>& batch) {
        added = s.time([&] { return (*store)->add_charges(batch); });
        return static_cast<bool>(added);
      };
      const std::size_t first = p * per / 50;
      const bool ok = hourly
                          ? bench::generate_hourly_charges(per, p * per, 7 + p, add)
                          : bench::generate_charges(
                                per, [first](std::size_t n) { return first + n / 50; }, 7 + p, add);
      if (!ok) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(),
                     added ? "the sample cannot be read" : added.error().what().c_str());
        return 1;
      }
      auto committed = s.time([&] { return (*store)->commit_source("generated", 0); });
      if (!committed) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), committed.error().what().c_str());
        return 1;
      }
      all.cpu += s.cpu;
      all.wall += s.wall;
      std::printf(
          "part %zu: %zu rows, %.2f s CPU (%.0f rows/s), %.2f s wall (%.0f rows/s), load %.2f; "
          "total %zu rows, %.0f s CPU\n",
          p, per, s.cpu, per / s.cpu, s.wall, per / s.wall, load_average(), (p + 1) * per, all.cpu);
      std::fflush(stdout);
    }
    std::printf("ingest: %zu rows, %.1f s CPU (%.0f rows/s), %.1f s wall (%.0f rows/s)\n", rows,
                all.cpu, rows / all.cpu, all.wall, rows / all.wall);
  }
  auto store = store::open_store(db);
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().what().c_str());
    return 1;
  }
  return run_queries(**store, 2);
}
