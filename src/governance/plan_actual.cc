#include "aicost/governance/plan_actual.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "aicost/ledger/report.h"

namespace aicost::governance {
namespace {

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

std::string money(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

std::string plan_category(const std::string& c) {
  if (c == "Compute" || c == "AI and Machine Learning") return "compute";
  if (c == "Storage") return "storage";
  if (c == "Networking") return "network";
  if (c == "Databases") return "database";
  if (c == "Management and Governance") return "monitoring";
  if (c == "Security") return "security";
  return "other";
}

core::Result<PlanVsActual> plan_vs_actual(
    ledger::Store& store, const Budget& b, ledger::Day as_of,
    const std::map<std::string, std::vector<std::string>>& aliases) {
  if (!b.plan)
    return core::make_error(core::ErrorCode::kInvalidInput, "budget '" + b.name + "' has no plan");
  const Period p = period_of(b, as_of);
  const ledger::Day to = std::min(as_of, p.end);
  PlanVsActual out;
  out.budget = b.name;
  out.plan_source = b.plan->source;
  out.currency = b.currency;
  out.planned_days = b.plan->wall_days;
  out.elapsed_days = std::max(0, to - p.start);
  out.planned_cost = b.plan->total_cost;
  out.planned_gpu_hours = b.plan->gpu_hours;
  out.planned_mfu = b.plan->mfu;
  out.efficiency_floor = b.efficiency_floor;

  // Spend by the plan's categories, and the run's GPU resources.
  ledger::ReportRequest r;
  r.by = {{ledger::Dimension::kServiceCategory, {}},
          {ledger::Dimension::kResource, {}},
          {ledger::Dimension::kResourceName, {}}};
  r.filters = b.scope;
  r.aliases = aliases;
  r.from = p.start;
  r.to = to;
  auto rows = store.aggregate(ledger::aggregate_query(r));
  if (!rows) return rows.error();
  std::map<std::string, double> actual;
  std::set<std::string> hosts;
  for (const auto& row : *rows) {
    if (row.currency != b.currency) continue;
    const double cost = units(row.sums.effective);
    actual[plan_category(row.values[0])] += cost;
    out.actual_cost += cost;
    out.actual_gpu_hours += row.sums.gpu_hours;
    if (row.sums.gpu_hours > 0) {
      const std::string& id = row.values[1];
      for (const std::string& h : {row.values[2], id, id.substr(id.find_last_of('/') + 1)})
        if (!h.empty()) hosts.insert(h);
    }
  }
  const double share =
      out.planned_days > 0 ? std::min(1.0, out.elapsed_days / out.planned_days) : 1.0;
  for (const auto& [category, planned] : b.plan->categories)
    if (planned != 0 || actual.count(category))
      out.categories.push_back(
          {category, planned, planned * share, actual.count(category) ? actual[category] : 0.0});
  for (const auto& [category, spent] : actual)
    if (!b.plan->categories.count(category)) out.categories.push_back({category, 0, 0, spent});

  // The run's GPUs' activity: SM_ACTIVE where it is measured, else GR_ENGINE_ACTIVE.
  auto hours = store.gpu_hours(p.start, to);
  if (!hours) return hours.error();
  double sm = 0, gr = 0;
  std::int64_t sm_n = 0, gr_n = 0;
  for (const auto& h : *hours) {
    if (!hosts.count(h.host)) continue;
    if (h.metric == ledger::GpuMetric::kSmActive) sm += h.sum, sm_n += h.samples;
    if (h.metric == ledger::GpuMetric::kGrEngineActive) gr += h.sum, gr_n += h.samples;
  }
  if (sm_n > 0)
    out.activity = sm / static_cast<double>(sm_n);
  else if (gr_n > 0)
    out.activity = gr / static_cast<double>(gr_n);

  char text[256];
  if (out.efficiency_floor && out.activity && *out.activity < *out.efficiency_floor) {
    std::snprintf(text, sizeof text,
                  "run '%s': its GPUs' mean SM activity %.2f is below the floor %.2f: the run is "
                  "not getting the "
                  "efficiency its plan assumes (MFU %.2f)",
                  b.name.c_str(), *out.activity, *out.efficiency_floor, out.planned_mfu);
    out.warnings.push_back(text);
  }
  if (out.planned_gpu_hours > 0 && out.actual_gpu_hours > out.planned_gpu_hours) {
    std::snprintf(
        text, sizeof text,
        "run '%s': %.0f GPU-hours used, %.0f %% of the plan's %.0f after %.1f of %.1f days",
        b.name.c_str(), out.actual_gpu_hours, 100 * out.actual_gpu_hours / out.planned_gpu_hours,
        out.planned_gpu_hours, out.elapsed_days, out.planned_days);
    out.warnings.push_back(text);
  }
  if (out.actual_cost > out.planned_cost)
    out.warnings.push_back("run '" + b.name + "': spent " + money(out.actual_cost) + " " +
                           b.currency + ", more than the plan's whole run (" +
                           money(out.planned_cost) + ")");
  return out;
}

}  // namespace aicost::governance
