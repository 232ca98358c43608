#include <iostream>

#include "aicost/config/cross_validation.h"
#include "aicost/config/inference_csv.h"
#include "aicost/config/validation_csv.h"
#include "aicost/perf/accuracy.h"
#include "aicost/perf/estimate.h"
#include "aicost/report/accuracy_report.h"
#include "aicost/report/cross_validation_report.h"
#include "commands.h"

namespace aicost::app {

Command validate_command() {
  return {"validate", "run the model over measured runs (CSV) and print its error per row",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto csv = std::make_shared<std::string>();
            auto cv = std::make_shared<bool>(false);
            sub.add_option("csv", *csv,
                           "CSV of measured training runs (columns of training-dev.csv) or serving "
                           "measurements (columns of inference-dev.csv); docs/VALIDATION.md")
                ->required();
            sub.add_flag("--cv", *cv,
                         "cross-validate: refit the calibrated parameters without each source "
                         "group in turn and print the held-out error next to the in-sample one");
            sub.footer(
                "Examples:\n  aicost validate data/validation/training-dev.csv\n"
                "  aicost validate --cv data/validation/inference-dev.csv");
            return [csv, cv, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              if (*cv) {
                auto run = config::cross_validate_csv(*csv, *cat);
                if (!run) return report_error(run.error(), g);
                std::cout << report::render_cross_validation(run->observations, run->parameters,
                                                             run->cv, run->skipped, *fmt);
                return 0;
              }
              if (config::is_inference_csv(*csv)) {
                auto set = config::load_inference_csv(*csv, *cat);
                if (!set) return report_error(set.error(), g);
                std::vector<perf::AccuracyCase> cases;
                for (const auto& m : set->cases) {
                  const auto metric = serving::to_string(m.metric);
                  cases.push_back({m.name + " (" + metric + ")",
                                   m.replica.gpu.generation + "/" + metric, m.measured,
                                   serving::predict(m)});
                }
                std::cout << report::render_accuracy(cases, set->skipped, *fmt);
                return 0;
              }
              auto set = config::load_validation_csv(*csv, *cat);
              if (!set) return report_error(set.error(), g);
              std::vector<perf::AccuracyCase> cases;
              for (const auto& c : set->cases) {
                auto est = perf::estimate_training(c.job);
                if (!est) return report_error(est.error().with_context(c.name), g);
                cases.push_back({c.name, c.job.cluster.gpu.generation,
                                 c.measured_tokens_per_s_per_gpu, est->tokens_per_s_per_gpu});
              }
              std::cout << report::render_accuracy(cases, set->skipped, *fmt);
              return 0;
            };
          }};
}

}  // namespace aicost::app
