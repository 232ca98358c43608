// The charts of `aicost reliability -o html` (report/charts.h): where the wall days go, the days
// each lever saves and the spread of the simulated runs.
#include <fmt/format.h>

#include "aicost/report/charts.h"
#include "chart_parts.h"
#include "json.h"
#include "rounding.h"

namespace aicost::report {

namespace {

// The runs counted by wall days (the simulation's bins), with rules at P10, the median, P90, the
// runs' mean and the closed form's expected wall days.
Chart wall_days_histogram(const reliability::SimulationResult& sim, double closed_form_days) {
  constexpr double kDay = 86400;
  const auto& h = sim.wall_histogram;
  Json bins = Json::array();
  // Runs that all took the same time: one bar a hundredth of a day wide, so it shows.
  const double width = h.width > 0 ? h.width / kDay : 0.01;
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const double from =
        h.lo / kDay + static_cast<double>(i) * width - (h.width > 0 ? 0 : width / 2);
    bins.push_back(
        {{"from_days", sig(from)}, {"to_days", sig(from + width)}, {"runs", h.counts[i]}});
  }
  const auto& w = sim.wall_s;
  const std::pair<const char*, double> lines[] = {{"P10", w.p10 / kDay},
                                                  {"median", w.p50 / kDay},
                                                  {"P90", w.p90 / kDay},
                                                  {"mean of the runs", w.mean / kDay},
                                                  {"closed form (expected)", closed_form_days}};
  Json rules = Json::array(), names = Json::array();
  for (const auto& [what, days] : lines) {
    rules.push_back({{"what", what}, {"at_days", sig(days)}});
    names.push_back(what);
  }
  Json t = base_spec("Wall days of the simulated runs: how many runs took how long");
  t["height"] = 240;
  t["layer"] = Json::array(
      {{{"data", {{"values", std::move(bins)}}},
        {"mark", {{"type", "bar"}, {"color", "#9ecae9"}, {"stroke", "#4c78a8"}, {"tooltip", true}}},
        {"encoding",
         {{"x",
           {{"field", "from_days"},
            {"type", "quantitative"},
            {"bin", {{"binned", true}}},
            {"title", "wall days of a run"},
            {"scale", {{"zero", false}}}}},
          {"x2", {{"field", "to_days"}}},
          {"y", {{"field", "runs"}, {"type", "quantitative"}, {"title", "simulated runs"}}}}}},
       {{"data", {{"values", std::move(rules)}}},
        {"mark", {{"type", "rule"}, {"strokeWidth", 2}, {"tooltip", true}}},
        {"encoding",
         {{"x", {{"field", "at_days"}, {"type", "quantitative"}}},
          {"color",
           {{"field", "what"},
            {"type", "nominal"},
            {"title", ""},
            {"scale",
             {{"domain", names}, {"range", {"#777", "#222", "#777", "#d62728", "#ff7f0e"}}}}}},
          {"strokeDash",
           {{"field", "what"},
            {"type", "nominal"},
            {"title", ""},
            {"scale",
             {{"domain", names}, {"range", {{4, 3}, {1, 0}, {4, 3}, {1, 0}, {8, 4}}}}}}}}}}});
  return chart(fmt::format("Wall days of {} simulated runs (Monte Carlo)", sim.runs), t);
}

}  // namespace

std::vector<Chart> reliability_charts(const ReliabilityView& v) {
  std::vector<Chart> out;
  if (v.analysis == nullptr) return out;
  constexpr double kDay = 86400;
  const auto& e = v.analysis->expected;
  const auto* sim = v.simulation;
  Json parts = Json::array();
  auto part = [&](const char* name, double closed_s, double sim_s) {
    parts.push_back({{"part", name}, {"model", "closed form"}, {"days", sig(closed_s / kDay)}});
    if (sim != nullptr)
      parts.push_back({{"part", name}, {"model", "Monte-Carlo mean"}, {"days", sig(sim_s / kDay)}});
  };
  const double sim_work = sim ? sim->wall_s.mean - sim->checkpoints - sim->lost_work -
                                    sim->restarts - sim->stalls - sim->maintenance
                              : 0;
  part("work", e.work.value(), sim_work);
  part("checkpoints", e.checkpoints.value(), sim ? sim->checkpoints : 0);
  part("lost work", e.lost_work.value(), sim ? sim->lost_work : 0);
  part("restarts", e.restarts.value(), sim ? sim->restarts : 0);
  part("maintenance", e.maintenance.value(), sim ? sim->maintenance : 0);
  if (sim != nullptr && sim->stalls > 0) part("waiting for a spare node", 0, sim->stalls);
  Json s = base_spec("Expected wall time by part");
  s["data"] = {{"values", std::move(parts)}};
  s["mark"] = {{"type", "bar"}, {"tooltip", true}};
  s["encoding"] = {{"y",
                    {{"field", "part"},
                     {"type", "nominal"},
                     {"title", "part of the wall time"},
                     {"sort", nullptr}}},
                   {"x", {{"field", "days"}, {"type", "quantitative"}, {"title", "days"}}},
                   {"color", {{"field", "model"}, {"type", "nominal"}, {"title", ""}}}};
  if (sim != nullptr) s["encoding"]["yOffset"] = {{"field", "model"}};
  out.push_back(chart(fmt::format("Where the {:.1f} wall days go", e.wall().value() / kDay), s));

  Json levers = Json::array();
  for (const auto& l : v.analysis->levers) {
    levers.push_back(
        {{"lever", l.name}, {"saved_days", sig(l.saved_days)}, {"saved_usd", cents(l.saved_usd)}});
  }
  if (!levers.empty()) {
    out.push_back(chart("Days each lever saves",
                        bar_spec("Days saved by each lever", std::move(levers), "lever", "lever",
                                 "saved_days", "wall days saved", ".2~f")));
  }
  if (sim != nullptr && sim->runs > 0)
    out.push_back(wall_days_histogram(*sim, e.wall().value() / kDay));
  return out;
}

}  // namespace aicost::report
