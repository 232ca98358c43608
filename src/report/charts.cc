// Vega-Lite specs of the `-o html` charts (report/charts.h). Each spec carries its data inline
// (data.values) and names its fields in words with units, so the axes read without the table.
#include "aicost/report/charts.h"

#include <fmt/format.h>

#include <algorithm>

#include "aicost/core/quantity.h"
#include "aicost/core/text.h"
#include "chart_parts.h"
#include "estimate_parts.h"
#include "json.h"
#include "rounding.h"

namespace aicost::report {

std::vector<Chart> estimate_charts(const EstimateView& v) {
  std::vector<Chart> out;
  if (v.perf == nullptr || v.cost == nullptr) return out;
  const auto& st = v.perf->step;
  const double total = st.total().value();
  Json steps = Json::array();
  const std::pair<const char*, core::Seconds> causes[] = {
      {"compute", st.compute},          {"recompute", st.recompute},
      {"TP communication", st.tp_comm}, {"CP communication", st.cp_comm},
      {"EP all-to-all", st.ep_comm},    {"PP send/receive", st.pp_comm},
      {"pipeline bubble", st.bubble},   {"DP communication", st.dp_comm},
      {"optimizer", st.optimizer},      {"data loading", st.data_loading}};
  for (const auto& [name, t] : causes) {
    if (t.value() <= 0) continue;
    steps.push_back({{"cause", name},
                     {"seconds", sig(t.value())},
                     {"share", sig(total > 0 ? t.value() / total : 0)}});
  }
  if (!steps.empty()) {
    out.push_back(chart(fmt::format("Where a step's {:.3g} s go", v.perf->step_time.value()),
                        bar_spec("Step time by cause", std::move(steps), "cause", "cause",
                                 "seconds", "time per step (s)", ".3~g")));
  }
  Json lines = Json::array();
  for (const auto& l : v.cost->lines) {
    if (l.amount.value() <= 0) continue;
    lines.push_back(
        {{"category", l.category},
         {"usd", cents(l.amount.value())},
         {"nature",
          l.nature == costing::CostNature::kFixed ? "fixed" : "elastic (scales with the run)"},
         {"driver", cost_driver(v, l)}});
  }
  if (!lines.empty()) {
    Json s = bar_spec("Cost by category", std::move(lines), "category", "category", "usd",
                      "cost (USD)", ",.0f");
    s["encoding"]["color"] = {{"field", "nature"}, {"type", "nominal"}, {"title", "cost nature"}};
    out.push_back(
        chart("Cost by category: " + core::group_digits(v.cost->total.value()) + " USD in all", s));
  }
  return out;
}

std::vector<Chart> search_charts(const SearchView& v) {
  std::vector<Chart> out;
  if (v.result == nullptr || v.space == nullptr || v.result->top.empty()) return out;
  const auto& r = *v.result;
  const auto winner = r.top.front().key();
  Json points = Json::array();
  auto add = [&](const search::Candidate& c, const char* set) {
    points.push_back({{"wall_days", sig(c.wall_days)},
                      {"cost_usd", cents(c.cost_usd)},
                      {"set", set},
                      {"winner", c.key() == winner},
                      {"gpu", v.space->gpus[c.gpu_option].gpu.id},
                      {"gpus", c.gpus},
                      {"layout", layout(c)},
                      {"mfu_pct", sig(c.mfu * 100)}});
  };
  for (const auto& c : r.pareto_cost_time) {
    add(c, "Pareto front");
  }
  for (const auto& c : r.top) {
    const bool on_front =
        std::any_of(r.pareto_cost_time.begin(), r.pareto_cost_time.end(),
                    [&](const search::Candidate& p) { return p.key() == c.key(); });
    if (!on_front) add(c, "other top plans");
  }
  const Json x = {{"field", "wall_days"},
                  {"type", "quantitative"},
                  {"title", "wall time (days, failures included)"},
                  {"scale", {{"zero", false}}}};
  const Json y = {{"field", "cost_usd"},
                  {"type", "quantitative"},
                  {"title", "total cost (USD)"},
                  {"scale", {{"zero", false}}},
                  {"axis", {{"format", ",.0f"}}}};
  const Json tooltip = Json::array({{{"field", "gpu"}},
                                    {{"field", "gpus"}},
                                    {{"field", "layout"}},
                                    {{"field", "wall_days"}, {"title", "days"}},
                                    {{"field", "cost_usd"}, {"title", "USD"}, {"format", ",.0f"}},
                                    {{"field", "mfu_pct"}, {"title", "MFU %"}}});
  Json s = base_spec("Cost against wall days: the Pareto front, the winner marked");
  s["height"] = 360;
  s["data"] = {{"values", std::move(points)}};
  s["layer"] = Json::array(
      {{{"transform", Json::array({{{"filter", "datum.set === 'Pareto front'"}}})},
        {"mark", {{"type", "line"}, {"color", "#9ab"}, {"strokeDash", {4, 3}}}},
        {"encoding", {{"x", x}, {"y", y}, {"order", {{"field", "wall_days"}}}}}},
       {{"mark", {{"type", "point"}, {"filled", true}, {"size", 70}, {"tooltip", true}}},
        {"encoding",
         {{"x", x},
          {"y", y},
          {"tooltip", tooltip},
          {"color", {{"field", "set"}, {"type", "nominal"}, {"title", "plans"}}},
          {"shape", {{"field", "set"}, {"type", "nominal"}, {"title", "plans"}}}}}},
       {{"transform", Json::array({{{"filter", "datum.winner"}}})},
        {"mark",
         {{"type", "point"},
          {"shape", "diamond"},
          {"size", 260},
          {"color", "#d62728"},
          {"strokeWidth", 2.5},
          {"filled", false}}},
        {"encoding", {{"x", x}, {"y", y}}}},
       {{"transform", Json::array({{{"filter", "datum.winner"}}})},
        {"mark",
         {{"type", "text"},
          {"align", "left"},
          {"dx", 12},
          {"dy", -10},
          {"fontSize", 13},
          {"fontWeight", "bold"},
          {"color", "#d62728"}}},
        {"encoding",
         {{"x", x},
          {"y", y},
          {"text",
           {{"value", std::string("winner (") + search::to_string(v.objective) + ")"}}}}}}});
  out.push_back(chart("Cost against wall days: the Pareto front, the winner marked", s));
  return out;
}

std::vector<Chart> serving_charts(const ServingView& v) {
  std::vector<Chart> out;
  if (v.options == nullptr) return out;
  Json opts = Json::array();
  for (size_t i = 0; i < v.per_option.size() && i < v.options->size(); ++i) {
    const auto& d = v.per_option[i];
    if (!d) continue;
    const bool best = v.best && v.best->option == static_cast<int>(i);
    opts.push_back({{"option", option_name((*v.options)[i])},
                    {"monthly_usd", cents(d->monthly.value())},
                    {"replicas", d->replicas},
                    {"choice", best ? "cheapest meeting the SLA" : "meets the SLA"}});
  }
  if (!opts.empty()) {
    Json s = bar_spec("Monthly cost of each deployment option meeting the SLA", std::move(opts),
                      "option", "deployment option", "monthly_usd",
                      fmt::format("cost a month (USD, {:g} h)", core::kHoursPerMonth), ",.0f");
    s["encoding"]["y"]["sort"] = "x";
    s["encoding"]["color"] = {{"field", "choice"},
                              {"type", "nominal"},
                              {"title", ""},
                              {"scale",
                               {{"domain", {"cheapest meeting the SLA", "meets the SLA"}},
                                {"range", {"#d62728", "#4c78a8"}}}}};
    out.push_back(chart("Cost a month per deployment option", s));
  }
  Json reps = Json::array();
  for (const auto& p : v.policies) {
    // The hourly maximum: what the policy paid for at its busiest minute of each hour.
    for (size_t h = 0; h * 60 < p.replicas.size(); ++h) {
      const auto first = p.replicas.begin() + static_cast<std::ptrdiff_t>(h * 60);
      const auto last = p.replicas.begin() +
                        static_cast<std::ptrdiff_t>(std::min(p.replicas.size(), h * 60 + 60));
      reps.push_back({{"day", sig(static_cast<double>(h) / 24.0)},
                      {"policy", p.name},
                      {"replicas", *std::max_element(first, last)}});
    }
  }
  if (!reps.empty()) {
    Json s =
        base_spec("Paid replicas over the traffic profile, per scaling policy (hourly maximum)");
    s["height"] = 300;
    s["data"] = {{"values", std::move(reps)}};
    s["mark"] = {{"type", "line"}, {"strokeWidth", 1.5}, {"interpolate", "step-after"}};
    s["encoding"] = {
        {"x",
         {{"field", "day"},
          {"type", "quantitative"},
          {"title", "time (days from the start of the profile)"}}},
        {"y",
         {{"field", "replicas"},
          {"type", "quantitative"},
          {"title", "paid replicas (hourly maximum)"}}},
        {"color", {{"field", "policy"}, {"type", "nominal"}, {"title", "scaling policy"}}}};
    out.push_back(chart("Replicas over time per scaling policy", s));
  }
  return out;
}

std::vector<Chart> accuracy_charts(const std::vector<perf::AccuracyCase>& cases,
                                   const std::string& fit) {
  std::vector<Chart> out;
  Json runs = Json::array();
  double lo = 0, hi = 0;
  for (const auto& c : cases) {
    if (!(c.measured > 0) || !(c.predicted > 0)) continue;  // a log axis has no place for them
    runs.push_back({{"run", c.name},
                    {"group", c.group},
                    {"measured", sig(c.measured)},
                    {"predicted", sig(c.predicted)},
                    {"error_pct", sig(c.error() * 100)}});
    const double a = std::min(c.measured, c.predicted), b = std::max(c.measured, c.predicted);
    lo = runs.size() == 1 ? a : std::min(lo, a);
    hi = runs.size() == 1 ? b : std::max(hi, b);
  }
  if (runs.empty()) return out;
  // SI labels ("2k", "10k"): full numbers crowd a log axis.
  const Json x = {{"field", "measured"},
                  {"type", "quantitative"},
                  {"scale", {{"type", "log"}}},
                  {"axis", {{"format", "~s"}}},
                  {"title", "measured (training: tokens/s per GPU; serving: tokens/s or s)"}};
  const Json y = {{"field", "predicted"},
                  {"type", "quantitative"},
                  {"scale", {{"type", "log"}}},
                  {"axis", {{"format", "~s"}}},
                  {"title", "predicted, " + fit + " (same unit)"}};
  Json s = base_spec("Predicted against measured, " + fit);
  s["height"] = 420;
  s["width"] = 520;
  s["layer"] = Json::array(
      {{{"data",
         {{"values", Json::array({{{"measured", sig(lo)}, {"predicted", sig(lo)}},
                                  {{"measured", sig(hi)}, {"predicted", sig(hi)}}})}}},
        {"mark", {{"type", "line"}, {"color", "#999"}, {"strokeDash", {4, 3}}}},
        {"encoding", {{"x", x}, {"y", y}}}},
       {{"data", {{"values", std::move(runs)}}},
        {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"tooltip", true}}},
        {"encoding",
         {{"x", x},
          {"y", y},
          {"color", {{"field", "group"}, {"type", "nominal"}, {"title", "group"}}},
          {"tooltip", Json::array({{{"field", "run"}},
                                   {{"field", "measured"}},
                                   {{"field", "predicted"}},
                                   {{"field", "error_pct"}, {"title", "error %"}}})}}}}});
  out.push_back(
      chart("Predicted against measured (" + fit + "; on the dashed line they are equal)", s));
  return out;
}

