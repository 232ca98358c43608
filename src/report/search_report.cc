#include "aicost/report/search_report.h"
#include "aicost/report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>


#include "aicost/core/text.h"
#include "aicost/report/table.h"
#include "chart_parts.h"
#include "rounding.h"
#include "json.h"

namespace aicost::report {

using search::Candidate;

std::string layout(const Candidate& c) {
  const auto& p = c.parallel;
  return fmt::format("TP{} PP{} VPP{} CP{} EP{} DP{}", p.tensor, p.pipeline, p.virtual_pipeline,
                     p.context, p.expert, c.gpus / (p.tensor * p.pipeline * p.context));
}

namespace {


const costing::ComputePricing& price_of(const SearchView& v, const Candidate& c) {
  return v.space->gpus[c.gpu_option].prices[c.price_option];
}

// The objective's value of `c` and its 80 % interval; nullopt without intervals.
struct Span {
  double lo = 0, hi = 0;
};
std::optional<Span> objective_span(const SearchView& v, const Candidate& c) {
  if (v.gpu_intervals.size() <= static_cast<size_t>(c.gpu_option)) return std::nullopt;
  const auto& b = v.gpu_intervals[c.gpu_option];
  if (!b.known) return std::nullopt;
  // Cost and days scale with the time ratio (fixed costs are not separated here: slightly wide);
  // MFU scales with its inverse.
  switch (v.objective) {
    case search::Objective::kCheapest: return Span{c.cost_usd * b.lo, c.cost_usd * b.hi};
    case search::Objective::kFastest: return Span{c.wall_days * b.lo, c.wall_days * b.hi};
    case search::Objective::kBestMfu: return Span{c.mfu / b.hi, c.mfu / b.lo};
  }
  return std::nullopt;
}

// True when `c` is not the winner and its objective interval overlaps the winner's.
bool overlaps_winner(const SearchView& v, const Candidate& c) {
  const auto& top = v.result->top;
  if (top.empty() || &c == &top.front()) return false;
  const auto a = objective_span(v, c), w = objective_span(v, top.front());
  if (!a || !w) return false;
  if (c.key() == top.front().key()) return false;
  return std::max(a->lo, w->lo) <= std::min(a->hi, w->hi);
}

std::string marks(const SearchView& v, const Candidate& c) {
  std::string m;
  if (overlaps_winner(v, c)) m = "~#1";
  if (c.memory_tight) m += std::string(m.empty() ? "" : " ") + "tight";
  return m;
}

// `plain`: numbers for programs (no digit grouping, full precision), else for people.
Table candidates(const SearchView& v, const std::vector<Candidate>& list, const std::string& title,
                 bool plain = false) {
  auto number = [&](double x, int decimals) {
    return plain ? fmt::format("{:.6g}", x) : fmt::format("{:.{}f}", x, decimals);
  };
  auto grouped = [&](double x) { return plain ? fmt::format("{:.2f}", x) : core::group_digits(x); };
  Table t;
  t.title = title;
  t.header = {"#", "gpu", "gpus", "layout", "mbs", "recompute", "sp", "optimizer", "batch",
              "days", "gpu_hours", "mfu_pct", "mem_gib", "cost_usd", "price", "marks"};
  t.right_align = {true, false, true, false, true, false, false, false, true,
                   true, true, true, true, true, false, false};
  int rank = 0;
  for (const auto& c : list) {
    const auto& p = c.parallel;
    t.rows.push_back({std::to_string(++rank), v.space->gpus[c.gpu_option].gpu.id,
                      std::to_string(c.gpus), layout(c), std::to_string(p.micro_batch),
                      workload::to_string(p.recompute), p.sequence_parallel ? "on" : "off",
                      workload::to_string(p.sharding), std::to_string(c.global_batch),
                      number(c.wall_days, 1), grouped(c.gpu_hours), number(c.mfu * 100, 1),
                      number(c.memory_gib, 1), grouped(c.cost_usd), price_of(v, c).basis,
                      marks(v, c)});
  }
  return t;
}

Json candidate_json(const SearchView& v, const Candidate& c, const costing::CostEstimate* cost) {
  const auto& p = c.parallel;
  Json j;
  j["gpu"] = v.space->gpus[c.gpu_option].gpu.id;
  j["gpus"] = c.gpus;
  j["price_basis"] = price_of(v, c).basis;
  j["pricing_mode"] = catalog::to_string(price_of(v, c).mode);
  j["global_batch_size"] = c.global_batch;
  j["parallelism"] = {{"tensor_model_parallel_size", p.tensor},
                      {"pipeline_model_parallel_size", p.pipeline},
                      {"virtual_pipeline_model_parallel_size", p.virtual_pipeline},
                      {"context_parallel_size", p.context},
                      {"expert_model_parallel_size", p.expert},
                      {"data_parallel_size", c.gpus / (p.tensor * p.pipeline * p.context)},
                      {"micro_batch_size", p.micro_batch},
                      {"sequence_parallel", p.sequence_parallel},
                      {"recompute_granularity", workload::to_string(p.recompute)},
                      {"optimizer_sharding", workload::to_string(p.sharding)}};
  j["step_time_s"] = sig(c.step_time_s);
  j["wall_days"] = sig(c.wall_days);
  j["gpu_hours"] = sig(c.gpu_hours);
  j["mfu"] = sig(c.mfu);
  j["memory_peak_gib"] = sig(c.memory_gib);
  j["cost_usd"] = cents(c.cost_usd);
  j["memory_tight"] = c.memory_tight;
  if (const auto span = objective_span(v, c)) {
    j["objective_interval"] = {sig(span->lo), sig(span->hi)};
  } else {
    j["objective_interval"] = nullptr;
  }
  j["overlaps_winner"] = overlaps_winner(v, c);
  if (cost) {
    Json cats = Json::object();
    for (const auto& l : cost->lines) cats[l.category] = cents(l.amount.value());
    j["cost_categories"] = cats;
  }
  return j;
}

Json counts_json(const search::SearchResult& r) {
  Json rejected = Json::object();
  for (int i = 0; i < search::kRejectionCount; ++i) {
    rejected[search::to_string(static_cast<search::Rejection>(i))] = r.rejected[i];
  }
  return {{"enumerated", r.enumerated},
          {"evaluated", r.evaluated},
          {"feasible", r.feasible},
          {"rejected", rejected}};
}

std::string render_json(const SearchView& v) {
  const auto& r = *v.result;
  Json j;
  j["schema_version"] = 1;
  j["plan"] = v.plan_name;
  j["objective"] = search::to_string(v.objective);
  Json cons = Json::object();
  const auto& c = *v.constraints;
  cons["deadline_days"] = c.deadline_days ? Json(*c.deadline_days) : Json();
  cons["budget_usd"] = c.budget_usd ? Json(*c.budget_usd) : Json();
  cons["min_mfu"] = c.min_mfu ? Json(*c.min_mfu) : Json();
  cons["memory_headroom"] = c.memory_headroom;
  j["constraints"] = cons;
  j["counts"] = counts_json(r);
  j["top"] = Json::array();
  for (size_t i = 0; i < r.top.size(); ++i) {
    j["top"].push_back(candidate_json(v, r.top[i], i < v.top_costs.size() ? &v.top_costs[i] : nullptr));
  }
  j["pareto_cost_time"] = Json::array();
  for (const auto& p : r.pareto_cost_time) j["pareto_cost_time"].push_back(candidate_json(v, p, nullptr));
  j["pareto_cost_gpus"] = Json::array();
  for (const auto& p : r.pareto_cost_gpus) j["pareto_cost_gpus"].push_back(candidate_json(v, p, nullptr));
  j["notes"] = v.notes;
  return json_text(j) + "\n";
}

std::string render_csv(const SearchView& v) {
  const auto& r = *v.result;
  Table all = candidates(v, {}, "");
  all.header.insert(all.header.begin(), "set");
  auto add = [&](const char* set, const std::vector<Candidate>& list) {
    for (auto row : candidates(v, list, "", true).rows) {
      row.insert(row.begin(), set);
      all.rows.push_back(std::move(row));
    }
  };
  add("top", r.top);
  add("pareto_cost_time", r.pareto_cost_time);
  add("pareto_cost_gpus", r.pareto_cost_gpus);
  return render(all, Format::kCsv);
}

}  // namespace

std::string render_search(const SearchView& v, Format f) {
  if (f == Format::kJson) return render_json(v);
  if (f == Format::kCsv) return render_csv(v);
  if (f == Format::kHtml) return html_page("aicost search: " + v.plan_name, search_charts(v), render_search(v, Format::kTable));
  const auto& r = *v.result;
  std::string out;
  out += fmt::format("aicost search: {} (objective: {})\n", v.plan_name, search::to_string(v.objective));
  Table counts;
  counts.title = "Candidates";
  counts.header = {"", "count"};
  counts.right_align = {false, true};
  counts.rows.push_back({"enumerated", core::group_digits(r.enumerated)});
  for (int i = 0; i < search::kRejectionCount; ++i) {
    counts.rows.push_back({std::string("rejected: ") + search::to_string(static_cast<search::Rejection>(i)),
                           core::group_digits(r.rejected[i])});
  }
  counts.rows.push_back({"feasible", core::group_digits(static_cast<double>(r.feasible))});
  out += "\n" + render(counts, f);
  if (r.top.empty()) {
    out += "\nNo plan meets the constraints.\n";
  } else {
    out += "\n" + render(candidates(v, r.top, "Top plans"), f);
    const auto& best = v.top_costs.empty() ? nullptr : &v.top_costs.front();
    if (best) {
      Table cats;
      cats.title = "Cost of the best plan by category";
      cats.header = {"category", "usd", "share"};
      cats.right_align = {false, true, true};
      for (const auto& l : best->lines) {
        cats.rows.push_back({l.category, core::group_digits(l.amount.value()),
                             fmt::format("{:.1f} %", best->total.value() > 0 ? l.amount.value() / best->total.value() * 100 : 0)});
      }
      out += "\n" + render(cats, f);
    }
    out += "\n" + render(candidates(v, r.pareto_cost_time, "Pareto front: cost vs wall days"), f);
    out += "\n" + render(candidates(v, r.pareto_cost_gpus, "Pareto front: cost vs GPU count"), f);
  }
  if (!v.notes.empty()) {
    out += "\n";
    for (const auto& n : v.notes) out += "note: " + n + "\n";
  }
  return out;
}

}  // namespace aicost::report
