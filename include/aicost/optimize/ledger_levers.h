// `aicost optimize --db LEDGER`: levers from what was actually spent (docs/OPTIMIZE.md "Ledger").
// The same LeverResult as the plan optimiser, category "ledger", each about one subject (an
// instance family in a region, a host, a finding's subject): `commitment` sizes reservations /
// savings plans from the usage history, `idle-schedule` stops hosts whose telemetry idles on a
// weekly pattern, `rightsize` moves a host whose GPUs' activity and memory fit a smaller instance
// onto it, `waste-<kind>` is a finding of `aicost ledger check` (governance/waste_scan.h),
// each resource counted once.
//
// The sizing and the schedule are pure functions of typed series (below), tested on closed forms;
// optimize_ledger reads them from a ledger::Store. Savings are per month of 730 h, in the
// currency of the bill. Deterministic; thread-safe on different stores.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/ledger/store.h"
#include "aicost/optimize/optimize.h"

namespace aicost::optimize {

// ---- Commitment sizing -------------------------------------------------------------------------

// A committed level c (instances, or instance-hours per hour) held against a usage series u_t
// (instances running in each period). Money is in units of the on-demand price of one instance
// for one period, so that `ratio` (committed price / on-demand price) is the only price.
struct CommitmentFit {
  double level = 0;
  double cost = 0;            // mean per period: c × ratio + mean(max(u − c, 0))
  double on_demand_cost = 0;  // mean per period with no commitment: mean(u)
  double covered = 0;         // mean(min(u, c)): usage the commitment covers
  double utilisation = 0;     // covered / c (1 when c = 0)
  double coverage = 0;        // covered / mean(u) (0 when there is no usage)
};

// The figures of level c on `usage`.
CommitmentFit fit_commitment(std::span<const double> usage, double ratio, double level);

// The level minimising CommitmentFit::cost: the cost is piecewise linear in c with its breaks at
// the usage values, so the minimum is at 0 or one of them (ties: the lowest). It is the quantile
// where the share of periods with u >= c falls to `ratio` (each step up costs `ratio` and saves
// the share of periods that use it). An empty series gives level 0.
CommitmentFit best_commitment(std::span<const double> usage, double ratio);

// ---- Idle schedule -----------------------------------------------------------------------------

// A host's activity in one hour: the highest of its GPUs' mean SM_ACTIVE (else GR_ENGINE_ACTIVE,
// else GPU_UTIL), 0..1.
struct HostHour {
  ledger::UnixSeconds hour = 0;
  double activity = 0;
};

// A stop on the weekly clock: from `start` (hours after Monday 00:00 UTC, 0..167) for `hours`,
// wrapping past Sunday into Monday.
struct StopWindow {
  int start = 0, hours = 0;
  friend bool operator==(const StopWindow&, const StopWindow&) = default;
};

struct IdleScheduleOptions {
  double idle_below = 0.05;  // an hour is idle when the host's activity is below this
  double idle_share =
      0.7;  // an hour of the week is stopped when idle in at least this share of the weeks seen
  int min_weeks = 2;       // an hour of the week seen fewer times is never stopped
  int min_stop_hours = 4;  // shorter stops are not worth a schedule
};

struct IdleSchedule {
  std::vector<StopWindow> stops;  // by start
  int stopped_hours_per_week = 0;
  // Hours in the series inside a stop with activity (work the schedule would have stopped).
  std::vector<ledger::UnixSeconds> active_in_stop;
  int observed_hours = 0;
};

// The weekly schedule that stops `hours` of one host (any order, one entry per hour).
IdleSchedule idle_schedule(std::span<const HostHour> hours,
                           const IdleScheduleOptions& options = {});

// "Mon-Thu 20:00 for 12 h, Fri 20:00 for 60 h (UTC)": consecutive days with the same stop grouped.
std::string schedule_text(const std::vector<StopWindow>& stops);

// ---- Rightsize --------------------------------------------------------------------------------

// A host's GPU use over the telemetry window, from hourly means (a peak shorter than an hour is
// not in them: the buffers are there for it).
struct GpuUse {
  int gpus = 0;          // GPUs seen in the telemetry
  double peak_work = 0;  // the busiest hour's sum over the GPUs of their activity (SM_ACTIVE,
                         // else GR_ENGINE_ACTIVE, else GPU_UTIL): GPUs of the host kept fully busy
  core::Bytes peak_memory;      // the busiest hour's FB_USED summed over the GPUs
  core::Bytes peak_gpu_memory;  // the most one GPU held in an hour
};

struct RightsizeOptions {
  double capacity_buffer =
      0.10;  // spare GPU capacity kept above the peak (Guardrails::capacity_buffer)
  double memory_buffer = 0.10;  // memory kept free above the peak, as a share of the peak
};

// A smaller instance the use fits: `speed` is one of its GPUs against one of the current's, the
// lower of their BF16 dense peaks' and memory bandwidths' ratios (compute-bound work scales with
// the first, memory-bound with the second; the lower one is the one that holds for both); `load` is
// the peak on it, peak_work / (speed × gpus), at most 1 − capacity_buffer.
struct RightsizeFit {
  const catalog::Instance* instance = nullptr;
  const catalog::GpuSpec* gpu = nullptr;
  double speed = 1, load = 0;
  double price_ratio = 1;  // its on-demand price / the current's (the catalog's)
};

// The cheapest on-demand instance of `current`'s provider, cheaper than it, that carries `use`:
// peak_work / speed <= gpus × (1 − capacity_buffer), peak_memory × (1 + memory_buffer) <= gpus ×
// its GPU memory, peak_gpu_memory × (1 + memory_buffer) <= its GPU memory (one process's memory is
// not split). Same price: the fewer GPUs. nullopt when none fits, or `current` has no on-demand
// price or GPU in `cat`.
std::optional<RightsizeFit> rightsize(const GpuUse& use, const catalog::Catalog& cat,
                                      const catalog::Instance& current,
                                      const RightsizeOptions& options = {});

// ---- From a ledger -----------------------------------------------------------------------------

struct LedgerOptions {
  ledger::Day as_of = 0;      // spend and telemetry before this day
  int window_days = 60;       // commitment: the usage history sized from
  int idle_window_days = 28;  // idle-schedule and rightsize: the telemetry read (whole weeks)
  double usage_drop = 0.30;   // risk: does the commitment still pay at this much less usage?
  IdleScheduleOptions idle;
  double memory_buffer =
      0.10;  // rightsize: RightsizeOptions::memory_buffer (the capacity buffer is the guardrails')
  bool waste_findings = true;  // `ledger check`'s waste findings as levers (waste-<kind>)
  Guardrails guardrails;
};

struct LedgerBaseline {
  std::string currency;          // the currency with the most spend
  double monthly = 0;            // its effective cost over the window, per 730 h
  ledger::Day from = 0, to = 0;  // the window read [from, to)
};

struct LedgerOptimizeResult {
  LedgerBaseline baseline;
  std::vector<LeverResult> levers;  // ranked like the plan optimiser's
  Combined combined;                // total_usd, saving_usd, sum_of_savings, levers, risk
  Guardrails guardrails;
  std::vector<std::string> warnings;
};

// Every ledger lever on `store` as of options.as_of. Prices: the bill's on-demand rate of each
// family (EffectiveCost / hours of its PricingCategory "Standard" rows), else the catalog's, with a
// note; committed prices: the catalog's reserved-1y / on-demand ratio of the instance, with its
// source. Errors: the store's.
core::Result<LedgerOptimizeResult> optimize_ledger(ledger::Store& store,
                                                   const catalog::Catalog& catalog,
                                                   const LedgerOptions& options);

}  // namespace aicost::optimize
