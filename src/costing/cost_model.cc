#include "aicost/costing/cost_model.h"

#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"

namespace aicost::costing {

using core::Bytes;
using core::Seconds;
using core::sprintf;
using core::Usd;
using core::UsdPerSecond;

namespace {

// Megatron distributed checkpoints hold bf16 weights (2) + fp32 master weights (4) + Adam m, v (8).
constexpr double kCheckpointBytesPerParam = 14.0;

double per_month(UsdPerSecond r) { return r.value() * core::kSecondsPerMonth; }

std::string money(double usd) { return core::group_digits(usd, 0) + " USD"; }

}  // namespace

FailureOverhead failure_overhead(const workload::TrainingJob& job,
                                 const perf::TrainingEstimate& perf, const CostInputs& in) {
  FailureOverhead f;
  f.checkpoint_size = in.storage.checkpoint_size.value() > 0
                          ? in.storage.checkpoint_size
                          : Bytes(job.model.params_total() * kCheckpointBytesPerParam);
  const Seconds write = f.checkpoint_size / in.storage.checkpoint_write_bandwidth;
  // Asynchronous saves block only while the GPU state is copied to host memory (~1/10 of a write).
  f.checkpoint_blocking = in.storage.async_checkpoint ? write * 0.1 : write;
  const double rate = in.reliability.interruptions_per_gpu_hour * job.cluster.gpus;  // per hour
  f.job_mtbf = rate > 0 ? core::hours(1.0 / rate) : Seconds(1e300);
  // Young (1974): tau = sqrt(2 delta M), the first-order optimum.
  f.checkpoint_interval =
      in.storage.checkpoint_interval.value() > 0
          ? in.storage.checkpoint_interval
          : Seconds(std::sqrt(2 * f.checkpoint_blocking.value() * f.job_mtbf.value()));
  const Seconds work = perf.compute_time;
  const double saves = work / f.checkpoint_interval;
  f.checkpoint_time = f.checkpoint_blocking * saves;
  // Interruptions arrive over the whole wall time; each loses half an interval of work on average
  // and costs a restart. Solve wall = work + saves + n (tau/2 + R), n = wall / M.
  const double per_failure = (f.checkpoint_interval * 0.5 + in.reliability.restart_time).value();
  const double mtbf = f.job_mtbf.value();
  const double base = (work + f.checkpoint_time).value();
  const double wall = per_failure < mtbf ? base / (1 - per_failure / mtbf) : base * 10;
  f.expected_interruptions = wall / mtbf;
  f.lost_work = f.checkpoint_interval * 0.5 * f.expected_interruptions;
  f.restart_time = in.reliability.restart_time * f.expected_interruptions;
  f.goodput = work.value() / (work + f.total()).value();
  return f;
}

CostEstimate estimate_cost(const workload::TrainingJob& job, const perf::TrainingEstimate& perf,
                           const CostInputs& in, CostDetail detail) {
  const bool describe = detail == CostDetail::kFull;
  // Driver texts cost more than the arithmetic; a search asks for the numbers only.
#define AICOST_DRIVER(...) (describe ? sprintf(__VA_ARGS__) : std::string())
  CostEstimate c;
  c.failures = failure_overhead(job, perf, in);
  c.wall_time = perf.compute_time + c.failures.total();
  const double gpus = job.cluster.gpus;
  c.gpu_hours = core::in_hours(c.wall_time) * gpus;
  const Seconds wall = c.wall_time;
  const double wall_months = wall.value() / core::kSecondsPerMonth;

  auto add = [&](std::string category, Usd amount, std::string driver, CostNature nature,
                 UsdPerSecond peak) {
    CostLine l{std::move(category), amount, std::move(driver), nature,
               UsdPerSecond(wall.value() > 0 ? amount.value() / wall.value() : 0), peak};
    c.lines.push_back(std::move(l));
  };

  // Compute: failure-free GPU time.
  const UsdPerSecond fleet = in.compute.per_gpu * gpus;
  add("compute", perf.compute_time * fleet,
      AICOST_DRIVER("%s GPU-h x %s", core::group_digits(perf.gpu_hours).c_str(), in.compute.basis.c_str()),
      CostNature::kElastic, fleet);
  // Failures: checkpoint stalls, lost work and restarts keep every GPU billed.
  const auto& f = c.failures;
  add("failures", f.total() * fleet,
      AICOST_DRIVER("%.1f expected interruptions (job MTBF %.1f h); checkpoint every %.0f min, %.0f s "
              "stall each; restart %.0f min",
              f.expected_interruptions, core::in_hours(f.job_mtbf),
              f.checkpoint_interval.value() / 60, f.checkpoint_blocking.value(),
              in.reliability.restart_time.value() / 60),
      CostNature::kElastic, fleet);

  // Storage: dataset for the whole run; checkpoints at full retention (peak) after ramp-up;
  // logs growing until their retention caps them.
  const auto& s = in.storage;
  const double retained = std::min<double>(s.checkpoints_retained,
                                           std::max(1.0, wall / f.checkpoint_interval));
  const double ckpt_bytes = retained * f.checkpoint_size.value();
  const double log_rate = s.logs_per_day.value() / core::kSecondsPerDay;  // B/s
  const double d = wall.value();
  const double r = s.log_retention.value() > 0 ? s.log_retention.value() : d;
  const double log_byte_seconds = r >= d ? log_rate * d * d / 2 : log_rate * (r * d - r * r / 2);
  const double log_peak = log_rate * std::min(r, d);
  const Usd storage_cost = Usd(s.dataset.value() * s.dataset_price.value() * d +
                               ckpt_bytes * s.checkpoint_price.value() * d +
                               log_byte_seconds * s.log_price.value());
  c.peak_storage = Bytes(s.dataset.value() + ckpt_bytes + log_peak);
  const UsdPerSecond storage_peak(s.dataset.value() * s.dataset_price.value() +
                                  ckpt_bytes * s.checkpoint_price.value() +
                                  log_peak * s.log_price.value());
  add("storage", storage_cost,
      AICOST_DRIVER("dataset %s + %.0f checkpoints x %s + logs %s/day; peak %s; %s",
              core::format_bytes(s.dataset.value()).c_str(), retained,
              core::format_bytes(f.checkpoint_size.value()).c_str(),
              core::format_bytes(s.logs_per_day.value()).c_str(),
              core::format_bytes(c.peak_storage.value()).c_str(), s.tier_note.c_str()),
      CostNature::kElastic, storage_peak);

  const auto& n = in.network;
  const Usd net(n.egress.value() * n.egress_price.value() +
                n.cross_region.value() * n.cross_region_price.value());
  add("network", net,
      AICOST_DRIVER("egress %s + cross-region %s", core::format_bytes(n.egress.value()).c_str(),
              core::format_bytes(n.cross_region.value()).c_str()),
      CostNature::kElastic, UsdPerSecond(net.value() / std::max(d, 1.0)));

  const auto& sv = in.services;
  auto fixed = [&](const char* name, UsdPerSecond rate, std::string driver) {
    add(name, rate * wall, std::move(driver), CostNature::kFixed, rate);
  };
  fixed("database", sv.database, AICOST_DRIVER("%s/month x %.2f months", money(per_month(sv.database)).c_str(), wall_months));
  const UsdPerSecond monitoring = sv.monitoring + sv.monitoring_per_gpu * gpus;
  add("monitoring", monitoring * wall,
      AICOST_DRIVER("%s/month + %s/GPU-month x %.0f GPUs", money(per_month(sv.monitoring)).c_str(),
              core::sprintf("%.2f USD", per_month(sv.monitoring_per_gpu)).c_str(), gpus),
      CostNature::kElastic, monitoring);
  fixed("security", sv.security, AICOST_DRIVER("%s/month x %.2f months", money(per_month(sv.security)).c_str(), wall_months));
  const auto& o = in.operations;
  const UsdPerSecond people = o.engineer_rate * o.engineers + o.on_call;
  fixed("operations", people,
        AICOST_DRIVER("%.1f engineers x %s/month + on-call %s/month", o.engineers,
                money(per_month(o.engineer_rate)).c_str(), money(per_month(o.on_call)).c_str()));

  Usd subtotal(0);
  for (const auto& l : c.lines) subtotal += l.amount;
  add("contingency", subtotal * in.contingency,
      AICOST_DRIVER("%.0f%% of %s", in.contingency * 100, money(subtotal.value()).c_str()),
      CostNature::kFixed, UsdPerSecond(0));

  for (const auto& l : c.lines) {
    c.total += l.amount;
    (l.nature == CostNature::kFixed ? c.fixed : c.elastic) += l.amount;
  }
  c.per_million_tokens = Usd(c.total.value() / job.tokens * 1e6);
  if (describe && o.engineers == 0 && o.on_call.value() == 0) {
    c.warnings.push_back("no operations section: people cost is not included");
  }
#undef AICOST_DRIVER
  return c;
}

}  // namespace aicost::costing
