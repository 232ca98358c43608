#include "aicost/report/calibration_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "accuracy_parts.h"
#include "aicost/core/units.h"
#include "aicost/report/table.h"
#include "rounding.h"

namespace aicost::report {

namespace {

struct Number {
  std::string name, key, generation;
  size_t parameter;
  double shipped, value, lo, hi;
  std::string bound;  // "upper" or "lower" when the value sits at an end of its search range
};

// Each fitted value per generation (shared ones once), with the shipped value it started from and
// its range over the cross-validation folds.
std::vector<Number> numbers(const perf::UserCalibration& c) {
  std::vector<Number> out;
  for (size_t k = 0; k < c.parameters.size(); ++k) {
    const auto& p = c.parameters[k];
    for (const auto& g : c.generations) {
      const auto it = std::find_if(c.observations.begin(), c.observations.end(),
                                   [&](const auto& o) { return o.generation == g; });
      Number n{p.per_generation ? p.key + "[" + g + "]" : p.key,
               p.key,
               g,
               k,
               p.get(it->profile),
               c.cv.all.value(k, g),
               0,
               0,
               ""};
      n.lo = n.hi = n.value;
      for (const auto& f : c.cv.folds) {
        n.lo = std::min(n.lo, f.value(k, g));
        n.hi = std::max(n.hi, f.value(k, g));
      }
      double top = p.hi;
      if (auto cap = p.hi_for.find(g); cap != p.hi_for.end()) top = std::min(top, cap->second);
      if (std::fabs(n.value - top) < 1e-12) n.bound = "upper";
      if (std::fabs(n.value - p.lo) < 1e-12) n.bound = "lower";
      out.push_back(n);
      if (!p.per_generation) break;
    }
  }
  return out;
}

}  // namespace

std::string render_calibration(const perf::UserCalibration& c, bool serving,
                               const std::vector<std::string>& skipped, Format format) {
  using perf::CalibrationStage;
  const auto before = perf::calibration_cases(c, CalibrationStage::kBefore);
  const auto after = perf::calibration_cases(c, CalibrationStage::kAfter);
  const auto in_sample = perf::calibration_cases(c, CalibrationStage::kInSample);
  std::vector<std::string> regimes;
  for (const auto& o : c.observations) {
    if (std::find(regimes.begin(), regimes.end(), o.regime) == regimes.end())
      regimes.push_back(o.regime);
  }
  std::sort(regimes.begin(), regimes.end());
  auto of_regime = [&](const std::vector<perf::AccuracyCase>& cases, const std::string& r) {
    std::vector<perf::AccuracyCase> out;
    for (const auto& x : cases) {
      if (x.group == r) out.push_back(x);
    }
    return out;
  };
  const auto fitted = numbers(c);

  if (format == Format::kJson) {
    Json j;
    j["kind"] = serving ? "serving" : "training";
    j["rows"] = c.observations.size();
    j["generations"] = c.generations;
    j["holdout"] = c.holdout;
    j["folds"] = c.cv.folds.size();
    j["parameters"] = Json::array();
    for (const auto& n : fitted) {
      const auto& p = c.parameters[n.parameter];
      j["parameters"].push_back(
          {{"name", n.name},
           {"key", n.key},
           {"generation", p.per_generation ? Json(n.generation) : Json(nullptr)},
           {"shipped", sig(n.shipped)},
           {"value", sig(n.value)},
           {"text", core::format_in_unit(n.value, p.unit)},
           {"folds", {{"min", sig(n.lo)}, {"max", sig(n.hi)}}},
           {"bound", n.bound.empty() ? Json(nullptr) : Json(n.bound)}});
    }
    j["held"] = Json::array();
    for (const auto& h : c.held) j["held"].push_back({{"key", h.key}, {"reason", h.reason}});
    auto stages = [&](const std::vector<perf::AccuracyCase>& b,
                      const std::vector<perf::AccuracyCase>& a,
                      const std::vector<perf::AccuracyCase>& i) {
      return Json{
          {"before", summary_json(b)}, {"after", summary_json(a)}, {"in_sample", summary_json(i)}};
    };
    j["summary"]["all"] = stages(before, after, in_sample);
    for (const auto& r : regimes) {
      j["summary"][r] = stages(of_regime(before, r), of_regime(after, r), of_regime(in_sample, r));
    }
    j["runs"] = Json::array();
    for (size_t i = 0; i < c.observations.size(); ++i) {
      const auto& o = c.observations[i];
      j["runs"].push_back({{"run", o.name},
                           {"regime", o.regime},
                           {"holdout", o.group},
                           {"measured", sig(o.measured)},
                           {"before", sig(c.before[i])},
                           {"before_error", sig(before[i].error())},
                           {"after", sig(c.cv.held_out[i])},
                           {"after_error", sig(after[i].error())},
                           {"in_sample", sig(c.cv.in_sample[i])}});
    }
    j["skipped"] = skipped;
    return json_text(j) + "\n";
  }

  std::string generations;
  for (const auto& g : c.generations) generations += (generations.empty() ? "" : ", ") + g;
  Table p;
  p.title = fmt::format(
      "Calibrated values ({} {} rows of {}; cross-validated holding out each {})",
      c.observations.size(), serving ? "serving" : "training", generations,
      c.holdout == "row" || c.holdout == "source group" ? c.holdout : "of " + c.holdout);
  p.header = {"parameter", "shipped", "calibrated", "folds min", "folds max", "note"};
  p.right_align = {false, true, true, true, true, false};
  for (const auto& n : fitted) {
    const auto& q = c.parameters[n.parameter];
    p.rows.push_back({n.name, core::format_in_unit(n.shipped, q.unit),
                      core::format_in_unit(n.value, q.unit), core::format_in_unit(n.lo, q.unit),
                      core::format_in_unit(n.hi, q.unit),
                      n.bound == "upper"
                          ? "at its upper bound (the chip's measured ceiling or the shipped value)"
                      : n.bound == "lower" ? "at its lower bound"
                                           : ""});
  }
  Table held;
  held.title = "Left at the catalog's values";
  held.header = {"parameter", "why"};
  for (const auto& h : c.held) held.rows.push_back({h.key, h.reason});
  Table summary;
  summary.title = "|error| before (shipped profile) and after (calibrated, cross-validated)";
  summary.header = {"regime",
                    "runs",
                    "before_median_pct",
                    "before_p90_pct",
                    "before_bias_pct",
                    "after_median_pct",
                    "after_p90_pct",
                    "after_bias_pct",
                    "in_sample_median_pct"};
  summary.right_align = {false, true, true, true, true, true, true, true, true};
  auto add = [&](const std::string& name, const std::vector<perf::AccuracyCase>& b,
                 const std::vector<perf::AccuracyCase>& a,
                 const std::vector<perf::AccuracyCase>& i) {
    const auto sb = perf::summarize(b), sa = perf::summarize(a), si = perf::summarize(i);
    summary.rows.push_back({name, std::to_string(sb.count), pct(sb.median_abs), pct(sb.p90_abs),
                            signed_pct(sb.mean_signed), pct(sa.median_abs), pct(sa.p90_abs),
                            signed_pct(sa.mean_signed), pct(si.median_abs)});
  };
  add("all", before, after, in_sample);
  for (const auto& r : regimes)
    add(r, of_regime(before, r), of_regime(after, r), of_regime(in_sample, r));
  Table rows;
  rows.title =
      "Measured vs predicted: shipped profile, and calibrated without the row's hold-out unit";
  rows.header = {"run",    "regime",           "held_out_with", "measured",
                 "before", "before_error_pct", "after",         "after_error_pct"};
  rows.right_align = {false, false, false, true, true, true, true, true};
  for (size_t i = 0; i < c.observations.size(); ++i) {
    const auto& o = c.observations[i];
    rows.rows.push_back({o.name, o.regime, o.group, value(o.measured), value(c.before[i]),
                         signed_pct(before[i].error()), value(c.cv.held_out[i]),
                         signed_pct(after[i].error())});
  }
  std::string out = render(p, format) + "\n";
  if (!held.rows.empty()) out += render(held, format) + "\n";
  out += render(summary, format) + "\n" + render(rows, format);
  return with_skipped(out, skipped, format);
}

}  // namespace aicost::report
