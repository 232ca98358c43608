// The output of `aicost estimate`: one training plan's performance, memory, reliability and cost
// in every Format. The JSON and CSV shapes are stable contracts, documented field by field with
// their units in docs/JSON_OUTPUT.md; the table and markdown layouts are for people and may change.
// Pure functions of their input; thread-safe; they never print and never fail.
#pragma once

#include <string>
#include <vector>

#include "aicost/costing/cost_inputs.h"
#include "aicost/costing/cost_model.h"
#include "aicost/costing/interval.h"
#include "aicost/perf/estimate.h"
#include "aicost/reliability/simulation.h"
#include "aicost/report/format.h"
#include "aicost/workload/training_job.h"

namespace aicost::report {

// Version of the JSON/CSV shape; bumped only when a field is removed or changes meaning.
inline constexpr int kEstimateSchemaVersion = 1;

// The "model FLOPs" convention of perf (3 x forward, FlopConvention::kCausal), as JSON states it.
inline constexpr const char* kFlopConvention =
    "megatron-causal: 3x forward, causal attention halved";

// Everything one `aicost estimate` shows. job, perf and cost must be non-null and must outlive
// the call (a view with a null one renders as an empty string). inputs is optional: when given,
// the price basis and pricing mode are shown (and compared by render_diff).
struct EstimateView {
  std::string plan_name;
  const workload::TrainingJob* job = nullptr;
  const perf::TrainingEstimate* perf = nullptr;
  const costing::CostEstimate* cost = nullptr;
  std::vector<std::string> warnings;
  const costing::CostInputs* inputs = nullptr;
  // Monte-Carlo bands of wall time, GPU-hours and cost (`aicost estimate --simulate N`).
  const reliability::SimulationResult* simulation = nullptr;
  uint64_t simulation_seed = 0;
  // The 80 % interval of the estimate (docs/VALIDATION.md "Intervals"); null: none shown.
  const costing::EstimateInterval* interval = nullptr;
};

// One line on where an interval comes from: "80 % interval: cross-validated error of
// hopper/bf16/dense (13 runs), widened x1.06 for the sample size", or with "little data: ...".
std::string interval_note(const perf::Interval& band);

// The warnings a report shows: v.warnings, then perf->warnings, then cost->warnings, each text
// once (the first occurrence wins), in that order.
std::vector<std::string> collect_warnings(const EstimateView& v);

// kJson: render_estimate_json. kTable: a header block, then the sections Performance, Step
// breakdown, Memory per GPU, Reliability, Cost (with "a month is 730 hours"), then one
// "warning: ..." line per warning. kMarkdown: the same sections as pipe tables. kCsv: the flat
// record,name,value,unit,share,nature,detail shape of docs/JSON_OUTPUT.md.
std::string render_estimate(const EstimateView& v, Format f);

// The JSON object of docs/JSON_OUTPUT.md, pretty-printed (2 spaces) with a final newline.
// Money in USD rounded to cents; ratios in 0..1; other reals rounded to 6 significant digits.
std::string render_estimate_json(const EstimateView& v);

}  // namespace aicost::report
