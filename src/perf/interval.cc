#include "aicost/perf/interval.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace aicost::perf {

namespace {

// z(0.90), the standard normal's 90th percentile.
constexpr double kZ90 = 1.2815515655446004;

// t(0.90, nu) for nu = 1..30 (any table of Student's t, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
constexpr double kT90[] = {3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372,
                           1.363, 1.356, 1.350, 1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325,
                           1.323, 1.321, 1.319, 1.318, 1.316, 1.315, 1.314, 1.313, 1.311, 1.310};

double t90(int nu) {
  if (nu <= 30) return kT90[std::max(nu, 1) - 1];
  // Cornish-Fisher expansion of t about z (Abramowitz & Stegun 26.7.5), exact to 1e-4 here.
  const double z = kZ90, n = nu;
  return z + (z * z * z + z) / (4 * n) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

}  // namespace

std::string regime_of(const std::string& generation, catalog::Precision precision, bool moe) {
  return generation + "/" + catalog::to_string(precision) + "/" + (moe ? "moe" : "dense");
}

std::vector<std::string> regime_pools(const std::string& regime) {
  std::vector<std::string> pools;
  std::string r = regime;
  while (!r.empty()) {
    pools.push_back(r);
    const auto slash = r.rfind('/');
    r = slash == std::string::npos ? "" : r.substr(0, slash);
  }
  pools.push_back("all");
  return pools;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * q;
  const auto i = static_cast<size_t>(std::floor(h));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (h - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

double small_sample_factor(int n) {
  n = std::max(n, 2);
  return t90(n - 1) * std::sqrt(1 + 1.0 / n) / kZ90;
}

catalog::ErrorBands build_error_bands(const std::vector<std::string>& regimes,
                                      const std::vector<std::string>& groups,
                                      const std::vector<double>& ratios, std::string source) {
  std::map<std::string, std::vector<double>> pools;  // log ratios
  std::map<std::string, std::set<std::string>> pool_groups;
  for (size_t i = 0; i < regimes.size(); ++i) {
    for (const auto& p : regime_pools(regimes[i])) {
      pools[p].push_back(std::log(ratios[i]));
      pool_groups[p].insert(groups[i]);
    }
  }
  catalog::ErrorBands out;
  out.source = std::move(source);
  for (const auto& [regime, logs] : pools) {
    catalog::ErrorBand b;
    b.regime = regime;
    b.rows = static_cast<int>(logs.size());
    b.groups = static_cast<int>(pool_groups[regime].size());
    b.p10 = std::exp(quantile(logs, 0.1));
    b.median = std::exp(quantile(logs, 0.5));
    b.p90 = std::exp(quantile(logs, 0.9));
    b.min = std::exp(*std::min_element(logs.begin(), logs.end()));
    b.max = std::exp(*std::max_element(logs.begin(), logs.end()));
    out.bands.push_back(b);
  }
  return out;
}

Interval interval_for(const catalog::ErrorBands& bands, const std::string& regime) {
  Interval iv;
  iv.regime = regime;
  const catalog::ErrorBand* own = bands.find(regime);
  iv.regime_rows = own ? own->rows : 0;
  iv.little_data = iv.regime_rows < kMinBandRows;
  const catalog::ErrorBand* used = nullptr;
  for (const auto& p : regime_pools(regime)) {
    const auto* b = bands.find(p);
    if (!b) continue;
    used = b;
    if (b->rows >= kMinBandRows && b->groups >= kMinBandSources) break;
  }
  if (!used) return iv;  // no bands at all: unknown
  iv.known = true;
  iv.pool = used->regime;
  iv.pool_rows = used->rows;
  iv.pool_groups = used->groups;
  iv.widening = small_sample_factor(used->groups);
  const double m = std::log(used->median);
  double lo = m + iv.widening * (std::log(used->p10) - m);
  double hi = m + iv.widening * (std::log(used->p90) - m);
  if (own && own != used) {
    lo = std::min(lo, std::log(own->min));
    hi = std::max(hi, std::log(own->max));
  }
  iv.lo = std::exp(lo);
  iv.hi = std::exp(hi);
  return iv;
}

double band_coverage(const std::vector<std::string>& regimes,
                     const std::vector<std::string>& groups, const std::vector<double>& ratios) {
  if (ratios.empty()) return 0;
  int covered = 0;
  std::map<std::string, catalog::ErrorBands> without;
  for (const auto& g : groups) {
    if (without.count(g)) continue;
    std::vector<std::string> r, gs;
    std::vector<double> x;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (groups[i] == g) continue;
      r.push_back(regimes[i]);
      gs.push_back(groups[i]);
      x.push_back(ratios[i]);
    }
    without[g] = build_error_bands(r, gs, x, "");
  }
  for (size_t i = 0; i < ratios.size(); ++i) {
    const Interval iv = interval_for(without[groups[i]], regimes[i]);
    if (iv.known && ratios[i] >= iv.lo && ratios[i] <= iv.hi) ++covered;
  }
  return static_cast<double>(covered) / static_cast<double>(ratios.size());
}

}  // namespace aicost::perf
