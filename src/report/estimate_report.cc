#include "aicost/report/estimate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rounding.h"
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "aicost/core/text.h"
#include "aicost/report/table.h"

namespace aicost::report {

namespace {

using Json = nlohmann::ordered_json;
using costing::CostNature;


double share(double part, double whole) { return whole != 0 ? part / whole : 0.0; }

const char* nature_name(CostNature n) { return n == CostNature::kFixed ? "fixed" : "elastic"; }

// Parts of a step in the order they are shown, with their JSON names.
std::vector<std::pair<const char*, core::Seconds>> step_parts(const perf::StepBreakdown& s) {
  return {{"compute", s.compute}, {"recompute", s.recompute}, {"tp_comm", s.tp_comm},
          {"cp_comm", s.cp_comm}, {"ep_comm", s.ep_comm},     {"pp_comm", s.pp_comm},
          {"bubble", s.bubble},   {"dp_comm", s.dp_comm},     {"optimizer", s.optimizer}};
}

std::vector<std::pair<const char*, core::Bytes>> memory_parts(const perf::MemoryBreakdown& m) {
  return {{"weights", m.weights},         {"gradients", m.gradients}, {"optimizer", m.optimizer},
          {"activations", m.activations}, {"logits", m.logits},       {"overhead", m.overhead}};
}

// 175e9 -> "175.0B", 350e6 -> "350.0M", smaller counts with grouped digits.
std::string count(double n) {
  if (n >= 1e9) return fmt::format("{:.1f}B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.1f}M", n / 1e6);
  return core::group_digits(n);
}

std::string pct(double ratio) { return fmt::format("{:.1f} %", ratio * 100); }
std::string on_off(bool b) { return b ? "on" : "off"; }

Json build_json(const EstimateView& v) {
  const auto& job = *v.job;
  const auto& p = *v.perf;
  const auto& c = *v.cost;
  const auto& par = job.parallel;
  const auto& f = c.failures;
  Json j;
  j["schema_version"] = kEstimateSchemaVersion;
  j["plan"] = v.plan_name;
  j["model"] = {{"id", job.model.spec().id},
                {"params", std::llround(job.model.params_total())},
                {"active_params", std::llround(job.model.params_active())},
                {"layers", job.model.layers()},
                {"hidden", job.model.hidden()}};
  j["cluster"] = {{"gpu", job.cluster.gpu.id},
                  {"gpus", job.cluster.gpus},
                  {"gpus_per_node", job.cluster.gpus_per_node}};
  j["parallelism"] = {{"tensor_model_parallel_size", par.tensor},
                      {"pipeline_model_parallel_size", par.pipeline},
                      {"virtual_pipeline_model_parallel_size", par.virtual_pipeline},
                      {"context_parallel_size", par.context},
                      {"expert_model_parallel_size", par.expert},
                      {"expert_tensor_parallel_size", job.expert_tensor()},
                      {"data_parallel_size", job.data_parallel()},
                      {"micro_batch_size", par.micro_batch},
                      {"micro_batches", job.micro_batches()},
                      {"sequence_parallel", par.sequence_parallel},
                      {"recompute_granularity", workload::to_string(par.recompute)},
                      {"optimizer_sharding", workload::to_string(par.sharding)}};
  j["workload"] = {{"tokens", std::llround(job.tokens)},
                   {"seq_length", job.seq_length},
                   {"global_batch_size", job.global_batch},
                   {"tokens_per_step", std::llround(p.tokens_per_step)},
                   {"precision", catalog::to_string(job.precision)},
                   {"attention_kernel", workload::to_string(par.attention)}};
  Json t;
  t["step_time_s"] = sig(p.step_time.value());
  Json parts = Json::object();
  for (const auto& [name, s] : step_parts(p.step)) parts[name] = sig(s.value());
  t["step_breakdown_s"] = parts;
  t["tokens_per_s"] = sig(p.tokens_per_s);
  t["tokens_per_s_per_gpu"] = sig(p.tokens_per_s_per_gpu);
  t["model_flops_per_token"] = sig(p.model_flops_per_token);
  t["hardware_flops_per_token"] = sig(p.hardware_flops_per_token);
  t["mfu"] = sig(p.mfu);
  t["hfu"] = sig(p.hfu);
  t["flop_convention"] = kFlopConvention;
  t["peak_precision"] = catalog::to_string(p.peak_precision);
  t["peak_tflops_per_gpu"] = sig(p.peak_per_gpu.value() / 1e12);
  t["tflops_per_gpu"] = sig(p.model_flops_per_gpu.value() / 1e12);
  t["steps"] = sig(p.steps);
  t["compute_days"] = sig(core::in_days(p.compute_time));
  t["wall_days"] = sig(core::in_days(c.wall_time));
  t["compute_gpu_hours"] = sig(p.gpu_hours);
  t["gpu_hours"] = sig(c.gpu_hours);
  t["goodput"] = sig(f.goodput);
  Json mem = Json::object();
  for (const auto& [name, b] : memory_parts(p.memory)) {
    mem[std::string(name) + "_gib"] = sig(core::in_gib(b));
  }
  mem["peak_gib"] = sig(core::in_gib(p.memory.total()));
  mem["capacity_gib"] = sig(core::in_gib(p.memory.capacity));
  mem["fits"] = p.memory.fits();
  t["memory"] = mem;
  j["training"] = t;
  j["reliability"] = {{"job_mtbf_h", sig(core::in_hours(f.job_mtbf))},
                      {"checkpoint_interval_min", sig(f.checkpoint_interval.value() / 60)},
                      {"checkpoint_blocking_s", sig(f.checkpoint_blocking.value())},
                      {"checkpoint_size_gb", sig(f.checkpoint_size.value() / core::kGB)},
                      {"expected_interruptions", sig(f.expected_interruptions)},
                      {"checkpoint_stall_h", sig(core::in_hours(f.checkpoint_time))},
                      {"lost_work_h", sig(core::in_hours(f.lost_work))},
                      {"restart_h", sig(core::in_hours(f.restart_time))},
                      {"maintenance_h", sig(core::in_hours(f.maintenance))},
                      {"overhead_h", sig(core::in_hours(f.total()))}};
  if (v.simulation) {
    const auto& s = *v.simulation;
    // Scale the run's wall-time bands to GPU-hours and money at the estimate's own rates.
    const double gpu_hours_per_s = c.gpu_hours / c.wall_time.value();
    const double usd_per_s = c.total.value() / c.wall_time.value();
    auto band = [](const reliability::Summary& x, double scale) {
      return Json{{"mean", sig(x.mean * scale)}, {"p10", sig(x.p10 * scale)},
                  {"p50", sig(x.p50 * scale)}, {"p90", sig(x.p90 * scale)}};
    };
    j["reliability"]["simulation"] = {{"runs", s.runs},
                                      {"seed", v.simulation_seed},
                                      {"wall_days", band(s.wall_s, 1 / core::kSecondsPerDay)},
                                      {"gpu_hours", band(s.wall_s, gpu_hours_per_s)},
                                      {"total_usd", band(s.wall_s, usd_per_s)},
                                      {"ettr", band(s.ettr, 1)},
                                      {"interruptions", band(s.interruptions, 1)}};
  }
  Json cost;
  cost["currency"] = "USD";
  cost["total_usd"] = cents(c.total.value());
  cost["per_million_tokens_usd"] = cents(c.per_million_tokens.value());
  cost["fixed_usd"] = cents(c.fixed.value());
  cost["elastic_usd"] = cents(c.elastic.value());
  cost["peak_storage_gb"] = sig(c.peak_storage.value() / core::kGB);
  if (v.inputs != nullptr) {
    cost["price_basis"] = v.inputs->compute.basis;
    cost["pricing_mode"] = catalog::to_string(v.inputs->compute.mode);
    cost["price_per_gpu_hour_usd"] = sig(core::per_hour(v.inputs->compute.per_gpu));
  } else {
    cost["price_basis"] = nullptr;
    cost["pricing_mode"] = nullptr;
    cost["price_per_gpu_hour_usd"] = nullptr;
  }
  Json categories = Json::object();
  for (const auto& l : c.lines) {
    const double before =
        categories.contains(l.category) ? categories[l.category].get<double>() : 0;
    categories[l.category] = cents(before + l.amount.value());
  }
  cost["categories"] = categories;
  Json lines = Json::array();
  for (const auto& l : c.lines) {
    lines.push_back(
        {{"category", l.category},
         {"usd", cents(l.amount.value())},
         {"share", sig(share(l.amount.value(), c.total.value()))},
         {"nature", nature_name(l.nature)},
         {"driver", l.driver},
         {"average_usd_per_month", cents(l.average_rate.value() * core::kSecondsPerMonth)},
         {"peak_usd_per_month", cents(l.peak_rate.value() * core::kSecondsPerMonth)}});
  }
  cost["lines"] = lines;
  j["cost"] = cost;
  j["warnings"] = collect_warnings(v);
  return j;
}

// A titled block: tables (the first may be a key/value list without a header in text form) and
// notes under them.
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

std::vector<Section> build_sections(const EstimateView& v) {
  const auto& p = *v.perf;
  const auto& c = *v.cost;
  std::vector<Section> out;

  Section perf{"Performance", {}, {}};
  perf.tables.push_back(kv({
      {"step time", fmt::format("{:.3f} s", p.step_time.value())},
      {"tokens/s", core::group_digits(p.tokens_per_s)},
      {"tokens/s per GPU", core::group_digits(p.tokens_per_s_per_gpu)},
      {"MFU", pct(p.mfu)},
      {"HFU", pct(p.hfu)},
      {"TFLOP/s per GPU",
       fmt::format("{:.1f} of {:.1f} peak ({})", p.model_flops_per_gpu.value() / 1e12,
                   p.peak_per_gpu.value() / 1e12, catalog::to_string(p.peak_precision))},
      {"steps", core::group_digits(p.steps)},
      {"compute days (failure-free)", fmt::format("{:.2f}", core::in_days(p.compute_time))},
      {"wall days (incl. failures)", fmt::format("{:.2f}", core::in_days(c.wall_time))},
      {"GPU-hours (incl. failures)", core::group_digits(c.gpu_hours)},
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
  out.push_back(std::move(perf));

  Section mem{"Memory per GPU", {}, {}};
  Table parts{{"part", "GiB"}, {}, {false, true}, ""};
  for (const auto& [name, b] : memory_parts(p.memory)) {
    parts.rows.push_back({name, fmt::format("{:.1f}", core::in_gib(b))});
  }
  mem.tables.push_back(std::move(parts));
  mem.notes.push_back(fmt::format("peak {:.1f} GiB of {:.1f} GiB ({})",
                                  core::in_gib(p.memory.total()), core::in_gib(p.memory.capacity),
                                  p.memory.fits() ? "fits" : "does not fit"));
  out.push_back(std::move(mem));

  const auto& f = c.failures;
  Section rel{"Reliability", {}, {}};
  rel.tables.push_back(kv({
      {"job MTBF", fmt::format("{:.1f} h", core::in_hours(f.job_mtbf))},
      {"checkpoint every", fmt::format("{:.1f} min", f.checkpoint_interval.value() / 60)},
      {"checkpoint stall", fmt::format("{:.1f} s per save", f.checkpoint_blocking.value())},
      {"checkpoint size", core::format_bytes(f.checkpoint_size.value())},
      {"expected interruptions", fmt::format("{:.1f}", f.expected_interruptions)},
      {"failure overhead", fmt::format("{:.1f} h (lost work {:.1f}, restarts {:.1f}, saves {:.1f}, maintenance {:.1f})",
                                       core::in_hours(f.total()), core::in_hours(f.lost_work),
                                       core::in_hours(f.restart_time), core::in_hours(f.checkpoint_time),
                                       core::in_hours(f.maintenance))},
      {"goodput", pct(f.goodput)},
  }));
  if (v.simulation) {
    const auto& s = *v.simulation;
    const double gpu_hours_per_s = c.gpu_hours / c.wall_time.value();
    const double usd_per_s = c.total.value() / c.wall_time.value();
    Table bands{{"simulated", "mean", "p10", "p50", "p90"}, {}, {false, true, true, true, true},
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
                          nature_name(l.nature), l.driver});
  }
  cost.tables.push_back(std::move(lines));
  std::vector<std::vector<std::string>> summary = {
      {"total", core::group_digits(c.total.value()) + " USD"},
      {"per 1M tokens", core::group_digits(c.per_million_tokens.value(), 2) + " USD"},
      {"fixed", fmt::format("{} USD ({})", core::group_digits(c.fixed.value()),
                            pct(share(c.fixed.value(), c.total.value())))},
      {"elastic", fmt::format("{} USD ({})", core::group_digits(c.elastic.value()),
                              pct(share(c.elastic.value(), c.total.value())))},
      {"peak storage", core::format_bytes(c.peak_storage.value())}};
  if (v.inputs != nullptr) summary.push_back({"price basis", v.inputs->compute.basis});
  cost.tables.push_back(kv(std::move(summary)));
  cost.notes.push_back("a month is 730 hours (USD/month: average over the wall time)");
  out.push_back(std::move(cost));
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
    for (const auto& [k, val] : rows) out += "- **" + k + "**: " + val + "\n";
    return out + "\n";
  }
  out += "aicost estimate: " + v.plan_name + "\n";
  Table t;
  for (const auto& [k, val] : rows) t.rows.push_back({k, val});
  return out + indent(render(t, Format::kTable), 2) + "\n";
}

std::string render_csv(const EstimateView& v) {
  const Json j = build_json(v);
  Table t{{"record", "name", "value", "unit", "share", "nature", "detail"}, {}, {}, ""};
  auto num = [](const Json& x) { return x.is_null() ? std::string() : x.dump(); };
  auto text = [](const Json& x) { return x.is_string() ? x.get<std::string>() : x.dump(); };
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
  for (const auto& w : j["warnings"]) t.rows.push_back({"warning", "", "", "", "", "", text(w)});
  return render(t, Format::kCsv);
}

}  // namespace

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

std::string render_estimate_json(const EstimateView& v) {
  if (v.job == nullptr || v.perf == nullptr || v.cost == nullptr) return "";
  return build_json(v).dump(2) + "\n";
}

std::string render_estimate(const EstimateView& v, Format f) {
  if (v.job == nullptr || v.perf == nullptr || v.cost == nullptr) return "";
  switch (f) {
    case Format::kJson:
      return render_estimate_json(v);
    case Format::kCsv:
      return render_csv(v);
    case Format::kTable:
    case Format::kMarkdown:
      break;
  }
  std::string out = header_block(v, f) + render_sections(build_sections(v), f);
  for (const auto& w : collect_warnings(v)) {
    out += (f == Format::kMarkdown ? "- warning: " : "warning: ") + w + "\n";
  }
  // One trailing newline, whatever the last block was.
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

}  // namespace aicost::report
