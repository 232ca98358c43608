#include "aicost/reliability/closed_form.h"

#include <algorithm>
#include <cmath>

namespace aicost::reliability {

using core::Seconds;

Seconds job_mtbf(double rate, double units) {
  const double total = rate * units;
  return Seconds(total > 0 ? 1.0 / total : std::numeric_limits<double>::infinity());
}

Seconds young_interval(Seconds delta, Seconds mtbf) {
  return Seconds(std::sqrt(2 * delta.value() * mtbf.value()));
}

Seconds daly_interval(Seconds delta, Seconds mtbf) {
  const double d = delta.value(), m = mtbf.value();
  if (d >= 2 * m) return mtbf;
  const double x = d / (2 * m);
  return Seconds(std::sqrt(2 * d * m) * (1 + std::sqrt(x) / 3 + x / 9) - d);
}

double lambert_w0(double x) {
  if (x == 0) return 0;
  // Start from a series near the branch point or a log form for large x, then Halley steps.
  double w = x < 1 ? (x > -0.3 ? x * (1 - x) : -1 + std::sqrt(2 * (1 + std::exp(1.0) * x)))
                   : std::log(x) - std::log(std::log(x) + 1);
  for (int i = 0; i < 50; ++i) {
    const double e = std::exp(w);
    const double f = w * e - x;
    const double step = f / (e * (w + 1) - (w + 2) * f / (2 * w + 2));
    w -= step;
    if (std::fabs(step) < 1e-15 * (1 + std::fabs(w))) break;
  }
  return w;
}

Seconds optimal_interval_exact(Seconds delta, Seconds mtbf) {
  const double m = mtbf.value();
  return Seconds(m * (1 + lambert_w0(-std::exp(-(1 + delta.value() / m)))));
}

namespace {

// Expected time to complete a segment of length L (Daly 2006, eq. 11).
double segment_time(double length, double restart, double m) {
  return m * std::exp(restart / m) * std::expm1(length / m);
}

}  // namespace

Seconds expected_wall_time(Seconds work, Seconds tau, Seconds delta, Seconds restart,
                           Seconds mtbf) {
  const double w = work.value(), t = tau.value();
  const double full = std::floor(w / t);
  double rest = w - full * t;
  double segments = full;
  // The last segment needs no checkpoint after it.
  if (rest <= 0 && full > 0) {
    segments -= 1;
    rest = t;
  }
  const double m = mtbf.value();
  if (!std::isfinite(m)) return Seconds(segments * (t + delta.value()) + rest);
  return Seconds(segments * segment_time(t + delta.value(), restart.value(), m) +
                 segment_time(rest, restart.value(), m));
}

double first_order_waste(Seconds tau, Seconds delta, Seconds restart, Seconds mtbf) {
  return delta.value() / tau.value() + (tau.value() / 2 + restart.value()) / mtbf.value();
}

LossBreakdown expected_losses(Seconds work, Seconds tau, Seconds delta, Seconds restart,
                              Seconds mtbf) {
  LossBreakdown b;
  b.work = work;
  const double w = work.value(), t = tau.value(), m = mtbf.value();
  const double saves = std::max(0.0, std::ceil(w / t) - 1);
  b.checkpoints = delta * saves;
  const Seconds wall = expected_wall_time(work, tau, delta, restart, mtbf);
  if (!std::isfinite(m)) return b;
  // Interrupts arrive at rate 1/M over the whole wall time (Poisson), restarts included. Each
  // interrupt is followed by one restart attempt; the time spent in restart attempts is
  // E[min(Exp(M), R)] per attempt = M (1 - e^{-R/M}).
  b.interruptions = wall.value() / m;
  b.restarts = Seconds(b.interruptions * m * -std::expm1(-restart.value() / m));
  b.lost_work = wall - b.work - b.checkpoints - b.restarts;
  return b;
}

}  // namespace aicost::reliability
