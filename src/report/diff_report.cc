#include "aicost/report/diff_report.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "aicost/report/charts.h"
#include "diff_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

using diff::Kind;

// What the plan files leave to defaults, derive or look up, named as in the estimate JSON.
diff::Fields resolved_fields(const EstimateView& v) {
  const auto& job = *v.job;
  const auto& par = job.parallel;
  diff::Fields f = {
      {"model", job.model.spec().id},
      {"gpu", job.cluster.gpu.id},
      {"gpus", job.cluster.gpus},
      {"gpus_per_node", job.cluster.gpus_per_node},
      {"tensor_model_parallel_size", par.tensor},
      {"pipeline_model_parallel_size", par.pipeline},
      {"virtual_pipeline_model_parallel_size", par.virtual_pipeline},
      {"context_parallel_size", par.context},
      {"expert_model_parallel_size", par.expert},
      // The effective ETP follows TP on a dense model, where it means nothing: compare it for MoE.
      {"expert_tensor_parallel_size", job.model.is_moe() ? Json(job.expert_tensor()) : Json()},
      {"data_parallel_size", job.data_parallel()},
      {"micro_batch_size", par.micro_batch},
      {"micro_batches", job.micro_batches()},
      {"global_batch_size", job.global_batch},
      {"seq_length", job.seq_length},
      {"sequence_parallel", par.sequence_parallel},
      {"recompute_granularity", workload::to_string(par.recompute)},
      {"optimizer_sharding", workload::to_string(par.sharding)},
      {"attention_kernel", workload::to_string(par.attention)},
      {"overlap_grad_reduce", par.overlap_grad_reduce},
      {"overlap_param_gather", par.overlap_param_gather},
      {"tp_comm_overlap", par.tp_comm_overlap},
      {"precision", catalog::to_string(job.precision)},
      {"tokens", std::llround(job.tokens)}};
  if (v.inputs != nullptr) {
    f.emplace_back("price_basis", v.inputs->compute.basis);
    f.emplace_back("pricing_mode", costing::mode_name(v.inputs->compute));
    f.emplace_back("price_per_gpu_hour_usd", sig(core::per_hour(v.inputs->compute.per_gpu)));
  } else {
    f.emplace_back("price_basis", nullptr);
    f.emplace_back("pricing_mode", nullptr);
    f.emplace_back("price_per_gpu_hour_usd", nullptr);
  }
  return f;
}

double category(const EstimateView& v, const std::string& name) {
  double sum = 0;
  for (const auto& l : v.cost->lines) {
    if (l.category == name) sum += l.amount.value();
  }
  return sum;
}

std::vector<diff::Row> outputs(const EstimateView& a, const EstimateView& b) {
  std::vector<diff::Row> rows;
  auto add = [&](const char* path, const char* label, const char* unit, Kind kind, auto get) {
    rows.push_back(diff::row(path, label, unit, kind, get(a), get(b)));
  };
  add("training.step_time_s", "step time (s)", "s", Kind::kSeconds,
      [](const EstimateView& v) { return v.perf->step_time.value(); });
  add("training.tokens_per_s", "tokens/s", "tokens/s", Kind::kCount,
      [](const EstimateView& v) { return v.perf->tokens_per_s; });
  add("training.tokens_per_s_per_gpu", "tokens/s per GPU", "tokens/s", Kind::kCount,
      [](const EstimateView& v) { return v.perf->tokens_per_s_per_gpu; });
  add("training.mfu", "MFU", "ratio", Kind::kRatio,
      [](const EstimateView& v) { return v.perf->mfu; });
  add("training.hfu", "HFU", "ratio", Kind::kRatio,
      [](const EstimateView& v) { return v.perf->hfu; });
  add("training.tflops_per_gpu", "TFLOP/s per GPU", "TFLOP/s", Kind::kTflops,
      [](const EstimateView& v) { return v.perf->model_flops_per_gpu.value() / 1e12; });
  add("training.compute_days", "compute days", "d", Kind::kDays,
      [](const EstimateView& v) { return core::in_days(v.perf->compute_time); });
  add("training.wall_days", "wall days (incl. failures)", "d", Kind::kDays,
      [](const EstimateView& v) { return core::in_days(v.cost->wall_time); });
  add("training.gpu_hours", "GPU-hours (incl. failures)", "GPU-h", Kind::kCount,
      [](const EstimateView& v) { return v.cost->gpu_hours; });
  add("training.memory.peak_gib", "memory peak per GPU (GiB)", "GiB", Kind::kGib,
      [](const EstimateView& v) { return core::in_gib(v.perf->memory.total()); });
  // Categories in a's order, then those only b has.
  std::vector<std::string> names;
  for (const auto* v : {&a, &b}) {
    for (const auto& l : v->cost->lines) {
      if (std::find(names.begin(), names.end(), l.category) == names.end()) {
        names.push_back(l.category);
      }
    }
  }
  for (const auto& n : names) {
    rows.push_back(diff::row("cost.categories." + n, n + " (USD)", "USD", Kind::kUsd,
                             category(a, n), category(b, n)));
  }
  add("cost.total_usd", "total (USD)", "USD", Kind::kUsd,
      [](const EstimateView& v) { return v.cost->total.value(); });
  add("cost.per_million_tokens_usd", "per 1M tokens (USD)", "USD", Kind::kUsdCents,
      [](const EstimateView& v) { return v.cost->per_million_tokens.value(); });
  return rows;
}

}  // namespace

std::string render_diff(const EstimateView& a, const PlanValues& a_values, const EstimateView& b,
                        const PlanValues& b_values, Format f) {
  for (const auto* v : {&a, &b}) {
    if (v->job == nullptr || v->perf == nullptr || v->cost == nullptr) return "";
  }
  diff::Diff d = diff::compare("training", {a.plan_name, a_values, resolved_fields(a)},
                               {b.plan_name, b_values, resolved_fields(b)});
  d.outputs = outputs(a, b);
  return diff::render(d, f, f == Format::kHtml ? diff_charts(a, b) : std::vector<Chart>{});
}

}  // namespace aicost::report
