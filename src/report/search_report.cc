#include "aicost/report/search_report.h"
#include "aicost/report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "aicost/core/text.h"
#include "aicost/report/table.h"
#include "chart_parts.h"
#include "json.h"
#include "rounding.h"

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

// What sets `other` apart from `c` in its layout, in the table's own words ("CP4 mbs2").
std::string difference(const Candidate& c, const Candidate& other) {
  const auto& a = c.parallel;
  const auto& b = other.parallel;
  std::string d;
  auto add = [&](bool differs, const std::string& text) {
    if (differs) d += (d.empty() ? "" : " ") + text;
  };
  add(a.tensor != b.tensor, fmt::format("TP{}", b.tensor));
  add(a.pipeline != b.pipeline, fmt::format("PP{}", b.pipeline));
  add(a.virtual_pipeline != b.virtual_pipeline, fmt::format("VPP{}", b.virtual_pipeline));
  add(a.context != b.context, fmt::format("CP{}", b.context));
  add(a.expert != b.expert, fmt::format("EP{}", b.expert));
  add(a.micro_batch != b.micro_batch, fmt::format("mbs{}", b.micro_batch));
  add(a.recompute != b.recompute, fmt::format("recompute {}", workload::to_string(b.recompute)));
  add(a.sequence_parallel != b.sequence_parallel, b.sequence_parallel ? "sp on" : "sp off");
  add(a.sharding != b.sharding, workload::to_string(b.sharding));
  return d;
}

// "also: CP4 mbs2, CP8 mbs4": the layouts with the same outputs as `c`, at most three named.
std::string also(const Candidate& c, const std::vector<Candidate>& aliases) {
  if (aliases.empty()) return "";
  std::string m = "also: ";
  const size_t shown = std::min<size_t>(aliases.size(), 3);
  for (size_t i = 0; i < shown; ++i) m += (i ? ", " : "") + difference(c, aliases[i]);
  if (aliases.size() > shown) m += fmt::format(" +{} more", aliases.size() - shown);
  return m;
}

std::string marks(const SearchView& v, const Candidate& c, const std::vector<Candidate>* aliases) {
  std::string m;
  if (overlaps_winner(v, c)) m = "~#1";
  if (c.memory_tight) m += std::string(m.empty() ? "" : " ") + "tight";
  if (aliases && !aliases->empty()) m += std::string(m.empty() ? "" : " ") + also(c, *aliases);
  return m;
}

// `plain`: numbers for programs (no digit grouping, full precision), else for people.
// `aliases`, when given, is parallel to `list` (SearchResult::top_aliases).
Table candidates(const SearchView& v, const std::vector<Candidate>& list, const std::string& title,
                 bool plain = false, const std::vector<std::vector<Candidate>>* aliases = nullptr) {
  auto number = [&](double x, int decimals) {
    return plain ? fmt::format("{:.6g}", x) : fmt::format("{:.{}f}", x, decimals);
  };
  auto grouped = [&](double x) { return plain ? fmt::format("{:.2f}", x) : core::group_digits(x); };
  Table t;
  t.title = title;
  t.header = {"#",     "gpu",  "gpus",      "layout",  "mbs",     "recompute", "sp",    "optimizer",
              "batch", "days", "gpu_hours", "mfu_pct", "mem_gib", "cost_usd",  "price", "marks"};
  t.right_align = {true, false, true, false, true, false, false, false,
                   true, true,  true, true,  true, true,  false, false};
  int rank = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& c = list[i];
    const auto& p = c.parallel;
    t.rows.push_back({std::to_string(++rank), v.space->gpus[c.gpu_option].gpu.id,
                      std::to_string(c.gpus), layout(c), std::to_string(p.micro_batch),
                      workload::to_string(p.recompute), p.sequence_parallel ? "on" : "off",
                      workload::to_string(p.sharding), std::to_string(c.global_batch),
                      number(c.wall_days, 1), grouped(c.gpu_hours), number(c.mfu * 100, 1),
                      number(c.memory_gib, 1), grouped(c.cost_usd), price_of(v, c).basis,
                      marks(v, c, aliases && i < aliases->size() ? &(*aliases)[i] : nullptr)});
  }
  return t;
}

