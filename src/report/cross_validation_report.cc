#include "aicost/report/cross_validation_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "accuracy_parts.h"
#include "aicost/perf/accuracy.h"
#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"

namespace aicost::report {

namespace {

struct Split {
  std::vector<perf::AccuracyCase> in_sample, held_out;
};

}  // namespace

std::string format_parameter(const perf::FitParameter& p, double v) {
  return core::format_in_unit(v, p.unit);
}

std::string render_cross_validation(const std::vector<perf::Observation>& obs,
                                    const std::vector<perf::FitParameter>& params,
                                    const perf::CrossValidation& cv,
                                    const std::vector<std::string>& skipped, Format format) {
  // Every generation of the rows, so that the whole fit and each fold list the same numbers in
  // the same order (a generation whose rows cannot tell a value apart takes the pooled one).
  std::vector<std::string> generations;
  for (const auto& o : obs) {
    if (std::find(generations.begin(), generations.end(), o.generation) == generations.end()) {
      generations.push_back(o.generation);
    }
  }
  std::sort(generations.begin(), generations.end());
  const auto numbers = perf::fitted_numbers(cv.all, params, generations);
  // Distinct values fitted: each one of its own, and one pooled value per parameter that uses it.
  size_t fitted = 0;
  std::set<size_t> pooled_parameters;
  for (const auto& n : numbers) {
    if (!n.pooled)
      ++fitted;
    else
      pooled_parameters.insert(n.parameter);
  }
  fitted += pooled_parameters.size();
  auto shown_name = [](const perf::FittedNumber& n) {
    return n.pooled ? n.name + " (pooled)" : n.name;
  };
  std::map<std::string, size_t> group_rows;
  std::map<std::string, Split> regimes;
  Split all;
  for (size_t i = 0; i < obs.size(); ++i) {
    const perf::AccuracyCase in{obs[i].name, obs[i].regime, obs[i].measured, cv.in_sample[i]};
    const perf::AccuracyCase out{obs[i].name, obs[i].regime, obs[i].measured, cv.held_out[i]};
    for (Split* s : {&all, &regimes[obs[i].regime]}) {
      s->in_sample.push_back(in);
      s->held_out.push_back(out);
    }
    ++group_rows[obs[i].group];
  }
  std::vector<std::vector<perf::FittedNumber>> fold_numbers;
  for (const auto& f : cv.folds)
    fold_numbers.push_back(perf::fitted_numbers(f, params, generations));
  auto fold_range = [&](size_t i) {
    double lo = numbers[i].value, hi = numbers[i].value;
    for (size_t f = 0; f < fold_numbers.size(); ++f) {
      lo = f == 0 ? fold_numbers[f][i].value : std::min(lo, fold_numbers[f][i].value);
      hi = f == 0 ? fold_numbers[f][i].value : std::max(hi, fold_numbers[f][i].value);
    }
    return std::pair{lo, hi};
  };

  if (format == Format::kJson) {
    Json j;
    j["groups"] = cv.groups.size();
    j["fitted_parameters"] = fitted;
    j["parameters"] = Json::array();
    for (size_t i = 0; i < numbers.size(); ++i) {
      const auto& p = params[numbers[i].parameter];
      const double v = numbers[i].value;
      const auto [lo, hi] = fold_range(i);
      j["parameters"].push_back(
          {{"name", shown_name(numbers[i])},
           {"value", v},
           {"text", format_parameter(p, v)},
           {"search", {{"lo", p.lo}, {"hi", p.hi}, {"step", p.step}, {"start", p.start}}},
           {"folds", {{"min", lo}, {"max", hi}}}});
    }
    j["runs"] = Json::array();
    for (size_t i = 0; i < obs.size(); ++i) {
      j["runs"].push_back({{"run", obs[i].name},
                           {"regime", obs[i].regime},
                           {"group", obs[i].group},
                           {"measured", obs[i].measured},
                           {"in_sample", cv.in_sample[i]},
                           {"in_sample_error", all.in_sample[i].error()},
                           {"held_out", cv.held_out[i]},
                           {"cv_error", all.held_out[i].error()}});
    }
    j["summary"]["all"] = {{"in_sample", summary_json(all.in_sample)},
                           {"cv", summary_json(all.held_out)}};
    for (const auto& [r, s] : regimes) {
      j["summary"][r] = {{"in_sample", summary_json(s.in_sample)},
                         {"cv", summary_json(s.held_out)}};
    }
    j["folds"] = Json::array();
    for (size_t g = 0; g < cv.groups.size(); ++g) {
      Json values = Json::object(), pooled = Json::array();
      for (const auto& n : fold_numbers[g]) {
        values[n.name] = n.value;
        if (n.pooled) pooled.push_back(n.name);
      }
      j["folds"].push_back({{"held_out", cv.groups[g]},
                            {"rows", group_rows[cv.groups[g]]},
                            {"fit_rows", cv.folds[g].rows},
                            {"values", values},
                            {"pooled", pooled}});
    }
    j["skipped"] = skipped;
    return json_text(j) + "\n";
  }

  Table p;
  p.title = fmt::format("{} fitted parameters (refit without each of the {} source groups)", fitted,
                        cv.groups.size());
  p.header = {"parameter", "all rows", "folds min", "folds max", "search", "start"};
  p.right_align = {false, true, true, true, false, true};
  for (size_t i = 0; i < numbers.size(); ++i) {
    const auto& q = params[numbers[i].parameter];
    const auto [lo, hi] = fold_range(i);
    double top = q.hi;
    for (const auto& [gen, cap] : q.hi_for) {
      if (numbers[i].name == q.key + "[" + gen + "]") top = cap;
    }
    p.rows.push_back({shown_name(numbers[i]), format_parameter(q, numbers[i].value),
                      format_parameter(q, lo), format_parameter(q, hi),
                      format_parameter(q, q.lo) + " .. " + format_parameter(q, top) + " by " +
                          format_parameter(q, q.step),
                      format_parameter(q, q.start)});
  }
  Table rows;
  rows.title =
      "Measured vs predicted: in-sample (fitted on all rows) and held out (fitted without the "
      "row's group)";
  rows.header = {"run",       "regime",    "group",    "measured",
                 "in_sample", "error_pct", "held_out", "cv_error_pct"};
  rows.right_align = {false, false, false, true, true, true, true, true};
  for (size_t i = 0; i < obs.size(); ++i) {
    rows.rows.push_back({obs[i].name, obs[i].regime, obs[i].group, value(obs[i].measured),
                         value(cv.in_sample[i]), signed_pct(all.in_sample[i].error()),
                         value(cv.held_out[i]), signed_pct(all.held_out[i].error())});
  }
  Table summary;
  summary.title = "Summary of |error| (nearest-rank percentiles): in-sample vs cross-validated";
  summary.header = {"regime",        "runs",       "in_median_pct", "in_p90_pct",
                    "cv_median_pct", "cv_p90_pct", "cv_max_pct",    "cv_bias_pct"};
  summary.right_align = {false, true, true, true, true, true, true, true};
  auto add = [&](const std::string& name, const Split& s) {
    const auto in = perf::summarize(s.in_sample);
    const auto out = perf::summarize(s.held_out);
    summary.rows.push_back({name, std::to_string(in.count), pct(in.median_abs), pct(in.p90_abs),
                            pct(out.median_abs), pct(out.p90_abs), pct(out.max_abs),
                            signed_pct(out.mean_signed)});
  };
  add("all", all);
  for (const auto& [r, s] : regimes) add(r, s);
  Table folds;
  folds.title = "Folds: each source group held out, the parameters refit on the rest";
  folds.header = {"held_out", "rows", "fit_rows", "values"};
  folds.right_align = {false, true, true, false};
  for (size_t g = 0; g < cv.groups.size(); ++g) {
    std::string values;
    for (const auto& n : fold_numbers[g]) {
      values += (values.empty() ? "" : " ") + n.name + "=" +
                format_parameter(params[n.parameter], n.value) + (n.pooled ? "(pooled)" : "");
    }
    folds.rows.push_back({cv.groups[g], std::to_string(group_rows[cv.groups[g]]),
                          std::to_string(cv.folds[g].rows), values});
  }
  const Format text = format == Format::kHtml ? Format::kTable : format;
  std::string out = with_skipped(render(p, text) + "\n" + render(rows, text) + "\n" +
                                     render(summary, text) + "\n" + render(folds, text),
                                 skipped, text);
  if (format != Format::kHtml) return out;
  auto charts = accuracy_charts(all.in_sample, "in-sample, fitted on all rows");
  for (auto& c : accuracy_charts(all.held_out, "held out, fitted without the row's group"))
    charts.push_back(std::move(c));
  return html_page("aicost validate --cv", charts, out);
}

std::string render_error_bands_yaml(const catalog::ErrorBands* training,
                                    const catalog::ErrorBands* serving,
                                    const catalog::MemoryMargin* memory) {
  std::string out =
      "# The model's cross-validated error per regime: the 80 % intervals of `aicost estimate`,\n"
      "# `aicost serve` and `aicost search` (docs/VALIDATION.md \"Intervals\").\n"
      "# GENERATED, do not edit. Regenerate after a change to the model or to data/validation/:\n"
      "#   " +
      std::string(kWriteIntervalsCommand) +
      "\n"
      "# The test ErrorBandsFile.ShippedFileIsCurrent fails while this file is stale.\n"
      "#\n"
      "# Each row of a validation file is predicted by the fit without its source group; its time\n"
      "# ratio is measured time / predicted time (a rate is turned into a time). A band holds the\n"
      "# 10th, 50th and 90th percentiles and the extremes of those ratios over the rows of a pool\n"
      "# (1.095: 9.5 % slower than predicted), with its row and source-group counts.\n"
      "# memory.margin: the largest over-statement (predicted / measured - 1, at least 0) of peak\n"
      "# memory per GPU over the memory CSV; a plan over capacity by no more than this is\n"
      "# \"tight\", not refused.\n"
      "intervals:\n";
  auto ratio = [](double r) { return fmt::format("{:.4f}", r); };
  for (const auto& [name, bands] :
       {std::pair{"training", training}, std::pair{"serving", serving}}) {
    if (!bands) continue;
    out += fmt::format("  {}:\n    source: {}\n    bands:\n", name, bands->source);
    for (const auto& b : bands->bands) {
      out += fmt::format(
          "      - {{regime: {}, rows: {}, groups: {}, p10: {}, median: {}, p90: {}, min: {}, max: "
          "{}}}\n",
          b.regime, b.rows, b.groups, ratio(b.p10), ratio(b.median), ratio(b.p90), ratio(b.min),
          ratio(b.max));
    }
  }
  if (memory) {
    out += fmt::format("  memory:\n    source: {}\n    rows: {}\n    margin: {}\n", memory->source,
                       memory->rows,
                       // Rounded up: the row that sets the margin stays within it.
                       fmt::format("{:.2f}%", std::ceil(memory->margin * 1e4) / 100));
  }
  return out;
}

}  // namespace aicost::report
