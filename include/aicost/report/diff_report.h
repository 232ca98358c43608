// The output of `aicost diff`: two estimates side by side, what changed in the inputs and what it
// does to the outputs. Pure functions; thread-safe; never print, never fail.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aicost/report/estimate_report.h"
#include "aicost/report/format.h"
#include "aicost/report/serving_report.h"

namespace aicost::report {

// Every value a plan file gives, as (path, text as written): config::Plan::values.
using PlanValues = std::vector<std::pair<std::string, std::string>>;

// Compares training plan a (the baseline) with plan b. Both views must be complete (see
// EstimateView); otherwise the result is an empty string.
//
// Inputs: every path of either file whose text differs ("storage.checkpoint_interval": "2h" →
// "3h"; null on the side whose file does not set it), in a's file order, then the paths only b
// sets. Being generic, it compares every key a plan reader accepts, with no list to keep.
// Resolved: what the files leave to defaults, derive or look up, where it differs, named as in
// the estimate JSON (model, gpu, gpus, tensor_model_parallel_size, ..., data_parallel_size,
// micro_batches, ..., price_basis, pricing_mode, price_per_gpu_hour_usd), less those an input
// already shows with the same values (`parallelism.micro_batch_size` 1 → 2 hides
// micro_batch_size 1 → 2); the price fields need EstimateView::inputs on both sides.
// Outputs: always all of them; metric is the path in the estimate JSON ("training.step_time_s",
// "cost.categories.compute", "cost.total_usd"), delta = b - a in the metric's unit, relative =
// delta / a (null when a is 0). A cost category missing on one side counts as 0 USD there.
//
// kJson: {"schema_version": 1, "kind": "training", "plans": {"a", "b"}, "inputs": [{path, a, b}],
//         "resolved": [{field, a, b}], "outputs": [{metric, unit, a, b, delta, relative}]},
//         money rounded to cents.
// kTable / kMarkdown: an "Inputs" list of "path  a → b" ("not set" for null), a "Resolved" list
//   when one differs, and an "Outputs" table of metric, a, b, change and relative change
//   ("+12.3 %"); ratios (MFU) change in percentage points ("pp").
// kCsv: kind,name,a,b,delta,relative with kind "input", "resolved" or "output".
// kHtml: the table, with charts of cost by category and step time by cause.
std::string render_diff(const EstimateView& a, const PlanValues& a_values, const EstimateView& b,
                        const PlanValues& b_values, Format f);

// The same for two serving plans (both views need options, traffic, sla and fleet; otherwise
// ""). Resolved: the cheapest deployment chosen (serving.option "GPU TPn precision",
// serving.max_batch). Outputs, named as in the serving estimate JSON: serving.replicas,
// serving.gpus, serving.ttft_tail_s, serving.tpot_s, serving.e2e_tail_s,
// serving.usd_per_million_tokens (and _input_ / _output_), serving.monthly_usd and
// fleet.monthly_usd; a and b are null on the side where no deployment meets the SLA, and delta
// and relative are then null too. kJson has "kind": "serving"; kHtml has no charts.
std::string render_serving_diff(const ServingView& a, const PlanValues& a_values,
                                const ServingView& b, const PlanValues& b_values, Format f);

}  // namespace aicost::report
