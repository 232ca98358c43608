#include "aicost/report/estimate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "aicost/core/quantity.h"
#include "aicost/core/text.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"
#include "estimate_parts.h"
#include "json.h"
#include "owned_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

struct Section {
  std::string title;
  std::vector<Table> tables;
  std::vector<std::string> notes;
};

Table kv(std::vector<std::vector<std::string>> rows) {
  return Table{{"metric", "value"}, std::move(rows), {false, false}, ""};
}

std::string render_sections(const std::vector<Section>& sections, Format f) {
  std::string out;
  for (const auto& s : sections) {
    if (f == Format::kMarkdown) {
      out += "## " + s.title + "\n\n";
      for (const auto& t : s.tables) out += render(t, f) + "\n";
      for (const auto& n : s.notes) out += "- " + n + "\n";
      if (!s.notes.empty()) out += "\n";
      continue;
    }
    out += s.title + "\n";
    for (const auto& t : s.tables) {
      if (&t != &s.tables.front()) out += "\n";
      Table shown = t;
      if (shown.header == std::vector<std::string>{"metric", "value"}) shown.header.clear();
      out += indent(render(shown, Format::kTable), 2);
    }
    for (const auto& n : s.notes) out += "  " + n + "\n";
    out += "\n";
  }
  return out;
}

// " (80 %: lo .. hi)" after a figure, when the estimate has an interval.
std::string range(const EstimateView& v, costing::Range r, std::string (*f)(double)) {
  if (v.interval == nullptr || !v.interval->band.known) return "";
  return " (80 %: " + f(r.lo) + " .. " + f(r.hi) + ")";
}
std::string seconds3(double x) { return fmt::format("{:.3f}", x); }
std::string days2(double x) { return fmt::format("{:.2f}", x); }
std::string digits(double x) { return core::group_digits(x); }

