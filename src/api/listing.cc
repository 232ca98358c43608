#include "aicost/api/api.h"
#include "aicost/config/cross_validation.h"
#include "aicost/config/inference_csv.h"
#include "aicost/config/validation_csv.h"
#include "aicost/perf/accuracy.h"
#include "aicost/perf/estimate.h"
#include "aicost/report/accuracy_report.h"
#include "aicost/report/catalog_report.h"
#include "aicost/report/cross_validation_report.h"
#include "aicost/serving/measurement.h"

namespace aicost::api {

core::Result<Output> catalog_listing(const std::string& what, const catalog::Catalog& cat,
                                     report::Format fmt) {
  Output out;
  if (what == "gpus")
    out.text = report::render_gpus(cat, fmt);
  else if (what == "instances")
    out.text = report::render_instances(cat, fmt);
  else if (what == "models")
    out.text = report::render_models(cat, fmt);
  else if (what == "servers")
    out.text = report::render_servers(cat, fmt);
  else
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "the catalog lists gpus, instances, models or servers", what);
  return out;
}

core::Result<Output> validate(const std::string& csv, bool cross_validate,
                              const catalog::Catalog& cat, report::Format fmt) {
  Output out;
  if (cross_validate) {
    auto run = config::cross_validate_csv(csv, cat);
    if (!run) return run.error();
    out.text = report::render_cross_validation(run->observations, run->parameters, run->cv,
                                               run->skipped, fmt);
    return out;
  }
  std::vector<perf::AccuracyCase> cases;
  if (config::is_inference_csv(csv)) {
    auto set = config::load_inference_csv(csv, cat);
    if (!set) return set.error();
    for (const auto& m : set->cases) {
      const auto metric = serving::to_string(m.metric);
      cases.push_back({m.name + " (" + metric + ")", m.replica.gpu.generation + "/" + metric,
                       m.measured, serving::predict(m)});
    }
    out.text = report::render_accuracy(cases, set->skipped, fmt);
    return out;
  }
  auto set = config::load_validation_csv(csv, cat);
  if (!set) return set.error();
  for (const auto& c : set->cases) {
    auto est = perf::estimate_training(c.job);
    if (!est) return est.error().with_context(c.name);
    cases.push_back({c.name, c.job.cluster.gpu.generation, c.measured_tokens_per_s_per_gpu,
                     est->tokens_per_s_per_gpu});
  }
  out.text = report::render_accuracy(cases, set->skipped, fmt);
  return out;
}

}  // namespace aicost::api
