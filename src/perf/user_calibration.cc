#include "aicost/perf/user_calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace aicost::perf {

namespace {

// A row responds to a parameter when a 10 % change of its value (of its search range when the
// value is 0) moves the prediction by more than 1 %: below that, the row cannot tell values apart.
bool responds(const Observation& o, const FitParameter& p) {
  const double base = o.predict(o.profile);
  if (!(base > 0) || !std::isfinite(base)) return false;
  const double v = p.get(o.profile);
  auto moved = o.profile;
  p.set(moved, v > 0 ? v * 1.1 : v + 0.1 * (p.hi - p.lo));
  const double other = o.predict(moved);
  return other > 0 && std::isfinite(other) && std::fabs(std::log(other / base)) > 0.01;
}

std::string rows_word(size_t n) { return n == 1 ? "row" : "rows"; }
std::string str(size_t n) { return std::to_string(n); }

}  // namespace

core::Result<UserCalibration> calibrate(std::vector<Observation> observations,
                                        const std::vector<FitParameter>& candidates,
                                        const CalibrationRules& rules) {
  using core::ErrorCode;
  if (observations.empty()) {
    return core::make_error(ErrorCode::kInvalidInput,
                            "no measured run to calibrate on: add rows with a supported GPU, "
                            "model and layout (see the skipped rows)");
  }
  UserCalibration out;
  std::map<std::string, std::vector<const Observation*>> by_generation;
  std::map<std::string, std::set<std::string>> groups_of;
  std::set<std::string> groups;
  for (const auto& o : observations) {
    by_generation[o.generation].push_back(&o);
    groups_of[o.generation].insert(o.group);
    groups.insert(o.group);
  }
  for (const auto& [g, rows] : by_generation) {
    out.generations.push_back(g);
    if (static_cast<int>(rows.size()) < rules.min_rows_per_generation) {
      const int more = rules.min_rows_per_generation - static_cast<int>(rows.size());
      return core::make_error(
          ErrorCode::kInvalidInput,
          "too few runs of " + g + " to calibrate: " + str(rows.size()) + " " +
              rows_word(rows.size()) + ", at least " + str(rules.min_rows_per_generation) +
              " needed (its values are fitted, then checked on rows they were not fitted to); "
              "add " +
              str(more) + " more " + g + (more == 1 ? " run" : " runs") + ", or remove its rows");
    }
  }
  const bool varied = static_cast<int>(observations.size()) >= rules.shared_min_rows &&
                      static_cast<int>(groups.size()) >= rules.shared_min_groups;
  for (auto p : candidates) {
    if (!p.per_generation && !varied) {
      out.held.push_back(
          {p.key, "shared by every generation: fitted only from at least " +
                      str(rules.shared_min_rows) + " rows of " + str(rules.shared_min_groups) +
                      " source groups (here " + str(observations.size()) + " " +
                      rows_word(observations.size()) + " of " + str(groups.size()) + ")"});
      continue;
    }
    std::string short_of;
    double start = 0;
    for (const auto& [g, rows] : by_generation) {
      int n = 0;
      for (const auto* o : rows) n += responds(*o, p) ? 1 : 0;
      if (n < rules.min_rows_per_generation) {
        short_of += (short_of.empty() ? "" : "; ") + str(n) + " of " + str(rows.size()) + " " + g +
                    " " + rows_word(rows.size()) + " respond to it";
      }
      const double shipped = p.get(rows.front()->profile);
      start += shipped;
      // The shipped value stays reachable: a search range or a per-generation ceiling below it
      // would move the value merely because the range excludes it, not because the rows say so.
      p.lo = std::min(p.lo, shipped);
      p.hi = std::max(p.hi, shipped);
      if (auto cap = p.hi_for.find(g); cap != p.hi_for.end())
        cap->second = std::max(cap->second, shipped);
    }
    if (!short_of.empty()) {
      out.held.push_back({p.key, "the rows do not determine it (" + short_of + "; at least " +
                                     str(rules.min_rows_per_generation) + " needed)"});
      continue;
    }
    // The shipped value (the mean over the generations present, for perf::fit's pooled stage);
    // on the lattice, so that an unchanged value reads as unchanged.
    p.start = p.per_generation ? start / by_generation.size() : p.get(observations.front().profile);
    // No prior: a parameter the user's rows do not determine is held above, not pulled to a value.
    p.prior_rows = 0;
    out.parameters.push_back(p);
  }
  if (out.parameters.empty()) {
    std::string why;
    for (const auto& h : out.held) why += "\n  " + h.key + ": " + h.reason;
    return core::make_error(ErrorCode::kInvalidInput,
                            "these rows determine none of the calibrated values; add runs that "
                            "differ in what the model is sensitive to (e.g. serving: TTFT rows for "
                            "the prefill share, throughput rows for the decode bandwidth):" +
                                why);
  }
  // Hold-out units.
  bool by_group = groups.size() > 1;
  for (const auto& [g, gs] : groups_of) by_group = by_group && gs.size() >= 2;
  if (by_group) {
    out.holdout = "source group";
  } else if (static_cast<int>(observations.size()) <= rules.max_leave_one_out) {
    out.holdout = "row";
    for (size_t i = 0; i < observations.size(); ++i) observations[i].group = "row " + str(i + 1);
  } else {
    out.holdout = str(rules.folds) + " folds";
    for (size_t i = 0; i < observations.size(); ++i) {
      observations[i].group = "fold " + str(i % rules.folds + 1);
    }
  }
  for (const auto& o : observations) out.before.push_back(o.predict(o.profile));
  out.cv = cross_validate(observations, out.parameters);
  out.observations = std::move(observations);
  return out;
}

std::vector<AccuracyCase> calibration_cases(const UserCalibration& c, CalibrationStage stage) {
  const auto& predicted = stage == CalibrationStage::kBefore  ? c.before
                          : stage == CalibrationStage::kAfter ? c.cv.held_out
                                                              : c.cv.in_sample;
  std::vector<AccuracyCase> out;
  for (size_t i = 0; i < c.observations.size(); ++i) {
    const auto& o = c.observations[i];
    out.push_back({o.name, o.regime, o.measured, predicted[i]});
  }
  return out;
}

}  // namespace aicost::perf
