#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <optional>

#include "aicost/config/cross_validation.h"
#include "aicost/config/memory_csv.h"
#include "aicost/report/cross_validation_report.h"
#include "commands.h"

namespace aicost::app {

namespace {

int write_interval_file(const std::vector<std::string>& csvs, const std::string& out,
                        const catalog::Catalog& cat, const GlobalOptions& g) {
  std::optional<catalog::ErrorBands> training, serving;
  std::optional<catalog::MemoryMargin> memory;
  for (const auto& csv : csvs) {
    if (config::is_memory_csv(csv)) {
      auto cases = config::load_memory_csv(csv, cat);
      if (!cases) return report_error(cases.error(), g);
      memory = config::memory_margin(*cases, csv);
      std::cerr << fmt::format(
          "{}: {} rows, memory model over-states peak memory by at most {:.1f} %\n", csv,
          memory->rows, 100 * memory->margin);
      continue;
    }
    auto run = config::cross_validate_csv(csv, cat);
    if (!run) return report_error(run.error(), g);
    auto& slot = run->serving ? serving : training;
    if (slot)
      return report_error(core::make_error(core::ErrorCode::kInvalidInput,
                                           "give one training and one serving CSV at most", csv),
                          g);
    slot = config::held_out_bands(*run, csv);
    std::cerr << fmt::format("{}: {} rows, 80 % intervals cover {:.0f} % of held-out rows\n", csv,
                             run->observations.size(), 100 * config::held_out_coverage(*run));
  }
  const std::string text = report::render_error_bands_yaml(
      training ? &*training : nullptr, serving ? &*serving : nullptr, memory ? &*memory : nullptr);
  std::ofstream f(out, std::ios::binary);
  f << text;
  if (!f.flush()) {
    return report_error(
        core::make_error(core::ErrorCode::kIo, "cannot write the intervals file", out), g);
  }
  std::cerr << "wrote " << out << "\n";
  return 0;
}

}  // namespace

Command validate_command() {
  return {
      "validate", "run the model over measured runs (CSV) and print its error per row",
      [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
        auto csvs = std::make_shared<std::vector<std::string>>();
        auto cv = std::make_shared<bool>(false);
        auto write_intervals = std::make_shared<std::string>();
        sub.add_option("csv", *csvs,
                       "CSV of measured training runs (columns of training-dev.csv) or serving "
                       "measurements (columns of inference-dev.csv); docs/VALIDATION.md. With "
                       "--write-intervals: one training, one serving and one memory CSV "
                       "(columns of memory-dev.csv) at most")
            ->required();
        sub.add_flag("--cv", *cv,
                     "cross-validate: refit the calibrated parameters without each source "
                     "group in turn and print the held-out error next to the in-sample one");
        sub.add_option("--write-intervals", *write_intervals,
                       "with --cv: write the held-out error per regime as the intervals file "
                       "(data/intervals.yaml; docs/VALIDATION.md \"Intervals\")");
        sub.footer(
            "Examples:\n  aicost validate data/validation/training-dev.csv\n"
            "  aicost validate --cv data/validation/inference-dev.csv\n"
            "  " +
            std::string(report::kWriteIntervalsCommand));
        return [csvs, cv, write_intervals, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          auto cat = load_catalog(g);
          if (!cat) return report_error(cat.error(), g);
          if (!write_intervals->empty()) {
            if (!*cv)
              return report_error(
                  core::make_error(core::ErrorCode::kInvalidInput,
                                   "add --cv: the intervals come from the cross-validated error",
                                   "--write-intervals"),
                  g);
            return write_interval_file(*csvs, *write_intervals, *cat, g);
          }
          if (csvs->size() != 1) {
            return report_error(
                core::make_error(core::ErrorCode::kInvalidInput,
                                 "give one CSV (several only with --cv --write-intervals)"),
                g);
          }
          return print_output(api::validate(csvs->front(), *cv, *cat, *fmt), *fmt, g);
        };
      }};
}

}  // namespace aicost::app
