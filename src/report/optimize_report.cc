#include "aicost/report/optimize_report.h"

#include <fmt/format.h>

#include <cmath>

#include "aicost/core/quantity.h"
#include "aicost/core/text.h"
#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"
#include "aicost/serving/fleet.h"
#include "json.h"
#include "optimize_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

using optimize::LeverResult;
using optimize::LeverStatus;

}  // namespace

std::string risk_text(const LeverResult& r) {
  if (!evaluated(r)) return "";
  std::string kinds;
  for (const auto& k : r.risk.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  return std::string(optimize::to_string(r.risk.level)) + (kinds.empty() ? "" : " (" + kinds + ")");
}

namespace {

std::string signed_usd(double x) { return (x < 0 ? "-" : "+") + core::group_digits(std::abs(x)); }

// "TTFT -12 ms, TPOT +3.1 ms, over SLA +0.03 pp, buffer -4.0 pp": what moved, or "none".
std::string sla_text(const optimize::SlaEffect& e) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (std::abs(e.ttft_tail_delta_s) >= 0.0005)
    add(fmt::format("TTFT {:+.0f} ms", e.ttft_tail_delta_s * 1000));
  if (std::abs(e.tpot_delta_s) >= 0.00005)
    add(fmt::format("TPOT {:+.1f} ms", e.tpot_delta_s * 1000));
  if (e.over_sla_delta && std::abs(*e.over_sla_delta) >= 0.00005) {
    add(fmt::format("over SLA {:+.2f} pp", *e.over_sla_delta * 100));
  }
  if (std::abs(e.capacity_buffer_delta) >= 0.0005)
    add(fmt::format("buffer {:+.1f} pp", e.capacity_buffer_delta * 100));
  return out.empty() ? "none" : out;
}

// The serving baseline in words. With a traffic profile, the fleet its policy runs: "static-peak
// over the traffic profile: 18.0 replicas on average, 18 at peak, of h100-sxm-80gb TP4 fp8, max
// batch 128 (0.00 % of requests over the SLA)"; without, the deployment around the clock.
std::string serving_fleet_text(const optimize::ServingEvaluation& s) {
  std::string out;
  if (s.fleet.run) {
    const auto& run = *s.fleet.run;
    out = fmt::format(
        "{} over the traffic profile: {:.1f} replicas on average, {} at peak, of {} ({:.2f} % of "
        "requests over the SLA)",
        s.plan.policy.name, run.mean_replicas, run.peak_replicas, optimize::replica_text(s),
        run.over_sla_share * 100);
  } else {
    out = optimize::deployment_text(s) + ", around the clock";
  }
  if (s.fleet.cache_monthly > core::Usd(0)) {
    out +=
        fmt::format(", response cache {} USD", core::group_digits(s.fleet.cache_monthly.value()));
  }
  return out;
}

}  // namespace

std::string lever_details(const LeverResult& r, const std::string& name, bool md,
                          bool with_change) {
  const char* bullet = md ? "- " : "  ";
  std::string out = fmt::format("{}{}{}{} ({})\n", md ? "\n**" : "", name, md ? "**" : "",
                                md ? "" : ":", optimize::to_string(r.status));
  if (with_change) {
    out += fmt::format("{}change: {}\n", bullet, optimize::describe(r.change));
    if (r.status == LeverStatus::kRejected)
      out += fmt::format("{}red line: {}\n", bullet, r.red_line.why);
    out += fmt::format("{}risk: {}\n", bullet, r.risk.why);
    out += fmt::format("{}first step: {}\n", bullet, r.rollout.validation);
    out += fmt::format("{}proof: {}\n", bullet, r.rollout.metric);
    out += fmt::format("{}stop-loss: {}\n", bullet, r.rollout.stop_loss);
  }
  for (const auto& n : r.notes) out += fmt::format("{}note: {}\n", bullet, n);
  return out;
}

