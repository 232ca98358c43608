// Private to report: how numbers are rounded in machine-readable output.
#pragma once

#include <cmath>

namespace aicost::report {

inline double cents(double usd) { return std::round(usd * 100) / 100; }

// Six significant digits: the model is not more precise, and golden files stay readable.
inline double sig(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int e = 5 - static_cast<int>(std::floor(std::log10(std::fabs(x))));
  // Scale by an exact power of ten (multiply or divide) so the result is the nearest double.
  if (e >= 0) {
    const double m = std::pow(10.0, e);
    return std::round(x * m) / m;
  }
  const double m = std::pow(10.0, -e);
  return std::round(x / m) * m;
}

}  // namespace aicost::report