std::vector<Section> build_sections(const EstimateView& v) {
  const auto& p = *v.perf;
  const auto& c = *v.cost;
  std::vector<Section> out;
  const costing::EstimateInterval none;
  const auto& iv = v.interval != nullptr ? *v.interval : none;

  Section perf{"Performance", {}, {}};
  perf.tables.push_back(kv({
      {"step time",
       fmt::format("{:.3f} s", p.step_time.value()) + range(v, iv.step_time_s, seconds3)},
      {"tokens/s", core::group_digits(p.tokens_per_s)},
      {"tokens/s per GPU", core::group_digits(p.tokens_per_s_per_gpu)},
      {"MFU", pct(p.mfu)},
      {"HFU", pct(p.hfu)},
      {"TFLOP/s per GPU",
       fmt::format("{:.1f} of {:.1f} peak ({})", p.model_flops_per_gpu.value() / 1e12,
                   p.peak_per_gpu.value() / 1e12, catalog::to_string(p.peak_precision))},
      {"steps", core::group_digits(p.steps)},
      {"compute days (failure-free)", fmt::format("{:.2f}", core::in_days(p.compute_time))},
      {"wall days (incl. failures)",
       fmt::format("{:.2f}", core::in_days(c.wall_time)) + range(v, iv.wall_days, days2)},
      {"GPU-hours (incl. failures)",
       core::group_digits(c.gpu_hours) + range(v, iv.gpu_hours, digits)},
  }));
  Table steps{{"part", "seconds", "share of step"}, {}, {false, true, true}, ""};
  for (const auto& [name, s] : step_parts(p.step)) {
    steps.rows.push_back(
        {name, fmt::format("{:.3f}", s.value()), pct(share(s.value(), p.step_time.value()))});
  }
  steps.rows.push_back({"step", fmt::format("{:.3f}", p.step_time.value()),
                        pct(share(p.step.total().value(), p.step_time.value()))});
  perf.tables.push_back(std::move(steps));
  perf.notes.push_back(std::string("MFU counts model FLOPs as ") + kFlopConvention);
  if (v.interval != nullptr && iv.band.known) perf.notes.push_back(interval_note(iv.band));
  out.push_back(std::move(perf));

  Section mem{"Memory per GPU", {}, {}};
  Table parts{{"part", "GiB"}, {}, {false, true}, ""};
  for (const auto& [name, b] : memory_parts(p.memory)) {
    parts.rows.push_back({name, fmt::format("{:.1f}", core::in_gib(b))});
  }
  mem.tables.push_back(std::move(parts));
  mem.notes.push_back(fmt::format("peak {:.1f} GiB of {:.1f} GiB ({})",
                                  core::in_gib(p.memory.total()), core::in_gib(p.memory.capacity),
                                  p.memory.verdict()));
  out.push_back(std::move(mem));

  const auto& f = c.failures;
  Section rel{"Reliability", {}, {}};
  rel.tables.push_back(kv({
      {"job MTBF", fmt::format("{:.1f} h", core::in_hours(f.job_mtbf))},
      {"checkpoint every", fmt::format("{:.1f} min", f.checkpoint_interval.value() / 60)},
      {"checkpoint stall", fmt::format("{:.1f} s per save", f.checkpoint_blocking.value())},
      {"checkpoint size", core::format_bytes(f.checkpoint_size.value())},
      {"expected interruptions", fmt::format("{:.1f}", f.expected_interruptions)},
      {"failure overhead",
       fmt::format("{:.1f} h (lost work {:.1f}, restarts {:.1f}, saves {:.1f}, maintenance {:.1f})",
                   core::in_hours(f.total()), core::in_hours(f.lost_work),
                   core::in_hours(f.restart_time), core::in_hours(f.checkpoint_time),
                   core::in_hours(f.maintenance))},
      {"goodput", pct(f.goodput)},
  }));
  if (v.simulation) {
    const auto& s = *v.simulation;
    const double gpu_hours_per_s = c.gpu_hours / c.wall_time.value();
    const double usd_per_s = c.total.value() / c.wall_time.value();
    Table bands{{"simulated", "mean", "p10", "p50", "p90"},
                {},
                {false, true, true, true, true},
                fmt::format("Monte Carlo: {} runs, seed {}", s.runs, v.simulation_seed)};
    auto row = [&](const char* name, const reliability::Summary& x, double scale, bool money) {
      auto n = [&](double y) {
        return money ? core::group_digits(y * scale) : fmt::format("{:.2f}", y * scale);
      };
      bands.rows.push_back({name, n(x.mean), n(x.p10), n(x.p50), n(x.p90)});
    };
    row("wall days", s.wall_s, 1 / core::kSecondsPerDay, false);
    row("GPU-hours", s.wall_s, gpu_hours_per_s, true);
    row("total USD", s.wall_s, usd_per_s, true);
    row("ETTR", s.ettr, 1, false);
    rel.tables.push_back(std::move(bands));
  }
  out.push_back(std::move(rel));

  Section cost{"Cost", {}, {}};
  Table lines{{"category", "USD", "share", "USD/month", "nature", "driver"},
              {},
              {false, true, true, true, false, false},
              ""};
  for (const auto& l : c.lines) {
    lines.rows.push_back({l.category, core::group_digits(l.amount.value()),
                          pct(share(l.amount.value(), c.total.value())),
                          core::group_digits(l.average_rate.value() * core::kSecondsPerMonth),
                          nature_name(l.nature), cost_driver(v, l)});
  }
  cost.tables.push_back(std::move(lines));
  std::vector<std::vector<std::string>> summary = {
      {"total", core::group_digits(c.total.value()) + " USD" + range(v, iv.total_usd, digits)},
      {"per 1M tokens", core::group_digits(c.per_million_tokens.value(), 2) + " USD"},
      {"fixed", fmt::format("{} USD ({})", core::group_digits(c.fixed.value()),
                            pct(share(c.fixed.value(), c.total.value())))},
      {"elastic", fmt::format("{} USD ({})", core::group_digits(c.elastic.value()),
                              pct(share(c.elastic.value(), c.total.value())))},
      {"peak storage", core::format_bytes(c.peak_storage.value())}};
  if (v.inputs != nullptr) summary.push_back({"price basis", v.inputs->compute.basis});
  cost.tables.push_back(kv(std::move(summary)));
  cost.notes.push_back(fmt::format("a month is {:g} hours (USD/month: average over the wall time)",
                                   core::kHoursPerMonth));
  out.push_back(std::move(cost));
  if (v.inputs != nullptr && v.inputs->compute.owned) {
    const auto& owned = *v.inputs->compute.owned;
    out.push_back(Section{"Owned GPUs (pricing.mode owned)", owned_tables(owned, c.wall_time),
                          owned_notes(owned, c.wall_time)});
  }
  return out;
}

