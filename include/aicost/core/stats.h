// Statistics helpers shared by the models (serving SLAs) and governance (forecast intervals).
#pragma once

namespace aicost::core {

// The standard normal quantile, the inverse of Phi (Acklam's rational approximation plus one
// Halley step: a few ulps in the central region). -inf for p <= 0, +inf for p >= 1, NaN for NaN.
double normal_quantile(double p);

// Student's t distribution with `df` > 0 degrees of freedom (fractional df allowed, as Welch's
// test gives): its CDF through the regularized incomplete beta function (Numerical Recipes 6.4,
// the continued fraction by Lentz's method; about 1e-12 absolute), and its quantile by bisection
// on that CDF. NaN for df <= 0 or NaN arguments; the quantile is -inf/+inf at p <= 0 / p >= 1.
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);

}  // namespace aicost::core
