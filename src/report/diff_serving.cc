#include <functional>
#include <optional>

#include "aicost/report/diff_report.h"
#include "chart_parts.h"
#include "diff_parts.h"

namespace aicost::report {

namespace {

using diff::Kind;

// The cheapest deployment chosen, named as in the serving estimate JSON; null when none meets
// the SLA.
diff::Fields resolved_fields(const ServingView& v) {
  if (!v.best) return {{"serving.option", Json()}, {"serving.max_batch", Json()}};
  return {{"serving.option", option_name((*v.options)[v.best->option])},
          {"serving.max_batch", v.best->max_batch}};
}

using Get = std::function<double(const ServingView&, const serving::Deployment&)>;

std::optional<double> of(const ServingView& v, const Get& get) {
  if (!v.best) return std::nullopt;
  return get(v, *v.best);
}

std::vector<diff::Row> outputs(const ServingView& a, const ServingView& b) {
  std::vector<diff::Row> rows;
  auto add = [&](const char* path, const char* label, const char* unit, Kind kind, const Get& get) {
    rows.push_back(diff::row(path, label, unit, kind, of(a, get), of(b, get)));
  };
  using D = serving::Deployment;
  add("serving.replicas", "replicas", "replicas", Kind::kCount,
      [](const ServingView&, const D& d) { return d.replicas; });
  add("serving.gpus", "GPUs", "GPUs", Kind::kCount, [](const ServingView& v, const D& d) {
    return d.replicas * (*v.options)[d.option].replica.tensor_parallel;
  });
  add("serving.ttft_tail_s", "TTFT at the SLA percentile (s)", "s", Kind::kSeconds,
      [](const ServingView&, const D& d) { return d.load.ttft_tail.value(); });
  add("serving.tpot_s", "time per output token (s)", "s", Kind::kSeconds,
      [](const ServingView&, const D& d) { return d.load.step.value(); });
  add("serving.e2e_tail_s", "request latency at the SLA percentile (s)", "s", Kind::kSeconds,
      [](const ServingView&, const D& d) { return d.load.e2e_tail.value(); });
  add("serving.usd_per_million_input_tokens", "per 1M input tokens (USD)", "USD", Kind::kUsdMilli,
      [](const ServingView&, const D& d) { return d.per_million_input_tokens.value(); });
  add("serving.usd_per_million_output_tokens", "per 1M output tokens (USD)", "USD", Kind::kUsdMilli,
      [](const ServingView&, const D& d) { return d.per_million_output_tokens.value(); });
  add("serving.usd_per_million_tokens", "per 1M tokens (USD)", "USD", Kind::kUsdMilli,
      [](const ServingView&, const D& d) { return d.per_million_tokens.value(); });
  add("serving.monthly_usd", "deployment a month (USD)", "USD", Kind::kUsd,
      [](const ServingView&, const D& d) { return d.monthly.value(); });
  add("fleet.monthly_usd", "fleet a month, as the plan runs it (USD)", "USD", Kind::kUsd,
      [](const ServingView& v, const D&) { return v.fleet->monthly.value(); });
  return rows;
}

}  // namespace

std::string render_serving_diff(const ServingView& a, const PlanValues& a_values,
                                const ServingView& b, const PlanValues& b_values, Format f) {
  for (const auto* v : {&a, &b}) {
    if (v->options == nullptr || v->traffic == nullptr || v->sla == nullptr ||
        v->fleet == nullptr) {
      return "";
    }
  }
  diff::Diff d = diff::compare("serving", {a.plan_name, a_values, resolved_fields(a)},
                               {b.plan_name, b_values, resolved_fields(b)});
  d.outputs = outputs(a, b);
  return diff::render(d, f);
}

}  // namespace aicost::report