std::vector<Chart> diff_charts(const EstimateView& a, const EstimateView& b) {
  std::vector<Chart> out;
  const std::string na = a.plan_name.empty() ? "A" : "A: " + a.plan_name,
                    nb = b.plan_name.empty() ? "B" : "B: " + b.plan_name;
  Json cost = Json::array(), step = Json::array();
  for (const auto& [v, name] : {std::pair{&a, na}, std::pair{&b, nb}}) {
    if (v->cost == nullptr || v->perf == nullptr) return out;
    for (const auto& l : v->cost->lines)
      cost.push_back({{"category", l.category}, {"plan", name}, {"usd", cents(l.amount.value())}});
    const auto& st = v->perf->step;
    const std::pair<const char*, double> causes[] = {
        {"compute", st.compute.value()},          {"recompute", st.recompute.value()},
        {"TP communication", st.tp_comm.value()}, {"CP communication", st.cp_comm.value()},
        {"EP all-to-all", st.ep_comm.value()},    {"PP send/receive", st.pp_comm.value()},
        {"pipeline bubble", st.bubble.value()},   {"DP communication", st.dp_comm.value()},
        {"optimizer", st.optimizer.value()},      {"data loading", st.data_loading.value()}};
    for (const auto& [cause, t] : causes)
      step.push_back({{"cause", cause}, {"plan", name}, {"seconds", sig(t)}});
  }
  const BarSeries plans{"plan", "plan", {}, {}};
  auto paired = [&](Json values, const std::string& label, const std::string& value,
                    const std::string& value_title, const std::string& format) {
    return grouped_bar_spec(label + " of plan A and plan B", std::move(values), label, label, plans,
                            value, value_title, format);
  };
  out.push_back(chart("Cost by category, A against B",
                      paired(std::move(cost), "category", "usd", "cost (USD)", ",.0f")));
  out.push_back(chart("Step time by cause, A against B",
                      paired(std::move(step), "cause", "seconds", "time per step (s)", ".3~g")));
  return out;
}

std::vector<Chart> optimize_charts(const std::vector<optimize::LeverResult>& levers,
                                   const std::string& unit) {
  std::vector<Chart> out;
  Json rows = Json::array();
  for (const auto& l : levers) {
    if (!l.saving_usd) continue;
    rows.push_back({{"lever", l.subject.empty() ? l.id : l.id + " " + l.subject},
                    {"saving", cents(*l.saving_usd)},
                    {"status", optimize::to_string(l.status)},
                    {"risk", optimize::to_string(l.risk.level)}});
  }
  if (rows.empty()) return out;
  Json s = bar_spec("Saving of each lever", std::move(rows), "lever", "lever", "saving",
                    "saving (" + unit + ")", ",.0f");
  s["encoding"]["color"] = {{"field", "status"}, {"type", "nominal"}, {"title", "status"}};
  out.push_back(chart("Saving per lever", s));
  return out;
}

}  // namespace aicost::report
