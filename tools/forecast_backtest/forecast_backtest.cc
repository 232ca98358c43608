// The month-end forecast's back-test (docs/GOVERNANCE.md, "Forecasts"): rolling origin over
// seeded synthetic spend with planted spikes, level shifts, growth and weekly patterns, and over
// the example ledger (examples/governance), the plain fit against the robust one. Prints Markdown.
//
//   build/tools/forecast_backtest/aicost_forecast_backtest [SOURCE_DIR]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "aicost/billing/ingest.h"
#include "aicost/governance/forecast_backtest.h"
#include "aicost/store/open.h"

namespace {

namespace fs = std::filesystem;
using namespace aicost;
using governance::BacktestPoint;
using governance::ForecastOptions;

constexpr int kSeeds = 5, kDays = 730;
const ledger::Day kFirst = ledger::days_from_civil(2024, 1, 1);

ForecastOptions plain() {
  ForecastOptions o;
  o.robust = false;
  return o;
}

ForecastOptions robust(int shift_days = ForecastOptions{}.shift_days) {
  ForecastOptions o;
  o.shift_days = shift_days;
  return o;
}

std::string pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", 100 * x);
  return b;
}

// Points of every seed of `pattern`, by origin kind.
std::map<governance::OriginKind, std::vector<BacktestPoint>> run(
    const governance::SyntheticSpend& spec, const ForecastOptions& o) {
  std::map<governance::OriginKind, std::vector<BacktestPoint>> out;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const auto s =
        governance::synthetic_spend(spec, kFirst, kDays, static_cast<std::uint64_t>(seed));
    for (const BacktestPoint& p : governance::backtest_month_end(s.series, o))
      out[governance::classify_origin(s.events, p.origin, p.period_end)].push_back(p);
  }
  return out;
}

void row(const std::string& name, const std::vector<BacktestPoint>& old_points,
         const std::vector<BacktestPoint>& new_points) {
  std::printf("| %s | %zu | %s | %s | %s | %s |\n", name.c_str(), new_points.size(),
              pct(governance::abs_error_quantile(old_points, 0.5)).c_str(),
              pct(governance::abs_error_quantile(old_points, 0.9)).c_str(),
              pct(governance::abs_error_quantile(new_points, 0.5)).c_str(),
              pct(governance::abs_error_quantile(new_points, 0.9)).c_str());
}

