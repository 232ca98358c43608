#include "lattice_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace aicost::perf {

namespace {

// A move must lower the loss by more than this (relative): rounding noise never moves a value.
constexpr double kTolerance = 1e-12;

class Search {
 public:
  Search(const std::vector<Axis>& axes,
         const std::function<double(const std::vector<double>&)>& loss)
      : axes_(axes), loss_(loss) {}

  int evaluations() const { return evaluations_; }

  double value(size_t i, double unit) const {
    return axes_[i].lo + std::clamp(unit, 0.0, 1.0) * (axes_[i].hi - axes_[i].lo);
  }
  double unit(size_t i, double v) const {
    const double span = axes_[i].hi - axes_[i].lo;
    return span > 0 ? (v - axes_[i].lo) / span : 0;
  }
  // Index of the lattice point nearest `v`, and the point itself.
  long steps(size_t i) const {
    return std::lround(std::floor((axes_[i].hi - axes_[i].lo) / axes_[i].step + 1e-9));
  }
  double at(size_t i, long k) const { return axes_[i].lo + k * axes_[i].step; }
  long nearest(size_t i, double v) const {
    return std::clamp(std::lround((v - axes_[i].lo) / axes_[i].step), 0L, steps(i));
  }

  double f(const std::vector<double>& values) {
    ++evaluations_;
    return loss_(values);
  }
  double f_units(const std::vector<double>& u) {
    std::vector<double> v(u.size());
    for (size_t i = 0; i < u.size(); ++i) v[i] = value(i, u[i]);
    return f(v);
  }

  // Nelder-Mead from `u0` (units); returns the best vertex and its loss.
  std::pair<std::vector<double>, double> nelder_mead(const std::vector<double>& u0) {
    const size_t n = u0.size();
    std::vector<std::vector<double>> x(n + 1, u0);
    for (size_t i = 0; i < n; ++i) x[i + 1][i] += u0[i] + 0.1 <= 1 ? 0.1 : -0.1;
    std::vector<double> fx(n + 1);
    for (size_t i = 0; i <= n; ++i) fx[i] = f_units(x[i]);
    std::vector<size_t> order(n + 1);
    const int max_evaluations = evaluations_ + 1000 * static_cast<int>(n + 1);
    while (evaluations_ < max_evaluations) {
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return fx[a] < fx[b]; });
      const size_t best = order.front(), worst = order.back(), second = order[n - 1];
      double spread = 0;
      for (size_t i = 0; i <= n; ++i) {
        for (size_t d = 0; d < n; ++d) spread = std::max(spread, std::fabs(x[i][d] - x[best][d]));
      }
      if (spread < 1e-7 && fx[worst] - fx[best] <= 1e-12) break;
      std::vector<double> centre(n, 0.0);
      for (size_t i = 0; i <= n; ++i) {
        if (i == worst) continue;
        for (size_t d = 0; d < n; ++d) centre[d] += x[i][d] / n;
      }
      // Points are projected onto the box, so that no vertex sits where the loss is flat.
      auto along = [&](double t) {
        std::vector<double> p(n);
        for (size_t d = 0; d < n; ++d)
          p[d] = std::clamp(centre[d] + t * (x[worst][d] - centre[d]), 0.0, 1.0);
        return p;
      };
      auto reflected = along(-1.0);
      const double fr = f_units(reflected);
      if (fr < fx[best]) {
        auto expanded = along(-2.0);
        const double fe = f_units(expanded);
        if (fe < fr) {
          x[worst] = expanded, fx[worst] = fe;
        } else {
          x[worst] = reflected, fx[worst] = fr;
        }
      } else if (fr < fx[second]) {
        x[worst] = reflected, fx[worst] = fr;
      } else {
        auto contracted = along(fr < fx[worst] ? -0.5 : 0.5);
        const double fc = f_units(contracted);
        if (fc < std::min(fr, fx[worst])) {
          x[worst] = contracted, fx[worst] = fc;
        } else {
          for (size_t i = 0; i <= n; ++i) {
            if (i == best) continue;
            for (size_t d = 0; d < n; ++d) x[i][d] = x[best][d] + 0.5 * (x[i][d] - x[best][d]);
            fx[i] = f_units(x[i]);
          }
        }
      }
    }
    const size_t best = static_cast<size_t>(std::min_element(fx.begin(), fx.end()) - fx.begin());
    return {x[best], fx[best]};
  }

  // Lattice moves from the point with indices `k` (loss `current`) until none helps.
  void polish(std::vector<long>& k, double& current) {
    const size_t n = k.size();
    auto values = [&](const std::vector<long>& idx) {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = at(i, idx[i]);
      return v;
    };
    auto better = [&](double trial) {
      return trial < current - kTolerance * std::max(1.0, current);
    };
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t i = 0; i < n; ++i) {
        for (long j = 0; j <= steps(i); ++j) {
          if (j == k[i]) continue;
          auto trial = k;
          trial[i] = j;
          const double ft = f(values(trial));
          if (better(ft)) k = trial, current = ft, moved = true;
        }
      }
      for (size_t a = 0; a < n; ++a) {
        for (size_t b = a + 1; b < n; ++b) {
          for (long da : {-1L, 1L}) {
            for (long db : {-1L, 1L}) {
              auto trial = k;
              trial[a] += da;
              trial[b] += db;
              if (trial[a] < 0 || trial[a] > steps(a) || trial[b] < 0 || trial[b] > steps(b))
                continue;
              const double ft = f(values(trial));
              if (better(ft)) k = trial, current = ft, moved = true;
            }
          }
        }
      }
    }
  }

 private:
  const std::vector<Axis>& axes_;
  const std::function<double(const std::vector<double>&)>& loss_;
  int evaluations_ = 0;
};

}  // namespace

std::vector<double> minimise_on_lattice(
    const std::vector<Axis>& axes, const std::vector<double>& start,
    const std::function<double(const std::vector<double>&)>& loss, int* evaluations) {
  if (axes.empty()) return {};
  Search s(axes, loss);
  std::vector<double> u(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) u[i] = std::clamp(s.unit(i, start[i]), 0.0, 1.0);
  double best = s.f_units(u);
  for (int restart = 0; restart < 10; ++restart) {
    auto [x, fx] = s.nelder_mead(u);
    const bool gained = fx < best - kTolerance * std::max(1.0, best);
    if (fx < best) u = x, best = fx;
    if (!gained) break;
  }
  std::vector<long> k(axes.size());
  std::vector<double> v(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    k[i] = s.nearest(i, s.value(i, u[i]));
    v[i] = s.at(i, k[i]);
  }
  double current = s.f(v);
  s.polish(k, current);
  for (size_t i = 0; i < axes.size(); ++i) v[i] = s.at(i, k[i]);
  if (evaluations) *evaluations = s.evaluations();
  return v;
}

}  // namespace aicost::perf
