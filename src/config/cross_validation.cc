#include "aicost/config/cross_validation.h"

#include <limits>

#include "aicost/config/inference_csv.h"
#include "aicost/config/validation_csv.h"
#include "aicost/perf/estimate.h"
#include "aicost/perf/interval.h"
#include "aicost/serving/measurement.h"

namespace aicost::config {

namespace {

perf::Observation training_observation(const ValidationCase& c) {
  perf::Observation o;
  o.name = c.name;
  o.generation = c.job.cluster.gpu.generation;
  o.group = c.group;
  o.regime = perf::regime_of(o.generation, c.job.precision, c.job.model.is_moe());
  o.measured = c.measured_tokens_per_s_per_gpu;
  o.profile = c.job.efficiency;
  o.predict = [job = c.job](const catalog::EfficiencyProfile& e) {
    workload::TrainingJob j = job;
    j.efficiency = e;
    auto est = perf::estimate_training(j);
    return est ? est->tokens_per_s_per_gpu : std::numeric_limits<double>::quiet_NaN();
  };
  return o;
}

perf::Observation serving_observation(const serving::Measurement& m) {
  perf::Observation o;
  o.name = m.name + " (" + serving::to_string(m.metric) + ")";
  o.generation = m.replica.gpu.generation;
  o.group = m.group;
  o.regime = perf::regime_of(o.generation, m.replica.weights, m.replica.model.is_moe());
  o.measured = m.measured;
  o.rate = m.metric == serving::Metric::kThroughput;
  o.profile = m.replica.efficiency;
  o.predict = [m](const catalog::EfficiencyProfile& e) {
    serving::Measurement copy = m;
    copy.replica.efficiency = e;
    return serving::predict(copy);
  };
  return o;
}

}  // namespace

core::Result<CrossValidationRun> load_observations(const std::string& path,
                                                   const catalog::Catalog& cat) {
  CrossValidationRun run;
  run.serving = is_inference_csv(path);
  if (run.serving) {
    auto set = load_inference_csv(path, cat);
    if (!set) return set.error();
    for (const auto& m : set->cases) run.observations.push_back(serving_observation(m));
    run.skipped = set->skipped;
    run.skipped_lines = set->skipped_lines;
    run.parameters = serving::fit_parameters();
  } else {
    auto set = load_validation_csv(path, cat);
    if (!set) return set.error();
    for (const auto& c : set->cases) run.observations.push_back(training_observation(c));
    run.skipped = set->skipped;
    run.skipped_lines = set->skipped_lines;
    run.parameters = perf::training_fit_parameters();
  }
  return run;
}

core::Result<CrossValidationRun> cross_validate_csv(const std::string& path,
                                                    const catalog::Catalog& cat) {
  auto run = load_observations(path, cat);
  if (!run) return run.error();
  run->cv = perf::cross_validate(run->observations, run->parameters);
  return run;
}

std::vector<double> held_out_ratios(const CrossValidationRun& run) {
  std::vector<double> r;
  for (size_t i = 0; i < run.observations.size(); ++i) {
    r.push_back(perf::time_ratio(run.observations[i], run.cv.held_out[i]));
  }
  return r;
}

namespace {
std::vector<std::string> field(const CrossValidationRun& run, std::string perf::Observation::*f) {
  std::vector<std::string> out;
  for (const auto& o : run.observations) out.push_back(o.*f);
  return out;
}
}  // namespace

catalog::ErrorBands held_out_bands(const CrossValidationRun& run, const std::string& source) {
  return perf::build_error_bands(field(run, &perf::Observation::regime),
                                 field(run, &perf::Observation::group), held_out_ratios(run),
                                 source);
}

double held_out_coverage(const CrossValidationRun& run) {
  return perf::band_coverage(field(run, &perf::Observation::regime),
                             field(run, &perf::Observation::group), held_out_ratios(run));
}

}  // namespace aicost::config
