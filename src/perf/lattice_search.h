// Private to perf: minimising a loss over a box lattice, for calibration.cc.
#pragma once

#include <functional>
#include <vector>

namespace aicost::perf {

struct Axis {
  double lo = 0, hi = 0, step = 0;  // the values lo, lo + step, ..., hi
};

// The lattice point with the lowest `loss` found from `start` (projected onto the lattice):
//   1. Nelder-Mead (Nelder & Mead 1965; the standard coefficients 1, 2, 0.5, 0.5) on the box
//      scaled to [0, 1] per axis, restarted from its best point until a restart gains nothing
//      (restarts undo a collapsed simplex on long narrow valleys);
//   2. the nearest lattice point;
//   3. polishing on the lattice: every value of one axis at a time, then one step on two axes
//      at once (the four diagonal moves of every pair), until no move lowers the loss.
// Deterministic: fixed order, ties keep the earlier point. `evaluations` counts loss calls.
std::vector<double> minimise_on_lattice(
    const std::vector<Axis>& axes, const std::vector<double>& start,
    const std::function<double(const std::vector<double>&)>& loss, int* evaluations = nullptr);

}  // namespace aicost::perf
