#include "aicost/costing/interval.h"

namespace aicost::costing {

perf::TrainingEstimate scale_step_time(perf::TrainingEstimate p, double r) {
  for (core::Seconds* s : {&p.step.compute, &p.step.recompute, &p.step.tp_comm, &p.step.cp_comm,
                           &p.step.ep_comm, &p.step.pp_comm, &p.step.bubble, &p.step.dp_comm,
                           &p.step.optimizer, &p.step_time, &p.compute_time}) {
    *s = *s * r;
  }
  p.gpu_hours *= r;
  p.tokens_per_s /= r;
  p.tokens_per_s_per_gpu /= r;
  p.mfu /= r;
  p.hfu /= r;
  p.model_flops_per_gpu = p.model_flops_per_gpu / r;
  return p;
}

EstimateInterval estimate_interval(const workload::TrainingJob& job,
                                   const perf::TrainingEstimate& perf, const CostInputs& inputs,
                                   const perf::Interval& band) {
  EstimateInterval out;
  out.band = band;
  const double ratios[2] = {band.lo, band.hi};
  double* ends[4][2] = {{&out.step_time_s.lo, &out.step_time_s.hi},
                        {&out.gpu_hours.lo, &out.gpu_hours.hi},
                        {&out.wall_days.lo, &out.wall_days.hi},
                        {&out.total_usd.lo, &out.total_usd.hi}};
  for (int i = 0; i < 2; ++i) {
    const auto p = scale_step_time(perf, ratios[i]);
    const auto c = estimate_cost(job, p, inputs);
    *ends[0][i] = p.step_time.value();
    *ends[1][i] = c.gpu_hours;
    *ends[2][i] = core::in_days(c.wall_time);
    *ends[3][i] = c.total.value();
  }
  return out;
}

}  // namespace aicost::costing
