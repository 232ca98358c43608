#include <ctime>
#include <iostream>

#include "aicost/config/calibrate.h"
#include "aicost/report/calibration_report.h"
#include "commands.h"

namespace aicost::app {

namespace {

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

Command calibrate_command() {
  return {
      "calibrate",
      "fit the efficiency profile to your own measured runs and write a catalog overlay",
      [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
        auto csv = std::make_shared<std::string>();
        auto write = std::make_shared<std::string>();
        sub.add_option("csv", *csv,
                       "your measured runs: training rows with the columns of "
                       "data/validation/training-dev.csv, or serving rows with those of "
                       "inference-dev.csv (docs/VALIDATION.md)")
            ->required();
        sub.add_option("--write", *write,
                       "write the calibrated profile here, a catalog overlay for --catalog "
                       "(nothing is written when anything fails)");
        sub.footer(
            "Fits only what the rows can determine, starting from the shipped profile:\n"
            "  - the per-generation values (training: gemm_max; serving: serving_prefill_mfu,\n"
            "    serving_decode_bandwidth) of the GPU generations in the file, each only when\n"
            "    at least 3 rows of every generation respond to it;\n"
            "  - the shared values (gemm_half_dim, layer_overhead, step_overhead; serving\n"
            "    half-tokens and layer overhead) only from at least 40 rows of 3 source groups;\n"
            "    otherwise they stay at the catalog's values.\n"
            "At least 3 runs of each generation are needed. The error before is the shipped\n"
            "profile's on these rows; after is cross-validated: each source group held out in\n"
            "turn (when every generation has rows of two or more), else each row (up to 20\n"
            "rows), else 5 folds.\n\n"
            "Examples:\n"
            "  aicost calibrate examples/calibration/blackwell-runs.csv --write my-blackwell.yaml\n"
            "  aicost calibrate examples/calibration/hopper-serving-runs.csv -o json\n"
            "then, for a B200/GB200 plan: aicost --catalog my-blackwell.yaml estimate PLAN.yaml");
        return [csv, write, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          auto cat = load_catalog(g);
          if (!cat) return report_error(cat.error(), g);
          auto run = config::calibrate_csv(*csv, *cat);
          if (!run) return report_error(run.error(), g);
          if (!write->empty()) {
            if (auto st =
                    config::write_overlay(*write, config::calibration_overlay(*run, today_utc()));
                !st) {
              return report_error(st.error(), g);
            }
          }
          std::cout << report::render_calibration(run->fit, run->serving, run->skipped, *fmt);
          if (!write->empty()) {
            std::cerr << "wrote " << *write << " (use it with: aicost --catalog " << *write
                      << " ...)\n";
          }
          return 0;
        };
      }};
}

}  // namespace aicost::app