void synthetic() {
  std::printf("## Synthetic spend: %d seeds x %d days from 2024-01-01, 5 %% daily noise\n\n",
              kSeeds, kDays);
  std::printf(
      "| pattern (origins) | origins | plain median | plain p90 | robust median | robust p90 |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  std::map<governance::OriginKind, std::vector<BacktestPoint>> other_old, other_new;
  for (const auto& p : governance::backtest_patterns()) {
    auto old_points = run(p.spec, plain());
    auto new_points = run(p.spec, robust());
    row(p.name + " (holds)", old_points[governance::OriginKind::kHolds],
        new_points[governance::OriginKind::kHolds]);
    for (auto kind : {governance::OriginKind::kNewShift, governance::OriginKind::kAhead}) {
      other_old[kind].insert(other_old[kind].end(), old_points[kind].begin(),
                             old_points[kind].end());
      other_new[kind].insert(other_new[kind].end(), new_points[kind].begin(),
                             new_points[kind].end());
    }
  }
  for (auto kind : {governance::OriginKind::kNewShift, governance::OriginKind::kAhead})
    row("all (" + governance::origin_kind_name(kind) + ")", other_old[kind], other_new[kind]);

  std::printf(
      "\n## shift_days: robust p90 |error| where the pattern holds, after a new shift, "
      "and inside a spike\n\n");
  std::printf(
      "| shift_days | spikes | shifts | mixed | new shift (all) | inside a spike (all) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  for (int n : {1, 2, 3, 4, 5, 7, 10, 14}) {
    std::printf("| %d |", n);
    std::vector<BacktestPoint> fresh, inside;
    for (const auto& p : governance::backtest_patterns()) {
      if (p.name != "spikes" && p.name != "shifts" && p.name != "mixed") continue;
      std::vector<BacktestPoint> holds;
      for (int seed = 1; seed <= kSeeds; ++seed) {
        const auto s =
            governance::synthetic_spend(p.spec, kFirst, kDays, static_cast<std::uint64_t>(seed));
        for (const BacktestPoint& b : governance::backtest_month_end(s.series, robust(n))) {
          const auto kind = governance::classify_origin(s.events, b.origin, b.period_end);
          if (kind == governance::OriginKind::kHolds) holds.push_back(b);
          if (kind == governance::OriginKind::kNewShift) fresh.push_back(b);
          // Origins on the 2nd or 3rd day of a spike: what the fit makes of a spike not yet over.
          for (const auto& e : s.events)
            if (e.kind == governance::PlantedKind::kSpike && e.first_day < b.origin &&
                b.origin <= e.last_day)
              inside.push_back(b);
        }
      }
      std::printf(" %s |", pct(governance::abs_error_quantile(holds, 0.9)).c_str());
    }
    std::printf(" %s | %s |\n", pct(governance::abs_error_quantile(fresh, 0.9)).c_str(),
                pct(governance::abs_error_quantile(inside, 0.9)).c_str());
  }
}

// The example ledger's daily effective cost, all of it and by tag team.
int examples(const fs::path& source_dir) {
  const fs::path dir =
      fs::temp_directory_path() / ("aicost-backtest-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  store::StoreOptions so;
  so.mode = store::OpenMode::kCreate;
  auto st = store::open_store((dir / "l.db").string(), so);
  if (!st) {
    std::fprintf(stderr, "error: %s\n", st.error().message.c_str());
    return 1;
  }
  const fs::path csv = source_dir / "examples/governance/focus-ai-lab-2025-05-06.csv";
  if (auto r = billing::ingest_file(**st, csv.string(), {}); !r) {
    std::fprintf(stderr, "error: %s: %s\n", csv.c_str(), r.error().message.c_str());
    return 1;
  }
  ledger::AggregateQuery q;
  q.by_day = true;
  q.tags = {ledger::TagKey{"team", {}}};
  auto rows = (*st)->aggregate(q);
  if (!rows) {
    std::fprintf(stderr, "error: %s\n", rows.error().message.c_str());
    return 1;
  }
  std::map<std::string, governance::DailySeries> by_team;
  governance::DailySeries all;
  ledger::Day first = 0, last = 0;
  bool any = false;
  for (const auto& r : *rows) {
    const double amount =
        static_cast<double>(r.sums.effective) / static_cast<double>(core::kNanosPerUnit);
    by_team["team=" + (r.values[0].empty() ? std::string("(untagged)") : r.values[0])].push_back(
        {r.day, amount});
    all.push_back({r.day, amount});
    first = any ? std::min(first, r.day) : r.day;
    last = any ? std::max(last, r.day) : r.day;
    any = true;
  }
  if (!any) return 1;
  std::printf(
      "\n## Example ledger: examples/governance, %s .. %s, rolling origin over May and June "
      "1-27\n\n",
      ledger::day_text(first).c_str(), ledger::day_text(last).c_str());
  std::printf(
      "| series (origins) | origins | plain median | plain p90 | robust median | robust p90 |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  by_team["all"] = all;
  // What make_example.py plants (examples/governance/README.md): the dev box from 05-02 (no team
  // tag), the pre-training run from 06-16 (llm-train) and the SageMaker burst on 06-23..24
  // (research).
  using governance::PlantedEvent;
  using governance::PlantedKind;
  const ledger::Day devbox = ledger::days_from_civil(2025, 5, 2),
                    run_start = ledger::days_from_civil(2025, 6, 16),
                    burst = ledger::days_from_civil(2025, 6, 23);
  std::map<std::string, std::vector<PlantedEvent>> events = {
      {"team=(untagged)", {{PlantedKind::kShift, devbox, devbox}}},
      {"team=llm-train", {{PlantedKind::kShift, run_start, run_start}}},
      {"team=research", {{PlantedKind::kSpike, burst, burst + 1}}},
      {"all",
       {{PlantedKind::kShift, devbox, devbox},
        {PlantedKind::kShift, run_start, run_start},
        {PlantedKind::kSpike, burst, burst + 1}}}};
  for (const auto& [name, series] : by_team) {
    const auto dense = governance::dense(series, first, last);
    const auto old_points = governance::backtest_month_end(dense, plain(), 14, true);
    const auto new_points = governance::backtest_month_end(dense, robust(), 14, true);
    std::vector<BacktestPoint> old_holds, new_holds;
    for (std::size_t i = 0; i < new_points.size(); ++i) {
      if (governance::classify_origin(events[name], new_points[i].origin,
                                      new_points[i].period_end) != governance::OriginKind::kHolds)
        continue;
      old_holds.push_back(old_points[i]);
      new_holds.push_back(new_points[i]);
    }
    row(name + " (all)", old_points, new_points);
    if (new_holds.size() != new_points.size()) row(name + " (holds)", old_holds, new_holds);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  synthetic();
  return examples(argc > 1 ? fs::path(argv[1]) : fs::path(AICOST_SOURCE_DIR));
}
