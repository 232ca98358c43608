#include "aicost/report/reliability_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "aicost/core/text.h"
#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"
#include "json.h"
#include "rounding.h"

namespace aicost::report {

namespace {

using core::in_days;
using core::in_hours;

double hours(double seconds) { return seconds / core::kSecondsPerHour; }
double days(double seconds) { return seconds / core::kSecondsPerDay; }
std::string f1(double x) { return fmt::format("{:.1f}", x); }

Table causes(const ReliabilityView& v) {
  const auto& in = *v.inputs;
  Table t;
  t.title = "Interrupts by cause";
  t.header = {"cause", "per_gpu_mtbf_h", "share_pct", "expected", "nodes_lost", "repair_h"};
  t.right_align = {false, true, true, true, true, true};
  const auto shares = in.failures.cause_shares();
  const double n = v.analysis->expected.interruptions;
  for (size_t i = 0; i < in.failures.causes.size(); ++i) {
    const auto& c = in.failures.causes[i];
    t.rows.push_back({c.name, core::group_digits(c.per_gpu_hour > 0 ? 1 / c.per_gpu_hour : 0),
                      f1(shares[i] * 100), f1(n * shares[i]), std::to_string(c.nodes_lost),
                      f1(in_hours(c.repair_time))});
  }
  return t;
}

Table kv(std::string title, std::vector<std::pair<std::string, std::string>>&& rows) {
  Table t;
  t.title = std::move(title);
  t.header = {"", "value"};
  t.right_align = {false, false};
  for (auto& [k, v] : rows) t.rows.push_back({std::move(k), std::move(v)});
  return t;
}

std::vector<std::string> assumptions(const ReliabilityView& v) {
  const auto& in = *v.inputs;
  const auto& r = in.restart;
  std::vector<std::string> out;
  out.push_back(r.fixed_total
                    ? fmt::format("restart takes {:.1f} min (the plan's restart_time)",
                                  r.fixed_total->value() / 60)
                    : fmt::format("restart = detection {:.0f} s + rescheduling {:.0f} s + "
                                  "initialisation {:.0f} s + checkpoint load {:.0f} s",
                                  r.detection.value(), r.rescheduling.value(),
                                  r.initialisation.value(), in.checkpoint.read_time().value()));
  out.push_back(fmt::format("a checkpoint of {} blocks training for {:.1f} s ({})",
                            core::format_bytes(in.checkpoint.size.value()),
                            in.checkpoint.blocking().value(),
                            in.checkpoint.async ? "asynchronous: the device-to-host copy only"
                                                : "synchronous: the whole write"));
  out.push_back(std::string("interrupts are ") +
                (in.failures.distribution == reliability::Distribution::kWeibull
                     ? fmt::format("Weibull (shape {:.2f}) in the simulation, exponential in the "
                                   "closed form",
                                   in.failures.weibull_shape)
                     : "exponential (Poisson)"));
  out.push_back(
      "failed nodes return after each cause's repair time (exponential in the simulation)");
  if (in.failures.maintenance_per_day > 0) {
    out.push_back(fmt::format(
        "planned maintenance every {:.1f} h, taken at a checkpoint, {:.0f} min "
        "down + a restart",
        24 / in.failures.maintenance_per_day, in.failures.maintenance_downtime.value() / 60));
  }
  return out;
}

std::string render_json(const ReliabilityView& v) {
  const auto& in = *v.inputs;
  const auto& a = *v.analysis;
  Json j;
  j["schema_version"] = 1;
  j["plan"] = v.plan_name;
  j["gpus"] = in.gpus;
  j["work_days"] = sig(in_days(in.work));
  Json causes = Json::array();
  const auto shares = in.failures.cause_shares();
  for (size_t i = 0; i < in.failures.causes.size(); ++i) {
    const auto& c = in.failures.causes[i];
    causes.push_back({{"cause", c.name},
                      {"per_gpu_mtbf_h", sig(c.per_gpu_hour > 0 ? 1 / c.per_gpu_hour : 0)},
                      {"share", sig(shares[i])},
                      {"nodes_lost", c.nodes_lost},
                      {"repair_h", sig(in_hours(c.repair_time))}});
  }
  j["causes"] = causes;
  j["job_mtbf_h"] = sig(in_hours(a.job_mtbf));
  j["checkpoint"] = {{"size_gb", sig(in.checkpoint.size.value() / 1e9)},
                     {"write_s", sig(in.checkpoint.write_time().value())},
                     {"blocking_s", sig(a.blocking.value())},
                     {"read_s", sig(in.checkpoint.read_time().value())}};
  j["restart_s"] = sig(a.restart.value());
  j["interval_min"] = {{"young", sig(a.young.value() / 60)},
                       {"daly", sig(a.daly.value() / 60)},
                       {"exact", sig(a.exact.value() / 60)},
                       {"cost_optimal", sig(a.cost_optimal.value() / 60)},
                       {"used", sig(a.interval.value() / 60)}};
  const auto& e = a.expected;
  j["expected"] = {{"wall_days", sig(in_days(e.wall()))},
                   {"ettr", sig(e.ettr())},
                   {"interruptions", sig(e.interruptions)},
                   {"checkpoints_h", sig(in_hours(e.checkpoints))},
                   {"lost_work_h", sig(in_hours(e.lost_work))},
                   {"restarts_h", sig(in_hours(e.restarts))},
                   {"compute_usd", cents(a.wall_usd)},
                   {"checkpoint_storage_usd", cents(a.checkpoint_storage_usd)}};
  if (v.simulation) {
    const auto& s = *v.simulation;
    const double gpus =
        in.gpus + static_cast<double>(std::max(0, v.spare_nodes)) * in.gpus_per_node;
    const double usd_per_s = in.fleet_rate.value() / in.gpus * gpus;
    auto band = [&](const reliability::Summary& x, double scale) {
      return Json{{"mean", sig(x.mean * scale)},
                  {"p10", sig(x.p10 * scale)},
                  {"p50", sig(x.p50 * scale)},
                  {"p90", sig(x.p90 * scale)}};
    };
    j["simulation"] = {{"runs", s.runs},
                       {"seed", v.seed},
                       {"spare_nodes", v.spare_nodes},
                       {"wall_days", band(s.wall_s, 1 / core::kSecondsPerDay)},
                       {"gpu_hours", band(s.wall_s, gpus / core::kSecondsPerHour)},
                       {"compute_usd", band(s.wall_s, usd_per_s)},
                       {"ettr", band(s.ettr, 1)},
                       {"interruptions", band(s.interruptions, 1)},
                       {"mean_h",
                        {{"checkpoints", sig(hours(s.checkpoints))},
                         {"lost_work", sig(hours(s.lost_work))},
                         {"restarts", sig(hours(s.restarts))},
                         {"stalls", sig(hours(s.stalls))},
                         {"maintenance", sig(hours(s.maintenance))}}}};
  }
  if (v.spares) {
    Json opts = Json::array();
    for (const auto& o : v.spares->options) {
      opts.push_back({{"spare_nodes", o.spare_nodes},
                      {"mean_wall_days", sig(days(o.mean_wall_s))},
                      {"p90_wall_days", sig(days(o.p90_wall_s))},
                      {"stall_share", sig(o.stall_share)},
                      {"mean_usd", cents(o.mean_usd)}});
    }
    j["spares"] = {{"options", opts},
                   {"cheapest", v.spares->options[v.spares->cheapest].spare_nodes}};
  }
  Json levers = Json::array();
  for (const auto& l : a.levers) {
    levers.push_back({{"lever", l.name},
                      {"wall_days", sig(l.wall_days)},
                      {"saved_days", sig(l.saved_days)},
                      {"saved_usd", cents(l.saved_usd)}});
  }
  j["levers"] = levers;
  j["assumptions"] = assumptions(v);
  return json_text(j) + "\n";
}

}  // namespace

// CSV: one row per figure (metric, value), from the JSON document flattened with '.' paths.
std::string render_csv(const ReliabilityView& v) {
  const Json j = Json::parse(render_json(v));
  Table t;
  t.header = {"metric", "value"};
  std::function<void(const std::string&, const Json&)> walk = [&](const std::string& path,
                                                                  const Json& x) {
    if (x.is_object()) {
      for (auto it = x.begin(); it != x.end(); ++it)
        walk(path.empty() ? it.key() : path + "." + it.key(), *it);
    } else if (x.is_array()) {
      for (size_t i = 0; i < x.size(); ++i) walk(path + "." + std::to_string(i), x[i]);
    } else {
      t.rows.push_back({path, x.is_string() ? x.get<std::string>() : json_text(x, -1)});
    }
  };
  walk("", j);
  return render(t, Format::kCsv);
}

std::string render_reliability(const ReliabilityView& v, Format f) {
  if (f == Format::kJson) return render_json(v);
  if (f == Format::kCsv) return render_csv(v);
  if (f == Format::kHtml)
    return html_page("aicost reliability: " + v.plan_name, reliability_charts(v),
                     render_reliability(v, Format::kTable));
  const auto& in = *v.inputs;
  const auto& a = *v.analysis;
  const auto& e = a.expected;
  std::string out =
      fmt::format("aicost reliability: {} ({} GPUs, {:.1f} days of failure-free compute)\n",
                  v.plan_name, in.gpus, in_days(in.work));
  out += "\n" + render(causes(v), f);
  out +=
      "\n" +
      render(kv("Checkpoint and restart",
                {{"job MTBF", fmt::format("{:.2f} h", in_hours(a.job_mtbf))},
                 {"checkpoint size", core::format_bytes(in.checkpoint.size.value())},
                 {"write / blocking / read",
                  fmt::format("{:.1f} s / {:.1f} s / {:.1f} s", in.checkpoint.write_time().value(),
                              a.blocking.value(), in.checkpoint.read_time().value())},
                 {"restart", fmt::format("{:.1f} min", a.restart.value() / 60)}}),
             f);
  out +=
      "\n" + render(kv("Checkpoint interval",
                       {{"Young sqrt(2 delta M)", fmt::format("{:.1f} min", a.young.value() / 60)},
                        {"Daly higher order", fmt::format("{:.1f} min", a.daly.value() / 60)},
                        {"exact (Lambert W)", fmt::format("{:.1f} min", a.exact.value() / 60)},
                        {"cost-optimal (with storage)",
                         fmt::format("{:.1f} min", a.cost_optimal.value() / 60)},
                        {"used", fmt::format("{:.1f} min{}", a.interval.value() / 60,
                                             in.interval ? " (the plan's)" : "")}}),
                    f);
  out += "\n" +
         render(kv("Expected (closed form, exponential interrupts)",
                   {{"wall days", fmt::format("{:.2f}", in_days(e.wall()))},
                    {"ETTR", fmt::format("{:.1f} %", e.ettr() * 100)},
                    {"interruptions", f1(e.interruptions)},
                    {"lost work", fmt::format("{:.1f} h", in_hours(e.lost_work))},
                    {"restarts", fmt::format("{:.1f} h", in_hours(e.restarts))},
                    {"checkpoint stalls", fmt::format("{:.1f} h", in_hours(e.checkpoints))},
                    {"GPU time (USD)", core::group_digits(a.wall_usd)},
                    {"checkpoint storage (USD)", core::group_digits(a.checkpoint_storage_usd)}}),
                f);
  if (v.simulation) {
    const auto& s = *v.simulation;
    const double gpus =
        in.gpus + static_cast<double>(std::max(0, v.spare_nodes)) * in.gpus_per_node;
    const double usd_per_s = in.fleet_rate.value() / in.gpus * gpus;
    Table t;
    t.title = fmt::format("Simulation: {} runs, seed {}, {}", s.runs, v.seed,
                          v.spare_nodes < 0 ? std::string("replacement nodes always available")
                                            : fmt::format("{} spare nodes", v.spare_nodes));
    t.header = {"", "mean", "p10", "p50", "p90"};
    t.right_align = {false, true, true, true, true};
    auto row = [&](const char* name, const reliability::Summary& x, double scale, int decimals) {
      auto n = [&](double y) {
        return decimals == 0 ? core::group_digits(y * scale)
                             : fmt::format("{:.{}f}", y * scale, decimals);
      };
      t.rows.push_back({name, n(x.mean), n(x.p10), n(x.p50), n(x.p90)});
    };
    row("wall days", s.wall_s, 1 / core::kSecondsPerDay, 2);
    row("GPU-hours (incl. spares)", s.wall_s, gpus / core::kSecondsPerHour, 0);
    row("GPU time (USD)", s.wall_s, usd_per_s, 0);
    row("ETTR (%)", s.ettr, 100, 1);
    row("interruptions", s.interruptions, 1, 1);
    out += "\n" + render(t, f);
    out += fmt::format(
        "  mean losses: lost work {:.1f} h, restarts {:.1f} h, checkpoint stalls {:.1f} h, "
        "waiting for spares {:.1f} h, maintenance {:.1f} h\n",
        hours(s.lost_work), hours(s.restarts), hours(s.checkpoints), hours(s.stalls),
        hours(s.maintenance));
  }
  if (v.spares) {
    Table t;
    t.title = "Spare nodes (simulated; spares paid for the whole run)";
    t.header = {"spare_nodes", "mean_days", "p90_days", "stall_pct", "gpu_time_usd", "note"};
    t.right_align = {true, true, true, true, true, false};
    for (size_t i = 0; i < v.spares->options.size(); ++i) {
      const auto& o = v.spares->options[i];
      std::string mark;
      if (static_cast<int>(i) == v.spares->cheapest) mark = "cheapest";
      if (static_cast<int>(i) == v.spares->meets_target)
        mark += mark.empty() ? "stalls <= 0.1 %" : ", stalls <= 0.1 %";
      t.rows.push_back({std::to_string(o.spare_nodes), fmt::format("{:.2f}", days(o.mean_wall_s)),
                        fmt::format("{:.2f}", days(o.p90_wall_s)),
                        fmt::format("{:.2f}", o.stall_share * 100), core::group_digits(o.mean_usd),
                        mark});
    }
    out += "\n" + render(t, f);
  }
  Table levers;
  levers.title = "What each lever is worth (closed form)";
  levers.header = {"lever", "wall_days", "saved_days", "saved_usd"};
  levers.right_align = {false, true, true, true};
  for (const auto& l : a.levers) {
    levers.rows.push_back({l.name, fmt::format("{:.2f}", l.wall_days),
                           core::group_digits(l.saved_days, 2), core::group_digits(l.saved_usd)});
  }
  out += "\n" + render(levers, f);
  out += "\nThese numbers rest on:\n";
  for (const auto& s : assumptions(v)) out += "  - " + s + "\n";
  return out;
}

}  // namespace aicost::report
