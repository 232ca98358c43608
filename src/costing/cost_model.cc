#include "aicost/costing/cost_model.h"

#include <algorithm>
#include <cmath>

#include "aicost/reliability/closed_form.h"
#include "aicost/reliability/spares.h"

#include <limits>

namespace aicost::costing {

using core::Bytes;
using core::Seconds;
using core::Usd;
using core::UsdPerSecond;

namespace {

// The exact optimum solves a Lambert-W equation; a search asks for the same (delta, M) for every
// candidate of a layout, so each thread remembers its last answer.
Seconds optimal_interval(Seconds delta, Seconds mtbf) {
  thread_local double last_delta = -1, last_mtbf = -1, last_tau = 0;
  if (delta.value() != last_delta || mtbf.value() != last_mtbf) {
    last_delta = delta.value();
    last_mtbf = mtbf.value();
    last_tau = reliability::optimal_interval_exact(delta, mtbf).value();
  }
  return Seconds(last_tau);
}

}  // namespace

reliability::CheckpointModel checkpoint_model(const workload::TrainingJob& job,
                                              const CostInputs& in) {
  reliability::CheckpointModel ck;
  ck.size = in.storage.checkpoint_size.value() > 0
                ? in.storage.checkpoint_size
                : Bytes(job.model.params_total() * reliability::kCheckpointBytesPerParam);
  ck.write_bandwidth = in.storage.checkpoint_write_bandwidth;
  ck.read_bandwidth = in.reliability.checkpoint_read_bandwidth.value() > 0
                          ? in.reliability.checkpoint_read_bandwidth
                          : in.storage.checkpoint_write_bandwidth;
  ck.async = in.storage.async_checkpoint;
  const auto& st = in.storage;
  if (st.incremental_checkpoint) ck.written_share = st.trainable_share;
  if (!st.checkpoint_compression.name.empty()) {
    const double cores = static_cast<double>(st.compression_cores_per_node) * job.cluster.gpus /
                         job.cluster.gpus_per_node;
    ck.stored_ratio = st.checkpoint_compression.ratio;
    ck.compress_rate = st.checkpoint_compression.compress_per_core * cores;
    ck.decompress_rate = st.checkpoint_compression.decompress_per_core * cores;
  }
  ck.restore = latest_checkpoint_terms(st, st.checkpoint_interval).restore;
  return ck;
}

reliability::RunInputs reliability_inputs(const workload::TrainingJob& job,
                                          const perf::TrainingEstimate& perf,
                                          const CostInputs& in) {
  reliability::RunInputs r;
  r.work = perf.compute_time;
  r.gpus = job.cluster.gpus;
  r.gpus_per_node = job.cluster.gpus_per_node;
  r.failures = in.reliability.failures;
  r.checkpoint = checkpoint_model(job, in);
  r.restart = in.reliability.restart;
  if (in.storage.checkpoint_interval.value() > 0) r.interval = in.storage.checkpoint_interval;
  r.fleet_rate = in.compute.per_gpu * static_cast<double>(job.cluster.gpus);
  r.storage_price = in.storage.checkpoint_price;
  r.checkpoints_retained = in.storage.checkpoints_retained;
  return r;
}

FailureOverhead failure_overhead(const workload::TrainingJob& job,
                                 const perf::TrainingEstimate& perf, const CostInputs& in) {
  // By reference, not through reliability_inputs: a search calls this for every candidate.
  const auto& failures = in.reliability.failures;
  const reliability::CheckpointModel ck = checkpoint_model(job, in);
  FailureOverhead f;
  f.checkpoint_size = ck.size;
  f.checkpoint_blocking = ck.blocking();
  f.restart_per_interrupt = in.reliability.restart.total(ck);
  const double rate = failures.job_rate(job.cluster.gpus);
  f.job_mtbf = Seconds(rate > 0 ? 1 / rate : std::numeric_limits<double>::infinity());
  // The plan's interval, else the exact minimiser of Daly's expected wall time (the reliability
  // command also shows the cost-optimal one, which weighs checkpoint storage too).
  f.checkpoint_interval = in.storage.checkpoint_interval.value() > 0
                              ? in.storage.checkpoint_interval
                          : rate > 0 ? optimal_interval(f.checkpoint_blocking, f.job_mtbf)
                                     : perf.compute_time;
  const auto l = reliability::run_losses(perf.compute_time, job.cluster.gpus, failures, ck,
                                         in.reliability.restart, f.checkpoint_interval);
  f.checkpoint_time = l.checkpoints;
  f.lost_work = l.lost_work;
  f.restart_time = l.restarts;
  f.maintenance = l.maintenance;
  f.expected_interruptions = l.interruptions;
  f.goodput = l.ettr();
  // With a paid pool of spares the job also waits, a share s of the wall time, for a repaired
  // node: the running time (work and losses) is 1 - s of it.
  f.spare_stall_share =
      reliability::spare_stall_share(failures, job.cluster.gpus, in.reliability.spare_nodes);
  if (f.spare_stall_share > 0) {
    const Seconds running = perf.compute_time + f.total();
    f.spare_stall = running * (f.spare_stall_share / (1 - f.spare_stall_share));
    f.goodput = perf.compute_time / (running + f.spare_stall);
  }
  return f;
}

core::Usd cost_lower_bound(const workload::TrainingJob& job, Seconds wall, const CostInputs& in) {
  const auto& p = in.compute;
  if (in.contingency < 0 || p.term_reuse < 0 || p.term_reuse > 1 || p.per_gpu.value() < 0 ||
      wall.value() < 0) {
    return Usd(0);
  }
  const double fleet = p.per_gpu.value() * job.cluster.gpus;  // USD/s
  double seconds = wall.value();
  if (p.term.value() > 0) {
    const double term = p.term.value();
    // The model's wall time may fall short of `wall` by a rounding (its loss terms come from
    // subtractions): one ulp must not move the bound to the next term.
    const double terms = std::max(1.0, std::ceil(seconds * (1 - 1e-12) / term));
    seconds = p.term_reuse * seconds + (1 - p.term_reuse) * term * terms;
  }
  return Usd(fleet * seconds * (1 + in.contingency) * (1 - 1e-9));
}

CostEstimate estimate_cost(const workload::TrainingJob& job, const perf::TrainingEstimate& perf,
                           const CostInputs& in) {
  return estimate_cost(job, perf, in, failure_overhead(job, perf, in));
}

CostEstimate estimate_cost(const workload::TrainingJob& job, const perf::TrainingEstimate& perf,
                           const CostInputs& in, const FailureOverhead& failures) {
  CostEstimate c;
  c.lines.reserve(12);  // every category below, without a reallocation
  c.failures = failures;
  c.wall_time = perf.compute_time + c.failures.total();
  const double gpus = job.cluster.gpus;
  c.gpu_hours = core::in_hours(c.wall_time) * gpus;
  const Seconds wall = c.wall_time;

  auto add = [&](const char* category, Usd amount, CostNature nature, UsdPerSecond peak) {
    c.lines.push_back(CostLine{category, amount, nature,
                               UsdPerSecond(wall.value() > 0 ? amount.value() / wall.value() : 0),
                               peak});
  };

  // Compute: failure-free GPU time.
  const UsdPerSecond fleet = in.compute.per_gpu * gpus;
  add("compute", perf.compute_time * fleet, CostNature::kElastic, fleet);
  // Failures: checkpoint stalls, lost work and restarts keep every GPU billed.
  const auto& f = c.failures;
  add("failures", f.total() * fleet, CostNature::kElastic, fleet);
  // Spare nodes held for the whole run so that failed nodes are replaced at once.
  const int spare_nodes = std::max(0, in.reliability.spare_nodes);
  const double spare_gpus = static_cast<double>(spare_nodes) * job.cluster.gpus_per_node;
  const UsdPerSecond spare_rate = in.compute.per_gpu * spare_gpus;
  add("spares", spare_rate * wall, CostNature::kElastic, spare_rate);
  // A reservation is billed for whole terms (AWS Reserved Instances, GCP committed-use
  // discounts): the hours of the term this run does not use are paid too, unless the plan says
  // other work uses them. Not a rate of the run's resources, so fixed.
  if (in.compute.term.value() > 0) {
    const double terms = std::max(1.0, std::ceil(wall / in.compute.term));
    const Seconds unused = in.compute.term * terms - wall;
    const UsdPerSecond reserved = in.compute.per_gpu * (gpus + spare_gpus);
    add("commitment", unused * reserved * (1 - in.compute.term_reuse), CostNature::kFixed,
        UsdPerSecond(0));
  }

  // Storage: dataset for the whole run; checkpoints at full retention (peak) after ramp-up;
  // logs growing until their retention caps them.
  const auto& s = in.storage;
  const CheckpointStorage ckpt = checkpoint_storage(s, f, wall);
  const double ckpt_bytes = ckpt.peak.value();
  // Logs are stored compressed when the plan says so (ratio 1 otherwise).
  const double log_rate =
      s.logs_per_day.value() / core::kSecondsPerDay * s.log_compression.ratio;  // B/s
  const double d = wall.value();
  const double r = s.log_retention.value() > 0 ? s.log_retention.value() : d;
  const double log_byte_seconds = r >= d ? log_rate * d * d / 2 : log_rate * (r * d - r * r / 2);
  const double log_peak = log_rate * std::min(r, d);
  // A dataset on a tier with a minimum duration is billed at least that long.
  const double dataset_seconds = std::max(d, s.dataset_terms.min_duration.value());
  const Usd retrieval = retrieval_fees(job, s, f);
  const Usd storage_cost = Usd(s.dataset.value() * s.dataset_price.value() * dataset_seconds +
                               ckpt.cost.value() + log_byte_seconds * s.log_price.value()) +
                           retrieval;
  c.peak_storage = Bytes(s.dataset.value() + ckpt_bytes + log_peak);
  const UsdPerSecond storage_peak(s.dataset.value() * s.dataset_price.value() +
                                  ckpt.peak_rate.value() + log_peak * s.log_price.value());
  add("storage", storage_cost, CostNature::kElastic, storage_peak);

  const auto& n = in.network;
  const Usd net(n.egress.value() * n.egress_compression.ratio * n.egress_price.value() +
                n.cross_region.value() * n.cross_region_price.value());
  add("network", net, CostNature::kElastic, UsdPerSecond(net.value() / std::max(d, 1.0)));

  const auto& sv = in.services;
  add("database", sv.database * wall, CostNature::kFixed, sv.database);
  const UsdPerSecond monitoring = sv.monitoring + sv.monitoring_per_gpu * gpus;
  add("monitoring", monitoring * wall, CostNature::kElastic, monitoring);
  add("security", sv.security * wall, CostNature::kFixed, sv.security);
  const auto& o = in.operations;
  const UsdPerSecond people = o.engineer_rate * o.engineers + o.on_call;
  add("operations", people * wall, CostNature::kFixed, people);

  Usd subtotal(0);
  for (const auto& l : c.lines) subtotal += l.amount;
  add("contingency", subtotal * in.contingency, CostNature::kFixed, UsdPerSecond(0));

  for (const auto& l : c.lines) {
    c.total += l.amount;
    (l.nature == CostNature::kFixed ? c.fixed : c.elastic) += l.amount;
  }
  c.per_million_tokens = Usd(c.total.value() / job.tokens * 1e6);
  if (o.engineers == 0 && o.on_call.value() == 0) {
    c.warnings.push_back("no operations section: people cost is not included");
  }
  return c;
}

}  // namespace aicost::costing
