#include "aicost/reliability/simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <thread>

#include "aicost/core/rng.h"
#include "aicost/reliability/analysis.h"

namespace aicost::reliability {

double Summary::sem(int n) const { return n > 1 ? stddev / std::sqrt(static_cast<double>(n)) : 0; }

Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / v.size();
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(sq / (v.size() - 1)) : 0;
  auto q = [&](double p) {
    const double pos = p * (v.size() - 1);
    const size_t i = static_cast<size_t>(pos);
    const double frac = pos - i;
    return i + 1 < v.size() ? v[i] * (1 - frac) + v[i + 1] * frac : v[i];
  };
  s.p10 = q(0.1);
  s.p50 = q(0.5);
  s.p90 = q(0.9);
  return s;
}

Histogram histogram(const std::vector<double>& values, int bins) {
  Histogram h;
  if (values.empty()) return h;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  h.lo = *lo;
  if (*hi == *lo) {
    h.counts = {static_cast<int>(values.size())};
    return h;
  }
  bins = std::max(1, bins);
  h.width = (*hi - *lo) / bins;
  h.counts.assign(bins, 0);
  for (double v : values) {
    // The greatest value lands on the last bin's upper end: counted in it.
    const auto i = static_cast<int>((v - h.lo) / h.width);
    ++h.counts[std::clamp(i, 0, bins - 1)];
  }
  return h;
}

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

class Run {
 public:
  Run(const SimulationSpec& spec, core::Rng rng, const std::vector<double>& shares)
      : s_(spec), rng_(rng), shares_(shares) {
    const double rate = spec.failures.job_rate(spec.gpus);
    mean_ = rate > 0 ? 1 / rate : kNever;
    if (spec.failures.distribution == Distribution::kWeibull) {
      const double k = spec.failures.weibull_shape;
      scale_ = mean_ / std::tgamma(1 + 1 / k);  // keeps the mean at 1 / rate
    }
    spares_ = spec.spare_nodes;
    const double per_day = spec.failures.maintenance_per_day;
    maintenance_period_ = per_day > 0 ? core::kSecondsPerDay / per_day : kNever;
  }

  RunResult run(uint64_t& events) {
    RunResult r;
    const double work = s_.work.value(), tau = s_.interval.value();
    const double delta = s_.blocking.value();
    const double seg = tau + delta;
    double t = 0, done = 0, next_maintenance = maintenance_period_;
    double to_fail = draw();
    while (done < work) {
      const double left = work - done;
      if (left > tau) {
        // Full segments (work + checkpoint) that complete before the next interrupt or
        // maintenance window, taken in one step.
        const double full_left = std::ceil(left / tau) - 1;
        double k = std::min(full_left, std::floor(to_fail / seg));
        if (next_maintenance < kNever) {
          k = std::min(k, std::max(1.0, std::ceil((next_maintenance - t) / seg)));
        }
        if (k >= 1) {
          t += k * seg;
          to_fail -= k * seg;
          done += k * tau;
          r.checkpoints += k * delta;
          events += static_cast<uint64_t>(k);
          if (t >= next_maintenance) {
            // Planned: taken right after a checkpoint, so no work is lost.
            const double down = s_.failures.maintenance_downtime.value() + s_.restart.value();
            t += down;
            r.maintenance += down;
            next_maintenance += maintenance_period_;
            ++events;
          }
          continue;
        }
      } else if (to_fail >= left) {  // the last segment: no checkpoint after it
        t += left;
        done = work;
        break;
      }
      // Interrupted within this segment: its work and any partial save are lost.
      t += to_fail;
      r.lost_work += to_fail;
      interrupt(r, t, events);
      to_fail = restart(r, t, events);
    }
    r.wall = t;
    return r;
  }

 private:
  double draw() {
    if (mean_ == kNever) return kNever;
    return s_.failures.distribution == Distribution::kWeibull
               ? rng_.weibull(s_.failures.weibull_shape, scale_)
               : rng_.exponential(mean_);
  }

