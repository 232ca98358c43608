// The output of `aicost diff`: two estimates side by side, what changed in the inputs and what it
// does to the outputs. Pure function; thread-safe; never prints, never fails.
#pragma once

#include <string>

#include "aicost/report/estimate_report.h"
#include "aicost/report/format.h"

namespace aicost::report {

// Compares plan a (the baseline) with plan b. Both views must be complete (see EstimateView);
// otherwise the result is an empty string.
//
// Inputs: only the fields whose values differ, named as in the estimate JSON (gpu, gpus,
// tensor_model_parallel_size, ..., micro_batch_size, recompute_granularity, precision, tokens,
// price_basis, ...); the price fields need EstimateView::inputs on both sides.
// Outputs: always all of them; metric is the path in the estimate JSON ("training.step_time_s",
// "cost.categories.compute", "cost.total_usd"), delta = b - a in the metric's unit, relative =
// delta / a (null when a is 0). A cost category missing on one side counts as 0 USD there.
//
// kJson: {"schema_version": 1, "plans": {"a", "b"}, "inputs": [{field, a, b}],
//         "outputs": [{metric, unit, a, b, delta, relative}]}, money rounded to cents.
// kTable / kMarkdown: an "Inputs" list of "field  a → b" and an "Outputs" table of metric, a, b,
//   change and relative change ("+12.3 %"); ratios (MFU) change in percentage points ("pp").
// kCsv: kind,name,a,b,delta,relative with kind "input" or "output".
std::string render_diff(const EstimateView& a, const EstimateView& b, Format f);

}  // namespace aicost::report
