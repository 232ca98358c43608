// The ledger optimiser's driver (docs/OPTIMIZE.md "Ledger"): the baseline, idle schedules from
// hourly telemetry priced by the bill, rightsizing (ledger_rightsize.cc), then the commitments
// (ledger_commitment.cc) and the waste findings (ledger_waste.cc), judged against the red lines,
// ranked and added up.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "aicost/core/text.h"
#include "aicost/governance/waste_scan.h"
#include "aicost/optimize/ledger_levers.h"
#include "ledger_levers_internal.h"

namespace aicost::optimize {

namespace detail {

void priced(LeverResult& r, double saving, const LedgerBaseline& b, const std::string& currency) {
  r.saving_usd = saving;
  if (currency == b.currency && b.monthly > 0) {
    r.saving_pct = saving / b.monthly;
    r.total_usd = b.monthly - saving;
  } else {
    r.saving_pct = 0;
  }
}

}  // namespace detail

namespace {

using namespace detail;
using ledger::Dimension;

// ---- Baseline ----------------------------------------------------------------------------------

core::Result<LedgerBaseline> baseline(ledger::Store& store, ledger::Day from, ledger::Day to) {
  ledger::AggregateQuery q;
  q.from = from;
  q.to = to;
  auto rows = store.aggregate(q);
  if (!rows) return rows.error();
  LedgerBaseline b;
  b.from = from;
  b.to = to;
  core::WideNanos best = -1;
  for (const auto& r : *rows) {
    if (r.sums.effective <= best) continue;
    best = r.sums.effective;
    b.currency = r.currency;
    const ledger::Day first = std::max(from, r.sums.first_day);
    b.monthly = units(r.sums.effective) * kHoursPerMonth / (24.0 * std::max(1, to - first));
  }
  return b;
}

// ---- Idle schedules ----------------------------------------------------------------------------

// Charges in hours by resource over the telemetry's window: each host's price per hour.
ledger::AggregateQuery host_price_query(ledger::Day from, ledger::Day to) {
  ledger::AggregateQuery q;
  q.dims = {Dimension::kResource, Dimension::kConsumedUnit, Dimension::kProvider, Dimension::kSku};
  q.from = from;
  q.to = to;
  return q;
}

void add_price(HostPrices& out, const ledger::AggregateRow& r) {
  if (r.values[0].empty() || !hour_unit(r.values[1])) return;
  auto& p = out[host_of(r.values[0])];
  p.cost += units(r.sums.effective);
  p.hours += r.sums.consumed_quantity;
  p.currency = r.currency;
  p.resource = r.values[0];
  p.provider = r.values[2];
  p.sku = r.values[3];
}

// Per host, per hour: the busiest GPU's activity (SM_ACTIVE, else GR_ENGINE_ACTIVE, else GPU_UTIL).
std::map<std::string, std::vector<HostHour>> host_hours(const std::vector<ledger::GpuHour>& rows) {
  std::map<std::string, std::map<ledger::UnixSeconds, double>> by_host;
  for (std::size_t i = 0; i < rows.size();) {
    // rows of one (host, gpu, hour), metrics in enum order
    std::size_t j = i;
    std::optional<double> sm, gr, util;
    while (j < rows.size() && rows[j].host == rows[i].host && rows[j].gpu == rows[i].gpu &&
           rows[j].hour == rows[i].hour) {
      if (rows[j].samples > 0) {
        if (rows[j].metric == ledger::GpuMetric::kSmActive) sm = rows[j].mean();
        if (rows[j].metric == ledger::GpuMetric::kGrEngineActive) gr = rows[j].mean();
        if (rows[j].metric == ledger::GpuMetric::kGpuUtil) util = rows[j].mean();
      }
      ++j;
    }
    const auto a = sm ? sm : gr ? gr : util;
    if (a) {
      auto [it, fresh] = by_host[rows[i].host].emplace(rows[i].hour, *a);
      if (!fresh) it->second = std::max(it->second, *a);
    }
    i = j;
  }
  std::map<std::string, std::vector<HostHour>> out;
  for (const auto& [host, hours] : by_host)
    for (const auto& [t, a] : hours) out[host].push_back({t, a});
  return out;
}

// The hosts whose telemetry idles on a weekly pattern, by host; a not-applicable lever without
// telemetry.
std::map<std::string, IdleSchedule> find_schedules(const std::vector<ledger::GpuHour>& rows,
                                                   const LedgerOptions& o,
                                                   std::vector<LeverResult>& out) {
  const auto hosts = host_hours(rows);
  std::map<std::string, IdleSchedule> schedules;
  if (hosts.empty()) {
    auto r = lever("idle-schedule", "");
    r.status = LeverStatus::kNotApplicable;
    r.why = "no GPU telemetry in the " + std::to_string(o.idle_window_days) + " days before " +
            ledger::day_text(o.as_of) + " (load a dcgm-exporter scrape)";
    out.push_back(std::move(r));
    return schedules;
  }
  for (const auto& [host, hours] : hosts) {
    auto s = idle_schedule(hours, o.idle);
    if (!s.stops.empty()) schedules.emplace(host, std::move(s));
  }
  return schedules;
}

// A lever per host with a schedule, priced from its resource's charges (`prices`, by host).
void idle_levers(const std::map<std::string, IdleSchedule>& schedules, const HostPrices& prices,
                 const LedgerOptions& o, const LedgerBaseline& b, std::vector<LeverResult>& out,
                 std::map<std::string, std::string>& stopped_hosts) {
  for (const auto& [host, s] : schedules) {
    auto r = lever("idle-schedule", host);
    const std::string text = schedule_text(s.stops);
    r.change = {{"schedule." + host, "stop " + text}};
    const auto p = prices.find(host);
    if (p == prices.end() || p->second.hours <= 0) {
      r.status = LeverStatus::kNotPriced;
      r.why = "host " + host + " idles " + std::to_string(s.stopped_hours_per_week) +
              " h a week, but no charge in hours names it (a resource id ending in " + host + ")";
      out.push_back(std::move(r));
      continue;
    }
    stopped_hosts[host] = p->second.resource;
    const double hourly = p->second.cost / p->second.hours;
    priced(r, s.stopped_hours_per_week * hourly * kHoursPerMonth / 168.0, b, p->second.currency);
    r.risk.level = s.active_in_stop.empty() ? RiskLevel::kLow : RiskLevel::kMedium;
    r.risk.kinds = {"availability"};
    if (s.active_in_stop.empty()) {
      r.risk.why = "no hour inside the stop had GPU activity in the " +
                   std::to_string(o.idle_window_days) + " days read";
    } else {
      r.risk.why = std::to_string(s.active_in_stop.size()) +
                   " hours inside the stop had GPU activity in the " +
                   std::to_string(o.idle_window_days) + " days read (first " +
                   hour_text(s.active_in_stop.front()) +
                   " UTC): a job running then would be stopped";
    }
    r.rollout.validation =
        "stop " + host + " on the schedule for one week, with a way to start it by hand";
    r.rollout.metric =
        "instance-hours billed for " + host + " and jobs queued or killed during the stop";
    r.rollout.stop_loss =
        "drop the schedule if a job is killed or waits more than an hour for the host";
    r.notes.push_back(
        core::sprintf("%d of 168 hours a week stopped, at %s per hour (%s: %s over %.0f h billed)",
                      s.stopped_hours_per_week, rate(hourly, p->second.currency).c_str(),
                      p->second.resource.c_str(), money(p->second.cost, p->second.currency).c_str(),
                      p->second.hours));
    r.notes.push_back(core::sprintf(
        "an hour of the week is stopped when the host's busiest GPU was below %.0f %% "
        "activity in at least %.0f %% of the %d weeks read",
        100 * o.idle.idle_below, 100 * o.idle.idle_share, o.idle_window_days / 7));
    out.push_back(std::move(r));
  }
}

}  // namespace

core::Result<LedgerOptimizeResult> optimize_ledger(ledger::Store& store,
                                                   const catalog::Catalog& catalog,
                                                   const LedgerOptions& o) {
  LedgerOptimizeResult res;
  res.guardrails = o.guardrails;
  auto b = baseline(store, o.as_of - o.window_days, o.as_of);
  if (!b) return b.error();
  res.baseline = *b;
  // The telemetry is read once, for the schedules, rightsize and the waste scan. The charges are
  // read once for the families' usage, the hosts' prices and `ledger check`'s waste scan (one scan
  // where the store can), then once more, filtered, for the resources an idle schedule stops or
  // rightsize moves.
  auto telemetry = store.gpu_hours(o.as_of - o.idle_window_days, o.as_of, true);
  if (!telemetry) return telemetry.error();
  const auto schedules = find_schedules(*telemetry, o, res.levers);
  const auto uses = gpu_uses(*telemetry);
  std::vector<ledger::AggregateQuery> qs = {usage_query(o)};
  if (!uses.empty()) qs.push_back(host_price_query(o.as_of - o.idle_window_days, o.as_of));
  const std::size_t own = qs.size();
  const governance::WasteOptions wo;
  std::optional<governance::WasteScan> waste;
  if (o.waste_findings) {
    waste.emplace(wo, o.as_of, std::map<std::string, std::vector<std::string>>{});
    qs.insert(qs.end(), waste->queries().begin(), waste->queries().end());
  }
  Usage usage;
  HostPrices prices;
  if (auto s = store.aggregate_into(
          qs,
          [&](std::size_t query, ledger::AggregateRow& r) -> core::Status {
            if (query == 0)
              add_usage(usage, r, +1);
            else if (query < own)
              add_price(prices, r);
            else
              waste->add(query - own, r);
            return {};
          },
          waste ? governance::WasteScan::kInterleave : 0, own);
      !s)
    return s.error();
  std::map<std::string, std::string> stopped;  // host -> its resource
  idle_levers(schedules, prices, o, res.baseline, res.levers, stopped);
  std::map<std::string, std::string> counted;
  for (const auto& [h, resource] : stopped) counted[h] = "idle-schedule " + h;
  std::map<std::string, std::string> moved;  // host -> its resource
  rightsize_levers(catalog, o, res.baseline, uses, prices, counted, res.levers, moved,
                   res.warnings);
  for (const auto& [h, resource] : moved) {
    usage.moved.insert(resource);
    stopped.emplace(h, resource);
  }
  if (auto s = take_out_stopped(store, o, stopped, usage); !s) return s.error();
  commitment_levers(catalog, o, res.baseline, usage, res.levers, counted, res.warnings);
  if (waste) {
    // The levers' telemetry stands for the scan's own read where it holds its look-back.
    auto findings =
        waste->finish(store, o.idle_window_days >= wo.idle_lookback_days ? &*telemetry : nullptr);
    if (!findings) return findings.error();
    detail::waste_levers(*findings, res.baseline, counted, res.levers, res.warnings);
  }
  if (res.baseline.currency.empty())
    res.warnings.push_back("no charge in the window: nothing to size");
  // Red lines: a ledger lever can only be riskier than allowed.
  for (auto& r : res.levers) {
    // Only a priced proposal is still unjudged (not-applicable is the default status).
    if (r.status != LeverStatus::kNotApplicable || !r.saving_usd) continue;
    if (static_cast<int>(r.risk.level) > static_cast<int>(o.guardrails.max_risk)) {
      r.status = LeverStatus::kRejected;
      r.red_line = {false, std::string("risk ") + to_string(r.risk.level) + " above the allowed " +
                               to_string(o.guardrails.max_risk)};
    } else {
      r.status = LeverStatus::kAccepted;
    }
  }
  std::stable_sort(res.levers.begin(), res.levers.end(),
                   [](const LeverResult& a, const LeverResult& b) {
                     const int ra = status_rank(a.status), rb = status_rank(b.status);
                     if (ra != rb) return ra < rb;
                     if (ra == 0) return *a.saving_usd > *b.saving_usd;
                     return false;
                   });
  // Each lever is about its own resources (the commitment leaves out hosts a schedule stops), so
  // the accepted savings add up.
  auto& c = res.combined;
  c.total_usd = res.baseline.monthly;
  // The levers' changes merged as merge() (change.h) would, one after another, in place: a ledger
  // has thousands of accepted levers, and merge() copies and searches the whole change for each.
  std::unordered_map<std::string, std::size_t> at;  // a key's place in c.change
  for (const auto& r : res.levers) {
    if (r.status != LeverStatus::kAccepted) continue;
    c.levers.push_back(r.subject.empty() ? r.id : r.id + " " + r.subject);
    c.steps.push_back({r.id, 0, *r.saving_usd, 0, false});
    c.saving_usd += *r.saving_usd;
    c.risk = std::max(c.risk, r.risk.level);
    for (const Edit& e : r.change) {
      const auto [it, fresh] = at.try_emplace(e.key, c.change.size());
      if (fresh)
        c.change.push_back(e);
      else
        c.change[it->second].value = e.value;
    }
  }
  c.sum_of_savings = c.saving_usd;
  c.total_usd -= c.saving_usd;
  double running = res.baseline.monthly;
  for (auto& st : c.steps) st.total_usd = (running -= st.saving_usd);
  return res;
}

}  // namespace aicost::optimize