  // Counts an interrupt and, with a spare limit, sends the failed nodes to repair and waits for
  // a replacement when the pool is empty.
  void interrupt(RunResult& r, double& t, uint64_t& events) {
    ++r.interruptions;
    ++events;
    if (spares_ < 0) return;
    const auto& cause = s_.failures.causes[pick_cause()];
    if (cause.nodes_lost <= 0) return;
    while (!repairs_.empty() && repairs_.top() <= t) {
      repairs_.pop();
      ++spares_;
    }
    for (int n = 0; n < cause.nodes_lost; ++n) {
      const double mean = cause.repair_time.value();
      repairs_.push(t + (s_.random_repair ? rng_.exponential(mean) : mean));
    }
    int need = cause.nodes_lost;
    while (spares_ < need) {
      const double back = repairs_.top();
      repairs_.pop();
      if (back > t) {
        r.stalls += back - t;
        t = back;
      }
      ++spares_;
    }
    spares_ -= need;
  }

  size_t pick_cause() {
    double u = rng_.uniform();
    for (size_t i = 0; i < shares_.size(); ++i) {
      if (u < shares_[i]) return i;
      u -= shares_[i];
    }
    return shares_.size() - 1;
  }

  // Restart attempts until one completes; returns the time to the next interrupt after it.
  double restart(RunResult& r, double& t, uint64_t& events) {
    const double R = s_.restart.value();
    while (true) {
      const double to_fail = draw();
      if (to_fail >= R) {
        t += R;
        r.restarts += R;
        return to_fail - R;  // the renewal clock keeps running through the restart
      }
      t += to_fail;
      r.restarts += to_fail;
      interrupt(r, t, events);
    }
  }

  const SimulationSpec& s_;
  core::Rng rng_;
  const std::vector<double>& shares_;
  double mean_ = kNever, scale_ = 0, maintenance_period_ = kNever;
  int spares_ = -1;
  std::priority_queue<double, std::vector<double>, std::greater<>> repairs_;
};

}  // namespace

SimulationSpec simulation_spec(const RunInputs& in, core::Seconds interval, int spare_nodes) {
  SimulationSpec s;
  s.work = in.work;
  s.interval = interval;
  s.blocking = in.checkpoint.blocking();
  s.restart = in.restart.total(in.checkpoint);
  s.gpus = in.gpus;
  s.gpus_per_node = in.gpus_per_node;
  s.failures = in.failures;
  s.spare_nodes = spare_nodes;
  return s;
}

SimulationResult simulate(const SimulationSpec& spec, const SimulationOptions& options) {
  const int runs = std::max(0, options.runs);
  std::vector<RunResult> results(runs);
  std::vector<uint64_t> events(runs, 0);
  const std::vector<double> shares = spec.failures.cause_shares();
  const core::Rng root(options.seed);
  int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min(threads, std::max(runs, 1)));
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next++; i < runs; i = next++) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) break;
      Run run(spec, root.split(static_cast<uint64_t>(i)), shares);
      results[i] = run.run(events[i]);
      if (options.progress) options.progress->fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();

  SimulationResult out;
  out.runs = runs;
  std::vector<double> wall, ettr, interrupts;
  for (int i = 0; i < runs; ++i) {  // in run order: sums do not depend on the threads
    const auto& r = results[i];
    wall.push_back(r.wall);
    ettr.push_back(r.wall > 0 ? spec.work.value() / r.wall : 1);
    interrupts.push_back(r.interruptions);
    out.checkpoints += r.checkpoints;
    out.lost_work += r.lost_work;
    out.restarts += r.restarts;
    out.stalls += r.stalls;
    out.maintenance += r.maintenance;
    out.events += events[i];
  }
  if (runs > 0) {
    for (double* x :
         {&out.checkpoints, &out.lost_work, &out.restarts, &out.stalls, &out.maintenance}) {
      *x /= runs;
    }
  }
  const int bins = std::min(40, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(runs)))));
  out.wall_histogram = histogram(wall, bins);
  out.wall_s = summarize(std::move(wall));
  out.ettr = summarize(std::move(ettr));
  out.interruptions = summarize(std::move(interrupts));
  return out;
}

}  // namespace aicost::reliability
