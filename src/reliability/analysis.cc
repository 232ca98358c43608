#include "aicost/reliability/analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace aicost::reliability {

using core::Seconds;

namespace {

Seconds mtbf_of(const RunInputs& in) {
  const double rate = in.failures.job_rate(in.gpus);
  return Seconds(rate > 0 ? 1 / rate : std::numeric_limits<double>::infinity());
}

// Golden-section search for the minimum of a unimodal f on [lo, hi].
template <class F>
double golden_min(F f, double lo, double hi) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 100 && b - a > 1e-3 * a; ++i) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = f(d);
    }
  }
  return (a + b) / 2;
}

}  // namespace

LossBreakdown run_losses(Seconds work, int gpus, const FailureModel& f,
                         const CheckpointModel& checkpoint, const RestartModel& restart_model,
                         Seconds tau) {
  const Seconds restart = restart_model.total(checkpoint);
  const double rate = f.job_rate(gpus);
  const Seconds mtbf(rate > 0 ? 1 / rate : std::numeric_limits<double>::infinity());
  LossBreakdown l = expected_losses(work, tau, checkpoint.blocking(), restart, mtbf);
  // Planned maintenance, taken at a checkpoint: no work lost, a restart (and downtime) each,
  // at its rate over the wall time without it.
  if (f.maintenance_per_day > 0) {
    l.maintenance =
        (f.maintenance_downtime + restart) * (core::in_days(l.wall()) * f.maintenance_per_day);
  }
  return l;
}

LossBreakdown losses_at(const RunInputs& in, Seconds tau) {
  return run_losses(in.work, in.gpus, in.failures, in.checkpoint, in.restart, tau);
}

double storage_usd_at(const RunInputs& in, Seconds tau, Seconds wall) {
  // Checkpoints kept at once: by count, or all saved within the retention age.
  double kept = in.checkpoints_retained;
  if (in.keep_for) kept = std::max(1.0, std::ceil(in.keep_for->value() / tau.value()));
  kept = std::min(kept, std::max(1.0, in.work.value() / tau.value()));
  return kept * in.checkpoint.size.value() * in.storage_price.value() * wall.value();
}

Analysis analyze(const RunInputs& in, bool with_levers) {
  Analysis a;
  a.job_mtbf = mtbf_of(in);
  a.blocking = in.checkpoint.blocking();
  a.restart = in.restart.total(in.checkpoint);
  const bool failures = std::isfinite(a.job_mtbf.value());
  a.young = failures ? young_interval(a.blocking, a.job_mtbf) : in.work;
  a.daly = failures ? daly_interval(a.blocking, a.job_mtbf) : in.work;
  a.exact = failures ? optimal_interval_exact(a.blocking, a.job_mtbf) : in.work;
  auto money = [&](double tau) {
    const auto l = losses_at(in, Seconds(tau));
    return in.fleet_rate.value() * l.wall().value() + storage_usd_at(in, Seconds(tau), l.wall());
  };
  // A save must finish before the next starts: the interval is at least the write time.
  const double lo = std::max({60.0, in.checkpoint.write_time().value(), a.exact.value() / 20});
  const double hi = std::max(lo * 2, std::min(in.work.value(), a.exact.value() * 20));
  a.cost_optimal = failures ? Seconds(golden_min(money, lo, hi)) : in.work;
  a.interval = in.interval ? *in.interval : a.cost_optimal;
  a.expected = losses_at(in, a.interval);
  a.checkpoint_storage_usd = storage_usd_at(in, a.interval, a.expected.wall());
  a.wall_usd = in.fleet_rate.value() * a.expected.wall().value();

  if (!with_levers) return a;
  // What each lever is worth, everything else held (each re-optimises the interval unless the
  // plan fixed it).
  const double base_days = core::in_days(a.expected.wall());
  const double base_usd = a.wall_usd + a.checkpoint_storage_usd;
  auto lever = [&](std::string name, const RunInputs& changed) {
    const Analysis b = analyze(changed, false);
    const double days = core::in_days(b.expected.wall());
    a.levers.push_back({std::move(name), days, base_days - days,
                        base_usd - b.wall_usd - b.checkpoint_storage_usd});
  };
  RunInputs x = in;
  for (auto& c : x.failures.causes) c.per_gpu_hour /= 2;
  lever("halve the interrupt rate", x);
  x = in;
  x.restart.detection = x.restart.detection * 0.5;
  x.restart.rescheduling = x.restart.rescheduling * 0.5;
  x.restart.initialisation = x.restart.initialisation * 0.5;
  x.checkpoint.read_bandwidth = x.checkpoint.read_bandwidth * 2;
  // A plan that gives the restart as one time (restart_time) overrides the parts: halve that.
  if (x.restart.fixed_total) x.restart.fixed_total = *x.restart.fixed_total * 0.5;
  lever("halve the restart time", x);
  x = in;
  x.checkpoint.async = true;
  lever("asynchronous checkpoints", x);
  x = in;
  x.checkpoint.write_bandwidth = x.checkpoint.write_bandwidth * 2;
  x.checkpoint.read_bandwidth = x.checkpoint.read_bandwidth * 2;
  lever("double storage bandwidth", x);
  if (!in.interval) {
    x = in;
    x.interval = a.young;
    lever("checkpoint at Young's interval instead", x);
  } else {
    x = in;
    x.interval.reset();
    lever("checkpoint at the cost-optimal interval", x);
  }
  return a;
}

}  // namespace aicost::reliability