std::string header_block(const EstimateView& v, Format f) {
  const auto& job = *v.job;
  const auto& par = job.parallel;
  const auto& m = job.model;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"model",
       fmt::format("{}: {} params ({} active), {} layers, hidden {}", m.spec().id,
                   count(m.params_total()), count(m.params_active()), m.layers(), m.hidden())},
      {"GPUs", fmt::format("{} x {} ({} per node)", core::group_digits(job.cluster.gpus),
                           job.cluster.gpu.id, job.cluster.gpus_per_node)},
      {"parallelism",
       fmt::format("TP {}, PP {}, VPP {}, CP {}, EP {}, DP {}; micro-batch {} x {} micro-batches; "
                   "SP {}; recompute {}; optimizer sharding {}",
                   par.tensor, par.pipeline, par.virtual_pipeline, par.context, par.expert,
                   job.data_parallel(), par.micro_batch, job.micro_batches(),
                   on_off(par.sequence_parallel), workload::to_string(par.recompute),
                   workload::to_string(par.sharding))},
      {"training",
       fmt::format("{} tokens, sequence {}, global batch {}, {}", core::group_digits(job.tokens),
                   job.seq_length, job.global_batch, catalog::to_string(job.precision))}};
  std::string out;
  if (f == Format::kMarkdown) {
    out += "# aicost estimate: " + v.plan_name + "\n\n";
    for (const auto& [k, val] : rows)
      out.append("- **").append(k).append("**: ").append(val).append("\n");
    return out + "\n";
  }
  out += "aicost estimate: " + v.plan_name + "\n";
  Table t;
  for (const auto& [k, val] : rows) t.rows.push_back({k, val});
  return out + indent(render(t, Format::kTable), 2) + "\n";
}

