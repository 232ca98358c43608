// `aicost ledger check` over a large ledger: every detector (budgets and forecasts, anomalies,
// waste, plan against actual) on the 10M-charge ledger of ledger_bench.cc plus 30 days of
// per-minute SM_ACTIVE for 1,024 GPUs (target < 5 s on SQLite). `aicost optimize --db` on the
// same ledger: commitments sized from the charges, idle schedules from the telemetry (issue 19:
// 10M charges < 5 s on one core). `aicost ledger changes` on the same ledger: a journal of one
// change per team measured over 14 days a side (issue 19: < 2 s).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "aicost/config/catalog_loader.h"
#include "aicost/governance/check.h"
#include "aicost/governance/journal.h"
#include "aicost/optimize/ledger_levers.h"
#include "aicost/store/open.h"
#include "ledger_fixtures.h"

namespace {

namespace fs = std::filesystem;
using namespace aicost;

constexpr int kHosts = 128, kGpusPerHost = 8, kDays = 30;
const ledger::Day kSep1 = ledger::days_from_civil(2024, 9, 1);

// The report ledger with a telemetry source added: one SM_ACTIVE sample per GPU and minute of
// September 2024. Hosts 0-99 busy (0.55-0.95), 100-119 idle at night (00-06 h), 120-127 idle.
fs::path governance_ledger(std::size_t rows) {
  const auto report = bench::ledger_with(rows);
  if (report.empty()) return {};
  const auto db = bench::kWork / ("governance-v4-" + std::to_string(rows) + ".db");
  if (fs::exists(db)) {
    auto s = store::open_store(db.string());
    if (s) {
      auto src = (*s)->sources();
      if (src && src->size() == 2) return db;
    }
    fs::remove(db);
  }
  fs::copy_file(report, db);
  auto store = store::open_store(db.string());
  if (!store || !(*store)->begin_source(
                    {db.string() + ".telemetry", std::string(64, '1'), 0, "generated"}, {}))
    return {};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  std::vector<ledger::GpuSample> batch;
  batch.reserve(8192);
  for (int host = 0; host < kHosts; ++host) {
    const std::string name = "gpu-host-" + std::to_string(host);
    for (int gpu = 0; gpu < kGpusPerHost; ++gpu) {
      for (int minute = 0; minute < kDays * 1440; ++minute) {
        const int hour = minute / 60 % 24;
        double v = host < 100                ? 0.75 + 2 * noise(rng)
                   : host < 120 && hour >= 6 ? 0.7 + noise(rng)
                                             : 0.01;
        ledger::GpuSample s;
        s.line = minute;
        s.time = static_cast<ledger::UnixSeconds>(kSep1) * 86400 + minute * 60;
        s.metric = ledger::GpuMetric::kSmActive;
        s.value = v;
        s.host = name;
        s.gpu = std::to_string(gpu);
        batch.push_back(std::move(s));
        if (batch.size() == 8192) {
          if (!(*store)->add_samples(batch)) return {};
          batch.clear();
        }
      }
    }
  }
  if (!(*store)->add_samples(batch) || !(*store)->commit_source("generated", 0)) return {};
  return db;
}

// The ledger's 12 team tags (bench::generate_charges).
const char* const kTeams[] = {"search", "ads",  "llm-train", "llm-serve", "vision", "speech",
                              "infra",  "data", "research",  "safety",    "growth", "platform"};

// The governance ledger opened, or nullptr (the benchmark then skips with an error).
std::unique_ptr<ledger::Store> open_governance(benchmark::State& state, std::size_t rows) {
  const auto db = governance_ledger(rows);
  auto store = db.empty() ? core::Result<std::unique_ptr<ledger::Store>>(nullptr)
                          : store::open_store(db.string());
  if (!store || !*store) {
    state.SkipWithError("could not build the ledger");
    return nullptr;
  }
  return std::move(*store);
}

void BM_GovernanceCheck(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto db = governance_ledger(rows);
  auto store = store::open_store(db.string());
  if (db.empty() || !store) {
    state.SkipWithError("could not build the ledger");
    return;
  }
  // The lab's month budget and one per team (the ledger's 12 team tags).
  std::vector<governance::Budget> budgets(1);
  budgets[0].name = "org";
  budgets[0].amount = core::WideNanos{5'000'000} * core::kNanosPerUnit;
  for (const char* team : kTeams) {
    governance::Budget b;
    b.name = team;
    b.parent = "org";
    b.amount = core::WideNanos{300'000} * core::kNanosPerUnit;
    b.scope.push_back({{ledger::Dimension::kTag, "team"}, team});
    budgets.push_back(b);
  }
  auto resolved = governance::resolve_hierarchy(budgets);
  if (!resolved) {
    state.SkipWithError(resolved.error().what().c_str());
    return;
  }
  governance::CheckOptions o;
  o.as_of = ledger::days_from_civil(2024, 9, 28);
  std::size_t anomalies = 0, waste = 0;
  for (auto _ : state) {
    auto r = governance::run_check(**store, *resolved, o, {});
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    anomalies = r->anomalies.size();
    waste = r->waste.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["ledger_rows"] = static_cast<double>(rows);
  state.counters["gpu_samples"] = static_cast<double>(kHosts) * kGpusPerHost * kDays * 1440;
  state.counters["budgets"] = static_cast<double>(resolved->size());
  state.counters["anomalies"] = static_cast<double>(anomalies);
  state.counters["waste_findings"] = static_cast<double>(waste);
}
BENCHMARK(BM_GovernanceCheck)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

// The ledger levers (optimize::optimize_ledger) on the same ledger, as of 2024-09-28: a 60-day
// usage window by family, region, resource and day over every charge, 28 days of hourly telemetry;
// the second argument 1 adds `ledger check`'s waste scan (its findings as levers).
void BM_OptimizeLedger(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto db = governance_ledger(rows);
  auto store = store::open_store(db.string());
  auto cat = config::load_builtin_catalog();
  if (db.empty() || !store || !cat) {
    state.SkipWithError("could not build the ledger or load the catalog");
    return;
  }
  optimize::LedgerOptions o;
  o.as_of = ledger::days_from_civil(2024, 9, 28);
  o.waste_findings = state.range(1) != 0;  // 0: commitments and idle schedules only
  std::size_t levers = 0;
  for (auto _ : state) {
    auto r = optimize::optimize_ledger(**store, *cat, o);
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    levers = r->levers.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["ledger_rows"] = static_cast<double>(rows);
  state.counters["levers"] = static_cast<double>(levers);
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(rows) * state.iterations(),
                                                    benchmark::Counter::kIsRate);
}
BENCHMARK(BM_OptimizeLedger)
    ->Args({10'000'000, 0})
    ->Args({10'000'000, 1})
    ->Unit(benchmark::kMillisecond);

// The change journal (governance::evaluate_changes, `aicost ledger changes`) on the same ledger:
// one change per team tag on 2024-09-14, each measured on 14 days a side as of 2024-09-28, with
// the telemetry's useful GPU-hours. The changes are recorded once, in the ledger the benchmark
// keeps.
void BM_LedgerChanges(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  auto store = open_governance(state, rows);
  if (!store) return;
  auto journal = store->changes();
  if (journal && journal->empty())
    for (const char* team : kTeams) {
      ledger::Change c;
      c.day = ledger::days_from_civil(2024, 9, 14);
      c.scope = {{{ledger::Dimension::kTag, "team"}, team}};
      c.lever = "pricing-reserved";
      c.guardrails = {{ledger::GuardrailKind::kMinGpuActivity, 0.4}};
      if (!store->add_change(c)) {
        state.SkipWithError("could not record the changes");
        return;
      }
    }
  governance::ChangeOptions o;
  o.as_of = ledger::days_from_civil(2024, 9, 28);
  std::size_t measured = 0;
  for (auto _ : state) {
    auto r = governance::evaluate_changes(*store, o);
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    measured = 0;
    for (const auto& c : *r) measured += c.effect ? 1 : 0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["ledger_rows"] = static_cast<double>(rows);
  state.counters["changes"] = static_cast<double>(std::size(kTeams));
  state.counters["measured"] = static_cast<double>(measured);
}
BENCHMARK(BM_LedgerChanges)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
