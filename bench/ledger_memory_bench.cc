// Memory of reads on a ledger of many resources: `aicost ledger report --by resource` (top 10 in
// every output mode, and the whole report as CSV and JSON) and `aicost ledger check`, each run as
// a fresh `aicost` process, as a user runs it. Counters: the process's peak resident memory
// (`getrusage` of the child: ru_maxrss), its wall time (the benchmark's time) and CPU time, and
// the bytes it wrote. Target: under 500 MB on 10M charges over 2M resources (docs/LEDGER.md
// "Speed").
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ledger_fixtures.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using aicost::bench::kWork;

const std::string kAicost = std::string(AICOST_BINARY_DIR) + "/apps/aicost/aicost";

struct Run {
  int status = -1;
  double seconds = 0;
  double peak_mb = 0;      // ru_maxrss of the child
  double cpu_seconds = 0;  // its user and system time
  std::uintmax_t bytes = 0;
};

// Runs `args` (after the program name) with stdout to a file in kWork, and waits for it.
Run run_aicost(const std::vector<std::string>& args) {
  Run r;
  const fs::path out = kWork / ("memory-bench-" + std::to_string(::getpid()) + ".out");
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<std::string> all{kAicost};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, kAicost.c_str(), &files, nullptr, argv.data(), environ) == 0) {
    struct rusage usage {};
    int status = 0;
    if (::wait4(pid, &status, 0, &usage) == pid) {
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      r.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
      r.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                      static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    }
  }
  posix_spawn_file_actions_destroy(&files);
  std::error_code ec;
  r.bytes = fs::file_size(out, ec);
  fs::remove(out, ec);
  return r;
}

// The governance benchmark's budgets (bench/governance_bench.cc): the lab's month and one per team.
fs::path budgets_file() {
  const fs::path path = kWork / "memory-bench-budgets.yaml";
  std::ofstream f(path);
  f << "budgets:\n  - name: org\n    amount: 5000000 USD\n";
  for (const char* team : {"search", "ads", "llm-train", "llm-serve", "vision", "speech", "infra",
                           "data", "research", "safety", "growth", "platform"})
    f << "  - name: " << team
      << "\n    parent: org\n    amount: 300000 USD\n    scope: {tag:team: " << team << "}\n";
  return path;
}

// One command over the ledger of state.range(0) charges and state.range(1) resources; `args`
// come after `--db LEDGER`.
void BM_LedgerReadMemory(benchmark::State& state, std::vector<std::string> args) {
  const auto db = aicost::bench::wide_ledger_with(static_cast<std::size_t>(state.range(0)),
                                                  static_cast<std::size_t>(state.range(1)));
  if (db.empty() || !fs::exists(kAicost)) {
    state.SkipWithError(db.empty() ? "could not build the ledger" : "build apps/aicost first");
    return;
  }
  for (auto& a : args)
    if (a == "{budgets}") a = budgets_file().string();
  args.insert(args.begin() + 2, {"--db", db.string()});
  Run r;
  for (auto _ : state) {
    r = run_aicost(args);
    // `check` exits 3 when a budget gates: an answer, not a failure.
    if (r.status != 0 && r.status != 3) {
      state.SkipWithError(("aicost exited " + std::to_string(r.status)).c_str());
      return;
    }
    state.SetIterationTime(r.seconds);
  }
  state.counters["peak_rss_MB"] = r.peak_mb;
  state.counters["cpu_s"] = r.cpu_seconds;
  state.counters["output_MB"] = static_cast<double>(r.bytes) / 1e6;
  state.counters["ledger_rows"] = static_cast<double>(state.range(0));
  state.counters["resources"] = static_cast<double>(state.range(1));
}

void register_cases() {
  const std::vector<std::pair<const char*, std::vector<std::string>>> cases = {
      {"report_top10_table", {"ledger", "report", "--by", "resource", "--top", "10"}},
      {"report_top10_json", {"ledger", "report", "--by", "resource", "--top", "10", "-o", "json"}},
      {"report_top10_csv", {"ledger", "report", "--by", "resource", "--top", "10", "-o", "csv"}},
      {"report_top10_markdown",
       {"ledger", "report", "--by", "resource", "--top", "10", "-o", "markdown"}},
      {"report_csv", {"ledger", "report", "--by", "resource", "-o", "csv"}},
      {"report_json", {"ledger", "report", "--by", "resource", "-o", "json"}},
      {"report_table", {"ledger", "report", "--by", "resource"}},
      {"check_json",
       {"ledger", "check", "--budgets", "{budgets}", "--as-of", "2024-09-28", "--dry-run", "-o",
        "json"}},
  };
  for (const auto& [name, args] : cases)
    benchmark::RegisterBenchmark((std::string("BM_LedgerReadMemory/") + name).c_str(),
                                 BM_LedgerReadMemory, args)
        ->Args({10'000'000, 2'000'000})
        ->Args({2'000'000, 1'800'000})
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kSecond);
}

const int kRegistered = (register_cases(), 0);

}  // namespace
