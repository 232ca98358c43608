// Statistics helpers shared by the models (serving SLAs) and governance (forecast intervals).
#pragma once

namespace aicost::core {

// The standard normal quantile, the inverse of Phi (Acklam's rational approximation plus one
// Halley step: a few ulps in the central region). -inf for p <= 0, +inf for p >= 1, NaN for NaN.
double normal_quantile(double p);

}  // namespace aicost::core
