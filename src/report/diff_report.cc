#include "aicost/report/diff_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rounding.h"
#include <functional>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "aicost/core/text.h"
#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"
#include "json.h"

namespace aicost::report {

namespace {



// ---- inputs ----------------------------------------------------------------------------------

std::vector<std::pair<std::string, Json>> input_fields(const EstimateView& v) {
  const auto& job = *v.job;
  const auto& par = job.parallel;
  std::vector<std::pair<std::string, Json>> f = {
      {"model", job.model.spec().id},
      {"gpu", job.cluster.gpu.id},
      {"gpus", job.cluster.gpus},
      {"gpus_per_node", job.cluster.gpus_per_node},
      {"tensor_model_parallel_size", par.tensor},
      {"pipeline_model_parallel_size", par.pipeline},
      {"virtual_pipeline_model_parallel_size", par.virtual_pipeline},
      {"context_parallel_size", par.context},
      {"expert_model_parallel_size", par.expert},
      // The effective ETP follows TP on a dense model, where it means nothing: compare it for MoE.
      {"expert_tensor_parallel_size", job.model.is_moe() ? Json(job.expert_tensor()) : Json()},
      {"data_parallel_size", job.data_parallel()},
      {"micro_batch_size", par.micro_batch},
      {"micro_batches", job.micro_batches()},
      {"global_batch_size", job.global_batch},
      {"seq_length", job.seq_length},
      {"sequence_parallel", par.sequence_parallel},
      {"recompute_granularity", workload::to_string(par.recompute)},
      {"optimizer_sharding", workload::to_string(par.sharding)},
      {"attention_kernel", workload::to_string(par.attention)},
      {"overlap_grad_reduce", par.overlap_grad_reduce},
      {"overlap_param_gather", par.overlap_param_gather},
      {"tp_comm_overlap", par.tp_comm_overlap},
      {"precision", catalog::to_string(job.precision)},
      {"tokens", std::llround(job.tokens)}};
  if (v.inputs != nullptr) {
    f.emplace_back("price_basis", v.inputs->compute.basis);
    f.emplace_back("pricing_mode", costing::mode_name(v.inputs->compute));
    f.emplace_back("price_per_gpu_hour_usd", sig(core::per_hour(v.inputs->compute.per_gpu)));
  } else {
    f.emplace_back("price_basis", nullptr);
    f.emplace_back("pricing_mode", nullptr);
    f.emplace_back("price_per_gpu_hour_usd", nullptr);
  }
  return f;
}

// How an input value reads in a table: strings bare, booleans on/off, integers grouped.
std::string show(const Json& x) {
  if (x.is_null()) return "-";
  if (x.is_string()) return x.get<std::string>();
  if (x.is_boolean()) return x.get<bool>() ? "on" : "off";
  if (x.is_number_integer()) return core::group_digits(x.get<double>());
  if (x.is_number()) {
    const double d = x.get<double>();
    return d == std::round(d) && std::fabs(d) < 1e15 ? core::group_digits(d) : fmt::format("{}", d);
  }
  return json_text(x, -1);
}

// ---- outputs ---------------------------------------------------------------------------------

enum class Kind { kSeconds, kCount, kRatio, kTflops, kDays, kGib, kUsd, kUsdCents };

struct Metric {
  std::string path;   // where it lives in the estimate JSON
  std::string label;  // what a person reads
  const char* unit;
  Kind kind;
  std::function<double(const EstimateView&)> get;
};

double category(const EstimateView& v, const std::string& name) {
  double sum = 0;
  for (const auto& l : v.cost->lines) {
    if (l.category == name) sum += l.amount.value();
  }
  return sum;
}

std::vector<Metric> metrics(const EstimateView& a, const EstimateView& b) {
  std::vector<Metric> m = {
      {"training.step_time_s", "step time (s)", "s", Kind::kSeconds,
       [](const EstimateView& v) { return v.perf->step_time.value(); }},
      {"training.tokens_per_s", "tokens/s", "tokens/s", Kind::kCount,
       [](const EstimateView& v) { return v.perf->tokens_per_s; }},
      {"training.tokens_per_s_per_gpu", "tokens/s per GPU", "tokens/s", Kind::kCount,
       [](const EstimateView& v) { return v.perf->tokens_per_s_per_gpu; }},
      {"training.mfu", "MFU", "ratio", Kind::kRatio,
       [](const EstimateView& v) { return v.perf->mfu; }},
      {"training.hfu", "HFU", "ratio", Kind::kRatio,
       [](const EstimateView& v) { return v.perf->hfu; }},
      {"training.tflops_per_gpu", "TFLOP/s per GPU", "TFLOP/s", Kind::kTflops,
       [](const EstimateView& v) { return v.perf->model_flops_per_gpu.value() / 1e12; }},
      {"training.compute_days", "compute days", "d", Kind::kDays,
       [](const EstimateView& v) { return core::in_days(v.perf->compute_time); }},
      {"training.wall_days", "wall days (incl. failures)", "d", Kind::kDays,
       [](const EstimateView& v) { return core::in_days(v.cost->wall_time); }},
      {"training.gpu_hours", "GPU-hours (incl. failures)", "GPU-h", Kind::kCount,
       [](const EstimateView& v) { return v.cost->gpu_hours; }},
      {"training.memory.peak_gib", "memory peak per GPU (GiB)", "GiB", Kind::kGib,
       [](const EstimateView& v) { return core::in_gib(v.perf->memory.total()); }}};
  // Categories in a's order, then those only b has.
  std::vector<std::string> names;
  for (const auto* v : {&a, &b}) {
    for (const auto& l : v->cost->lines) {
      if (std::find(names.begin(), names.end(), l.category) == names.end()) {
        names.push_back(l.category);
      }
    }
  }
  for (const auto& n : names) {
    m.push_back({"cost.categories." + n, n + " (USD)", "USD", Kind::kUsd,
                 [n](const EstimateView& v) { return category(v, n); }});
  }
  m.push_back({"cost.total_usd", "total (USD)", "USD", Kind::kUsd,
               [](const EstimateView& v) { return v.cost->total.value(); }});
  m.push_back({"cost.per_million_tokens_usd", "per 1M tokens (USD)", "USD", Kind::kUsdCents,
               [](const EstimateView& v) { return v.cost->per_million_tokens.value(); }});
  return m;
}

double rounded(Kind k, double x) {
  return k == Kind::kUsd || k == Kind::kUsdCents ? cents(x) : sig(x);
}

std::string show(Kind k, double x, bool signed_delta) {
  std::string s;
  switch (k) {
    case Kind::kSeconds:
      s = fmt::format("{:.3f}", x);
      break;
    case Kind::kCount:
      s = core::group_digits(x);
      break;
    case Kind::kRatio:
      s = fmt::format("{:.1f} {}", x * 100, signed_delta ? "pp" : "%");
      break;
    case Kind::kTflops:
      s = fmt::format("{:.1f}", x);
      break;
    case Kind::kDays:
      s = fmt::format("{:.2f}", x);
      break;
    case Kind::kGib:
      s = fmt::format("{:.1f}", x);
      break;
    case Kind::kUsd:
      s = core::group_digits(x);
      break;
    case Kind::kUsdCents:
      s = core::group_digits(x, 2);
      break;
  }
  if (signed_delta && x > 0) s = "+" + s;
  return s;
}

struct Row {
  std::string path, label;
  const char* unit;
  Kind kind;
  double a, b, delta;
  std::optional<double> relative;
};

struct Diff {
  std::vector<std::tuple<std::string, Json, Json>> inputs;
  std::vector<Row> outputs;
};

Diff compute(const EstimateView& a, const EstimateView& b) {
  Diff d;
  const auto fa = input_fields(a);
  const auto fb = input_fields(b);
  for (size_t i = 0; i < fa.size() && i < fb.size(); ++i) {
    if (fa[i].second != fb[i].second)
      d.inputs.emplace_back(fa[i].first, fa[i].second, fb[i].second);
  }
  for (const auto& m : metrics(a, b)) {
    const double va = rounded(m.kind, m.get(a));
    const double vb = rounded(m.kind, m.get(b));
    Row r{m.path, m.label, m.unit, m.kind, va, vb, rounded(m.kind, vb - va), std::nullopt};
    if (va != 0) r.relative = sig((vb - va) / va);
    d.outputs.push_back(r);
  }
  return d;
}

std::string relative_text(const std::optional<double>& r) {
  return r ? fmt::format("{:+.1f} %", *r * 100) : "n/a";
}

std::string render_json(const EstimateView& a, const EstimateView& b, const Diff& d) {
  Json j;
  j["schema_version"] = kEstimateSchemaVersion;
  j["plans"] = {{"a", a.plan_name}, {"b", b.plan_name}};
  Json inputs = Json::array();
  for (const auto& [field, va, vb] : d.inputs)
    inputs.push_back({{"field", field}, {"a", va}, {"b", vb}});
  j["inputs"] = inputs;
  Json outputs = Json::array();
  for (const auto& r : d.outputs) {
    outputs.push_back({{"metric", r.path},
                       {"unit", r.unit},
                       {"a", r.a},
                       {"b", r.b},
                       {"delta", r.delta},
                       {"relative", r.relative ? Json(*r.relative) : Json(nullptr)}});
  }
  j["outputs"] = outputs;
  return json_text(j) + "\n";
}

std::string render_csv(const Diff& d) {
  Table t{{"kind", "name", "a", "b", "delta", "relative"}, {}, {}, ""};
  auto raw = [](const Json& x) { return x.is_string() ? x.get<std::string>() : json_text(x, -1); };
  for (const auto& [field, va, vb] : d.inputs) {
    t.rows.push_back(
        {"input", field, va.is_null() ? "" : raw(va), vb.is_null() ? "" : raw(vb), "", ""});
  }
  for (const auto& r : d.outputs) {
    t.rows.push_back({"output", r.path, json_text(Json(r.a), -1), json_text(Json(r.b), -1), json_text(Json(r.delta), -1),
                      r.relative ? json_text(Json(*r.relative), -1) : ""});
  }
  return render(t, Format::kCsv);
}

std::string render_people(const EstimateView& a, const EstimateView& b, const Diff& d, Format f) {
  const bool md = f == Format::kMarkdown;
  std::string out =
      (md ? "# aicost diff: " : "aicost diff: ") + a.plan_name + " → " + b.plan_name + "\n\n";
  Table in{{"field", "a → b"}, {}, {false, false}, ""};
  for (const auto& [field, va, vb] : d.inputs)
    in.rows.push_back({field, show(va) + " → " + show(vb)});
  Table outt{{"metric", "a", "b", "change", "relative"}, {}, {false, true, true, true, true}, ""};
  for (const auto& r : d.outputs) {
    const Kind k = r.kind;
    outt.rows.push_back({r.label, show(k, r.a, false), show(k, r.b, false), show(k, r.delta, true),
                         relative_text(r.relative)});
  }
  out += md ? "## Inputs\n\n" : "Inputs\n";
  if (d.inputs.empty()) {
    out += md ? "No input changed.\n\n" : "  no input changed\n\n";
  } else if (md) {
    out += render(in, f) + "\n";
  } else {
    in.header.clear();
    out += indent(render(in, f), 2) + "\n";
  }
  out += md ? "## Outputs\n\n" + render(outt, f) : "Outputs\n" + indent(render(outt, f), 2);
  return out;
}

}  // namespace

std::string render_diff(const EstimateView& a, const EstimateView& b, Format f) {
  for (const auto* v : {&a, &b}) {
    if (v->job == nullptr || v->perf == nullptr || v->cost == nullptr) return "";
  }
  const Diff d = compute(a, b);
  switch (f) {
    case Format::kJson:
      return render_json(a, b, d);
    case Format::kCsv:
      return render_csv(d);
    case Format::kTable:
    case Format::kMarkdown:
      return render_people(a, b, d, f);
    case Format::kHtml:
      return html_page("aicost diff: " + a.plan_name + " against " + b.plan_name, diff_charts(a, b),
                       render_people(a, b, d, Format::kTable));
  }
  return render_people(a, b, d, f);
}

}  // namespace aicost::report
