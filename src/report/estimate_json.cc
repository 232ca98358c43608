// The estimate as JSON (docs/JSON_OUTPUT.md).
#include <fmt/format.h>

#include "aicost/report/estimate_report.h"
#include "estimate_parts.h"
#include "json.h"
#include "owned_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

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
  mem["verdict"] = p.memory.verdict();
  mem["margin"] = sig(p.memory.margin);
  t["memory"] = mem;
  const bool has_interval = v.interval != nullptr && v.interval->band.known;
  auto pair = [&](const costing::Range& r, double (*round)(double)) {
    return has_interval ? Json::array({round(r.lo), round(r.hi)}) : Json(nullptr);
  };
  if (has_interval) {
    const auto& b = v.interval->band;
    t["interval"] = interval_json(b);
  } else {
    t["interval"] = nullptr;
  }
  t["step_time_s_interval"] = pair(v.interval ? v.interval->step_time_s : costing::Range{}, sig);
  t["wall_days_interval"] = pair(v.interval ? v.interval->wall_days : costing::Range{}, sig);
  t["gpu_hours_interval"] = pair(v.interval ? v.interval->gpu_hours : costing::Range{}, sig);
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
      return Json{{"mean", sig(x.mean * scale)},
                  {"p10", sig(x.p10 * scale)},
                  {"p50", sig(x.p50 * scale)},
                  {"p90", sig(x.p90 * scale)}};
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
  cost["total_usd_interval"] = pair(v.interval ? v.interval->total_usd : costing::Range{}, cents);
  cost["per_million_tokens_usd"] = cents(c.per_million_tokens.value());
  cost["fixed_usd"] = cents(c.fixed.value());
  cost["elastic_usd"] = cents(c.elastic.value());
  cost["peak_storage_gb"] = sig(c.peak_storage.value() / core::kGB);
  if (v.inputs != nullptr) {
    cost["price_basis"] = v.inputs->compute.basis;
    cost["pricing_mode"] = costing::mode_name(v.inputs->compute);
    cost["price_per_gpu_hour_usd"] = sig(core::per_hour(v.inputs->compute.per_gpu));
    if (v.inputs->compute.owned) cost["owned"] = owned_json(*v.inputs->compute.owned, c.wall_time);
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
         {"driver", cost_driver(v, l)},
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
}  // namespace

Json interval_json(const perf::Interval& b) {
  return {{"confidence", 0.8},
          {"regime", b.regime},
          {"regime_runs", b.regime_rows},
          {"pool", b.pool},
          {"pool_runs", b.pool_rows},
          {"pool_sources", b.pool_groups},
          {"widening", sig(b.widening)},
          {"little_data", b.little_data},
          {"time_ratio", {sig(b.lo), sig(b.hi)}}};
}

std::string render_estimate_json(const EstimateView& v) {
  if (v.job == nullptr || v.perf == nullptr || v.cost == nullptr) return "";
  return json_text(build_json(v)) + "\n";
}

}  // namespace aicost::report
