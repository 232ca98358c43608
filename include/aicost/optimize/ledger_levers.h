// `aicost optimize --db LEDGER`: levers from what was actually spent (docs/OPTIMIZE.md "Ledger").
// The same LeverResult as the plan optimiser, category "ledger", each about one subject (an
// instance family in a region, a host, a finding's subject): `commitment` sizes reservations /
// savings plans from the usage history, `idle-schedule` stops hosts whose telemetry idles on a
// weekly pattern, `waste-<kind>` is a finding of `aicost ledger check` (governance/waste_scan.h),
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
  double idle_share = 0.7;   // an hour of the week is stopped when idle in at least this share of the weeks seen
  int min_weeks = 2;         // an hour of the week seen fewer times is never stopped
  int min_stop_hours = 4;    // shorter stops are not worth a schedule
};

struct IdleSchedule {
  std::vector<StopWindow> stops;  // by start
  int stopped_hours_per_week = 0;
  // Hours in the series inside a stop with activity (work the schedule would have stopped).
  std::vector<ledger::UnixSeconds> active_in_stop;
  int observed_hours = 0;
};

// The weekly schedule that stops `hours` of one host (any order, one entry per hour).
IdleSchedule idle_schedule(std::span<const HostHour> hours, const IdleScheduleOptions& options = {});

// "Mon-Thu 20:00 for 12 h, Fri 20:00 for 60 h (UTC)": consecutive days with the same stop grouped.
std::string schedule_text(const std::vector<StopWindow>& stops);

// ---- From a ledger -----------------------------------------------------------------------------

struct LedgerOptions {
  ledger::Day as_of = 0;          // spend and telemetry before this day
  int window_days = 60;           // commitment: the usage history sized from
  int idle_window_days = 28;      // idle-schedule: the telemetry read (whole weeks)
  double usage_drop = 0.30;       // risk: does the commitment still pay at this much less usage?
  IdleScheduleOptions idle;
  bool waste_findings = true;     // `ledger check`'s waste findings as levers (waste-<kind>)
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
core::Result<LedgerOptimizeResult> optimize_ledger(ledger::Store& store, const catalog::Catalog& catalog,
                                                   const LedgerOptions& options);

}  // namespace aicost::optimize