std::string render_csv(const EstimateView& v) {
  const Json j = Json::parse(render_estimate_json(v));  // the same figures as -o json
  Table t{{"record", "name", "value", "unit", "share", "nature", "detail"}, {}, {}, ""};
  auto num = [](const Json& x) { return x.is_null() ? std::string() : json_text(x, -1); };
  auto text = [](const Json& x) { return x.is_string() ? x.get<std::string>() : json_text(x, -1); };
  t.rows.push_back({"input", "plan", v.plan_name, "", "", "", ""});
  t.rows.push_back({"input", "model", text(j["model"]["id"]), "", "", "", ""});
  t.rows.push_back({"input", "gpu", text(j["cluster"]["gpu"]), "", "", "", ""});
  t.rows.push_back({"input", "gpus", num(j["cluster"]["gpus"]), "GPU", "", "", ""});
  for (const auto& l : j["cost"]["lines"]) {
    t.rows.push_back({"cost", text(l["category"]), num(l["usd"]), "USD", num(l["share"]),
                      text(l["nature"]), text(l["driver"])});
  }
  const auto& tr = j["training"];
  const auto& c = j["cost"];
  const std::vector<std::tuple<const char*, Json, const char*, Json>> summary = {
      {"total", c["total_usd"], "USD", 1},
      {"per_million_tokens", c["per_million_tokens_usd"], "USD", nullptr},
      {"fixed", c["fixed_usd"], "USD", sig(share(v.cost->fixed.value(), v.cost->total.value()))},
      {"elastic", c["elastic_usd"], "USD",
       sig(share(v.cost->elastic.value(), v.cost->total.value()))},
      {"peak_storage", c["peak_storage_gb"], "GB", nullptr},
      {"step_time", tr["step_time_s"], "s", nullptr},
      {"tokens_per_s", tr["tokens_per_s"], "tokens/s", nullptr},
      {"tokens_per_s_per_gpu", tr["tokens_per_s_per_gpu"], "tokens/s", nullptr},
      {"mfu", tr["mfu"], "ratio", nullptr},
      {"hfu", tr["hfu"], "ratio", nullptr},
      {"tflops_per_gpu", tr["tflops_per_gpu"], "TFLOP/s", nullptr},
      {"steps", tr["steps"], "steps", nullptr},
      {"compute_days", tr["compute_days"], "d", nullptr},
      {"wall_days", tr["wall_days"], "d", nullptr},
      {"gpu_hours", tr["gpu_hours"], "GPU-h", nullptr},
      {"goodput", tr["goodput"], "ratio", nullptr},
      {"memory_peak", tr["memory"]["peak_gib"], "GiB", nullptr},
      {"memory_capacity", tr["memory"]["capacity_gib"], "GiB", nullptr}};
  for (const auto& [name, value, unit, sh] : summary) {
    t.rows.push_back({"summary", name, num(value), unit, num(sh), "", ""});
  }
  if (c.contains("owned")) {
    const auto& o = c["owned"];
    for (const auto& p : o["parts"]) {
      t.rows.push_back({"owned", text(p["part"]), num(p["per_gpu_hour_usd"]), "USD/GPU-h",
                        num(sig(p["per_gpu_hour_usd"].get<double>() /
                                o["price_per_gpu_hour_usd"].get<double>())),
                        text(p["nature"]), text(p["driver"])});
    }
    t.rows.push_back(
        {"owned", "total", num(o["price_per_gpu_hour_usd"]), "USD/GPU-h", "1", "", ""});
    for (const auto& b : o["break_even"]) {
      t.rows.push_back({"break_even", text(b["instance"]) + " " + text(b["mode"]), num(b["months"]),
                        "months", "", "",
                        "rent " + num(b["price_per_gpu_hour_usd"]) + " USD/GPU-h"});
    }
  }
  for (const auto& w : j["warnings"]) t.rows.push_back({"warning", "", "", "", "", "", text(w)});
  return render(t, Format::kCsv);
}

}  // namespace

std::string interval_note(const perf::Interval& b) {
  const auto runs = [](int n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); };
  if (!b.little_data) {
    return fmt::format(
        "80 % interval: cross-validated error of {} ({} from {} sources), widened x{:.2f} "
        "for the number of sources",
        b.pool, runs(b.pool_rows), b.pool_groups, b.widening);
  }
  return fmt::format(
      "80 % interval, little data: {} has {} in the validation set; the band of {} ({} from "
      "{} sources) widened x{:.2f}{}",
      b.regime, runs(b.regime_rows), b.pool, runs(b.pool_rows), b.pool_groups, b.widening,
      b.regime_rows > 0 ? " and stretched to cover them" : "");
}

std::vector<std::string> collect_warnings(const EstimateView& v) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::vector<std::string>& ws) {
    for (const auto& w : ws) {
      if (seen.insert(w).second) out.push_back(w);
    }
  };
  add(v.warnings);
  if (v.perf != nullptr) add(v.perf->warnings);
  if (v.cost != nullptr) add(v.cost->warnings);
  return out;
}

std::string render_estimate(const EstimateView& v, Format f) {
  if (v.job == nullptr || v.perf == nullptr || v.cost == nullptr) return "";
  switch (f) {
    case Format::kJson: return render_estimate_json(v);
    case Format::kCsv: return render_csv(v);
    case Format::kHtml: {
      // The page keeps the warnings with the figures, as Markdown does.
      std::string numbers = render_estimate(v, Format::kTable);
      for (const auto& w : collect_warnings(v)) numbers += "warning: " + w + "\n";
      return html_page("aicost estimate: " + v.plan_name, estimate_charts(v), numbers);
    }
    case Format::kTable:
    case Format::kMarkdown: break;
  }
  std::string out = header_block(v, f) + render_sections(build_sections(v), f);
  // A table's warnings go to standard error (the command prints them); a Markdown document keeps
  // them.
  if (f == Format::kMarkdown)
    for (const auto& w : collect_warnings(v)) out += "- warning: " + w + "\n";
  // One trailing newline, whatever the last block was.
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

}  // namespace aicost::report