namespace {

std::string render_csv(const optimize::OptimizeResult& res) {
  Table t;
  t.header = {
      "record",          "id",         "category",  "status",     "saving_usd", "saving_pct",
      "wall_days_delta", "total_usd",  "wall_days", "risk_level", "risk_kinds", "red_line",
      "change",          "validation", "metric",    "stop_loss",  "why",        "sla_effect"};
  auto num = [](const std::optional<double>& v, const char* f) {
    return v ? fmt::format(fmt::runtime(f), *v) : std::string();
  };
  const auto& b = res.baseline;
  t.rows.push_back({"baseline", "", "", "", "", "", "", fmt::format("{:.2f}", b.total_usd()),
                    b.serving ? "" : fmt::format("{:.6g}", b.wall_days())});
  for (const auto& r : res.levers) {
    std::string kinds;
    for (const auto& k : r.risk.kinds) kinds += (kinds.empty() ? "" : ";") + k;
    t.rows.push_back(
        {"lever", r.id, r.category, optimize::to_string(r.status), num(r.saving_usd, "{:.2f}"),
         r.saving_pct ? fmt::format("{:.6g}", *r.saving_pct * 100) : "",
         num(r.wall_days_delta, "{:.6g}"), num(r.total_usd, "{:.2f}"), num(r.wall_days, "{:.6g}"),
         evaluated(r) ? optimize::to_string(r.risk.level) : "", kinds,
         evaluated(r) ? (r.red_line.ok ? "ok" : r.red_line.why) : "", optimize::describe(r.change),
         r.rollout.validation, r.rollout.metric, r.rollout.stop_loss, r.why,
         r.sla_effect ? sla_text(*r.sla_effect) : ""});
  }
  const auto& c = res.combined;
  std::string ids;
  for (const auto& id : c.levers) ids += (ids.empty() ? "" : ";") + id;
  t.rows.push_back(
      {"combined", ids, "", "", fmt::format("{:.2f}", c.saving_usd),
       fmt::format("{:.6g}", b.total_usd() > 0 ? 100 * c.saving_usd / b.total_usd() : 0),
       b.serving ? "" : fmt::format("{:.6g}", c.wall_days - b.wall_days()),
       fmt::format("{:.2f}", c.total_usd), b.serving ? "" : fmt::format("{:.6g}", c.wall_days),
       optimize::to_string(c.risk), "", "", optimize::describe(c.change), "", "", "", "",
       c.sla_effect ? sla_text(*c.sla_effect) : ""});
  return render(t, Format::kCsv);
}

std::string render_text(const optimize::OptimizeResult& res, Format f) {
  const bool md = f == Format::kMarkdown;
  const auto& b = res.baseline;
  const auto& c = res.combined;
  const bool serving = b.serving.has_value();
  std::string out = fmt::format("{}aicost optimize: {}\n", md ? "## " : "", res.plan);
  if (serving) {
    out += fmt::format("{}baseline: {} USD a month ({:g} h): {}\n", md ? "\n" : "",
                       core::group_digits(b.total_usd()), core::kHoursPerMonth,
                       serving_fleet_text(*b.serving));
  } else {
    out += fmt::format(
        "{}baseline: {} USD, {:.2f} wall days, MFU {:.1f} % ({:.1f} % of the BF16 peak)\n",
        md ? "\n" : "", core::group_digits(b.total_usd()), b.wall_days(), 100 * b.perf.mfu,
        100 * optimize::mfu_bf16(b));
  }
  std::string lines;
  const auto& g = res.guardrails;
  lines += fmt::format("max risk {}", optimize::to_string(g.max_risk));
  if (serving) {
    lines += fmt::format(", capacity buffer >= {:.0f} %", 100 * g.capacity_buffer);
    if (b.serving->fleet.run) {
      lines +=
          fmt::format(", requests over the SLA <= {:.2f} %{}", 100 * optimize::over_sla_limit(b, g),
                      g.max_over_sla ? "" : " (a tenth of the SLA percentile's misses)");
    }
  }
  // Retention, recovery, MFU and security are training lines; a serving plan has none of them.
  for (const auto& [kind, min] : g.min_retention) {
    if (serving) break;
    lines += fmt::format(", {} kept >= {}", kind,
                         core::in_days(min) >= 1 ? fmt::format("{:.0f} d", core::in_days(min))
                                                 : fmt::format("{:.1f} h", core::in_hours(min)));
  }
  if (g.max_recovery && !serving)
    lines += fmt::format(", recovery <= {:.1f} h", core::in_hours(*g.max_recovery));
  if (g.min_mfu && !serving) lines += fmt::format(", MFU >= {:.0f} %", 100 * *g.min_mfu);
  if (g.max_data_stall && !serving) {
    lines += fmt::format(", data-loading stall <= {:.1f} % of a step", 100 * *g.max_data_stall);
  }
  if (!serving) lines += ", no cut in security spend";
  if (res.limits.deadline_days)
    lines += fmt::format(", deadline {:.0f} days (plan)", *res.limits.deadline_days);
  out += fmt::format("red lines ({}): {}\n", g.source, lines);

  Table ranked;
  ranked.title = "Levers, by saving";
  ranked.header = {"lever", "saving_usd", "saving", serving ? "sla_effect" : "wall_days_delta",
                   "risk",  "red_line",   "status"};
  ranked.right_align = {false, true, true, !serving, false, false, false};
  Table others;
  others.title = "Levers not applied";
  others.header = {"lever", "status", "why"};
  for (const auto& r : res.levers) {
    if (evaluated(r) && r.status != LeverStatus::kNoSaving) {
      ranked.rows.push_back(
          {r.id, core::group_digits(*r.saving_usd), fmt::format("{:.1f} %", 100 * *r.saving_pct),
           r.sla_effect ? sla_text(*r.sla_effect) : fmt::format("{:+.2f}", *r.wall_days_delta),
           risk_text(r), r.red_line.ok ? "ok" : "crossed", optimize::to_string(r.status)});
    } else {
      others.rows.push_back({r.id, optimize::to_string(r.status), r.why});
    }
  }
  if (ranked.rows.empty()) {
    out += "\nNo lever saves money on this plan.\n";
  } else {
    out += "\n" + render(ranked, f);
  }
  // What each ranked lever changes, why it is risky, and how to roll it out.
  out += md ? "\n### Changes, risks and rollout\n" : "\nChanges, risks and rollout\n";
  for (const auto& r : res.levers) {
    if (!evaluated(r) || r.status == LeverStatus::kNoSaving) continue;
    out += lever_details(r, r.id, md, true);
  }
  if (!others.rows.empty()) out += "\n" + render(others, f);

  out += md ? "\n### Combined plan\n\n"
            : "\nCombined plan (accepted levers together, low risk first, estimated as one plan)\n";
  if (c.levers.empty()) {
    out += "  no lever is accepted: the plan stays as it is\n";
  } else {
    const double pct = b.total_usd() > 0 ? 100 * c.saving_usd / b.total_usd() : 0;
    Table s;
    s.header = {"step", "lever", "total_usd", "saving_usd"};
    if (!serving) s.header.push_back("wall_days");
    s.right_align = {true, false, true, true, true};
    int i = 0;
    for (const auto& st : c.steps) {
      s.rows.push_back({std::to_string(++i), st.retuned ? st.id + " (second pass)" : st.id,
                        core::group_digits(st.total_usd), core::group_digits(st.saving_usd)});
      if (!serving) s.rows.back().push_back(fmt::format("{:.2f}", st.wall_days));
    }
    out += md ? render(s, f) : indent(render(s, f), 2);
    if (serving) {
      out += fmt::format(
          "{}total {} USD a month ({} USD, {:.1f} %): {}; SLA effect: {}; risk up to {}\n",
          md ? "\n" : "  ", core::group_digits(c.total_usd), signed_usd(-c.saving_usd), -pct,
          serving_fleet_text(*c.plan.serving), sla_text(*c.sla_effect),
          optimize::to_string(c.risk));
    } else {
      out += fmt::format(
          "{}total {} USD ({} USD, {:.1f} %), {:.2f} wall days ({:+.2f}), risk up to {}\n",
          md ? "\n" : "  ", core::group_digits(c.total_usd), signed_usd(-c.saving_usd), -pct,
          c.wall_days, c.wall_days - b.wall_days(), optimize::to_string(c.risk));
    }
    out += fmt::format(
        "{}the same levers' savings alone add up to {} USD: they interact, so the "
        "combined plan is estimated as one plan\n",
        md ? "\n" : "  ", core::group_digits(c.sum_of_savings));
    out += fmt::format("{}change: {}\n", md ? "\n" : "  ", optimize::describe(c.change));
  }
  for (const auto& [id, why] : c.skipped)
    out += fmt::format("{}left out: {}: {}\n", md ? "- " : "  ", id, why);
  // A table's warnings go to standard error (the command prints them); Markdown keeps them.
  if (md && !res.warnings.empty()) {
    out += "\n";
    for (const auto& w : res.warnings) out += "- warning: " + w + "\n";
  }
  return out;
}

}  // namespace

std::string render_optimize(const optimize::OptimizeResult& result, Format format) {
  switch (format) {
    case Format::kJson: return render_optimize_json(result);
    case Format::kCsv: return render_csv(result);
    case Format::kTable:
    case Format::kMarkdown: return render_text(result, format);
    case Format::kHtml: {
      std::string numbers = render_text(result, Format::kTable);
      for (const auto& w : result.warnings) numbers += "warning: " + w + "\n";
      return html_page("aicost optimize: " + result.plan, optimize_charts(result.levers, "USD"),
                       numbers);
    }
  }
  return {};
}

}  // namespace aicost::report
