// Private to report: helpers shared by the estimate's text and JSON renderers.
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "aicost/core/text.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "aicost/perf/interval.h"
#include "aicost/report/estimate_report.h"
#include "json.h"

namespace aicost::report {

inline double share(double part, double whole) { return whole != 0 ? part / whole : 0.0; }

inline const char* nature_name(costing::CostNature n) {
  return n == costing::CostNature::kFixed ? "fixed" : "elastic";
}

// Parts of a step in the order they are shown, with their JSON names. `data_loading` only when
// the GPUs wait for data (docs/JSON_OUTPUT.md): a plan whose tier keeps up shows what it always
// did.
inline std::vector<std::pair<const char*, core::Seconds>> step_parts(const perf::StepBreakdown& s) {
  std::vector<std::pair<const char*, core::Seconds>> parts = {
      {"compute", s.compute}, {"recompute", s.recompute}, {"tp_comm", s.tp_comm},
      {"cp_comm", s.cp_comm}, {"ep_comm", s.ep_comm},     {"pp_comm", s.pp_comm},
      {"bubble", s.bubble},   {"dp_comm", s.dp_comm},     {"optimizer", s.optimizer}};
  if (s.data_loading.value() > 0) parts.push_back({"data_loading", s.data_loading});
  return parts;
}

inline std::vector<std::pair<const char*, core::Bytes>> memory_parts(
    const perf::MemoryBreakdown& m) {
  return {{"weights", m.weights},         {"gradients", m.gradients}, {"optimizer", m.optimizer},
          {"activations", m.activations}, {"logits", m.logits},       {"overhead", m.overhead}};
}

// 175e9 -> "175.0B", 350e6 -> "350.0M", smaller counts with grouped digits.
inline std::string count(double n) {
  if (n >= 1e9) return fmt::format("{:.1f}B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.1f}M", n / 1e6);
  return core::group_digits(n);
}

inline std::string pct(double ratio) { return fmt::format("{:.1f} %", ratio * 100); }
inline std::string on_off(bool b) { return b ? "on" : "off"; }

// How line `l` of v.cost was computed, in words and numbers ("768 GPU-h x 2.00 USD/GPU-h (plan)"),
// from the plan's inputs and the estimate (cost_drivers.cc); "" for a view without inputs.
std::string cost_driver(const EstimateView& v, const costing::CostLine& l);

// Where an 80 % interval comes from, as every report's JSON writes it (docs/JSON_OUTPUT.md).
Json interval_json(const perf::Interval& b);

}  // namespace aicost::report