Json parallelism_json(const Candidate& c) {
  const auto& p = c.parallel;
  return {{"tensor_model_parallel_size", p.tensor},
          {"pipeline_model_parallel_size", p.pipeline},
          {"virtual_pipeline_model_parallel_size", p.virtual_pipeline},
          {"context_parallel_size", p.context},
          {"expert_model_parallel_size", p.expert},
          {"data_parallel_size", c.gpus / (p.tensor * p.pipeline * p.context)},
          {"micro_batch_size", p.micro_batch},
          {"sequence_parallel", p.sequence_parallel},
          {"recompute_granularity", workload::to_string(p.recompute)},
          {"optimizer_sharding", workload::to_string(p.sharding)}};
}

// `aliases`: the layouts with the same outputs (SearchResult::top_aliases), for the top list.
Json candidate_json(const SearchView& v, const Candidate& c, const costing::CostEstimate* cost,
                    const std::vector<Candidate>* aliases = nullptr) {
  Json j;
  j["gpu"] = v.space->gpus[c.gpu_option].gpu.id;
  j["gpus"] = c.gpus;
  j["price_basis"] = price_of(v, c).basis;
  j["pricing_mode"] = catalog::to_string(price_of(v, c).mode);
  j["global_batch_size"] = c.global_batch;
  j["parallelism"] = parallelism_json(c);
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
  if (aliases) {
    j["same_outputs_as"] = Json::array();
    for (const auto& a : *aliases) j["same_outputs_as"].push_back(parallelism_json(a));
  }
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

const char* constraint_name(search::Rejection r) {
  switch (r) {
    case search::Rejection::kMissesDeadline: return "deadline";
    case search::Rejection::kOverBudget: return "budget";
    case search::Rejection::kBelowMfuFloor: return "mfu floor";
    default: return "constraint";
  }
}

// What each constraint would have to be for a plan to exist, in words (SearchResult::closest).
std::vector<std::string> closest_lines(const search::SearchResult& r,
                                       const search::SearchSpace& space) {
  std::vector<std::string> lines;
  for (const auto& x : r.closest) {
    const auto* p = x.plan ? &*x.plan : nullptr;
    switch (x.constraint) {
      case search::Rejection::kMissesDeadline:
        lines.push_back(
            p ? fmt::format(
                    "deadline {:.1f} days: the fastest plan that meets the other constraints "
                    "takes {:.1f} days (+{:.0f} %): allow that, or at least {:.1f}x its {} "
                    "GPUs (the work scales at best linearly with them){}",
                    x.limit, x.reached, (x.reached / x.limit - 1) * 100, x.reached / x.limit,
                    core::group_digits(p->gpus),
                    p->gpus >= space.max_gpus
                        ? fmt::format(", more than the search's {} allowed: widen cluster.gpus",
                                      core::group_digits(space.max_gpus))
                        : "")
              : fmt::format(
                    "deadline {:.1f} days: even without it no plan meets the other constraints",
                    x.limit));
        break;
      case search::Rejection::kOverBudget:
        lines.push_back(
            p ? fmt::format(
                    "budget {} USD: the cheapest plan that meets the other constraints costs "
                    "{} USD: raise the budget by {} USD (+{:.0f} %)",
                    core::group_digits(x.limit), core::group_digits(x.reached),
                    core::group_digits(x.reached - x.limit), (x.reached / x.limit - 1) * 100)
              : fmt::format("budget {} USD: even without it no plan meets the other constraints",
                            core::group_digits(x.limit)));
        break;
      default:
        lines.push_back(
            p ? fmt::format("MFU floor {:.1f} %: the best MFU of a plan that meets the other "
                            "constraints is {:.1f} %: lower the floor by {:.1f} points",
                            x.limit * 100, x.reached * 100, (x.limit - x.reached) * 100)
              : fmt::format(
                    "MFU floor {:.1f} %: even without it no plan meets the other constraints",
                    x.limit * 100));
    }
  }
  return lines;
}

Json closest_json(const SearchView& v) {
  Json out = Json::array();
  for (const auto& x : v.result->closest) {
    out.push_back(
        {{"constraint", constraint_name(x.constraint)},
         {"limit", x.constraint == search::Rejection::kOverBudget ? cents(x.limit) : sig(x.limit)},
         {"reached", x.plan ? Json(x.constraint == search::Rejection::kOverBudget ? cents(x.reached)
                                                                                  : sig(x.reached))
                            : Json()},
         {"plan", x.plan ? candidate_json(v, *x.plan, nullptr) : Json()}});
  }
  return out;
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
    j["top"].push_back(candidate_json(v, r.top[i],
                                      i < v.top_costs.size() ? &v.top_costs[i] : nullptr,
                                      i < r.top_aliases.size() ? &r.top_aliases[i] : nullptr));
  }
  j["pareto_cost_time"] = Json::array();
  for (const auto& p : r.pareto_cost_time)
    j["pareto_cost_time"].push_back(candidate_json(v, p, nullptr));
  j["pareto_cost_gpus"] = Json::array();
  for (const auto& p : r.pareto_cost_gpus)
    j["pareto_cost_gpus"].push_back(candidate_json(v, p, nullptr));
  j["closest"] = closest_json(v);
  j["notes"] = v.notes;
  return json_text(j) + "\n";
}

std::string render_csv(const SearchView& v) {
  const auto& r = *v.result;
  Table all = candidates(v, {}, "");
  all.header.insert(all.header.begin(), "set");
  auto add = [&](const char* set, const std::vector<Candidate>& list,
                 const std::vector<std::vector<Candidate>>* aliases = nullptr) {
    for (auto row : candidates(v, list, "", true, aliases).rows) {
      row.insert(row.begin(), set);
      all.rows.push_back(std::move(row));
    }
  };
  add("top", r.top, &r.top_aliases);
  add("pareto_cost_time", r.pareto_cost_time);
  add("pareto_cost_gpus", r.pareto_cost_gpus);
  return render(all, Format::kCsv);
}

}  // namespace

std::string render_search(const SearchView& v, Format f) {
  if (f == Format::kJson) return render_json(v);
  if (f == Format::kCsv) return render_csv(v);
  if (f == Format::kHtml)
    return html_page("aicost search: " + v.plan_name, search_charts(v),
                     render_search(v, Format::kTable));
  const auto& r = *v.result;
  std::string out;
  out += fmt::format("aicost search: {} (objective: {})\n", v.plan_name,
                     search::to_string(v.objective));
  Table counts;
  counts.title = "Candidates";
  counts.header = {"", "count"};
  counts.right_align = {false, true};
  counts.rows.push_back({"enumerated", core::group_digits(r.enumerated)});
  for (int i = 0; i < search::kRejectionCount; ++i) {
    counts.rows.push_back(
        {std::string("rejected: ") + search::to_string(static_cast<search::Rejection>(i)),
         core::group_digits(r.rejected[i])});
  }
  counts.rows.push_back({"feasible", core::group_digits(static_cast<double>(r.feasible))});
  out += "\n" + render(counts, f);
  if (r.top.empty()) {
    out += "\nNo plan meets the constraints.\n";
    const auto lines = closest_lines(r, *v.space);
    if (!lines.empty()) {
      out += "What it would take, one constraint at a time:\n";
      for (const auto& l : lines) out += "  - " + l + "\n";
      std::vector<Candidate> plans;
      for (const auto& x : r.closest) {
        if (x.plan) plans.push_back(*x.plan);
      }
      if (!plans.empty()) {
        Table t = candidates(v, plans, "What came closest");
        t.header.insert(t.header.begin() + 1, "relaxes");
        t.right_align.insert(t.right_align.begin() + 1, false);
        size_t row = 0;
        for (const auto& x : r.closest) {
          if (!x.plan) continue;
          auto& cells = t.rows[row++];
          cells.insert(cells.begin() + 1, constraint_name(x.constraint));
        }
        out += "\n" + render(t, f);
      }
    }
  } else {
    out += "\n" + render(candidates(v, r.top, "Top plans", false, &r.top_aliases), f);
    const auto& best = v.top_costs.empty() ? nullptr : &v.top_costs.front();
    if (best) {
      Table cats;
      cats.title = "Cost of the best plan by category";
      cats.header = {"category", "usd", "share"};
      cats.right_align = {false, true, true};
      for (const auto& l : best->lines) {
        cats.rows.push_back(
            {l.category, core::group_digits(l.amount.value()),
             fmt::format("{:.1f} %", best->total.value() > 0
                                         ? l.amount.value() / best->total.value() * 100
                                         : 0)});
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
