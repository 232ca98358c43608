// Private to report: the pieces the accuracy and cross-validation reports share.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "aicost/perf/accuracy.h"
#include "aicost/report/format.h"
#include "json.h"

namespace aicost::report {

// A measured or predicted figure: throughputs to one decimal; latencies in seconds (0.0213) to
// four significant digits.
inline std::string value(double v) {
  return v < 10 ? fmt::format("{:.4g}", v) : fmt::format("{:.1f}", v);
}
// A ratio as a percentage with one decimal, unsigned ("6.6") or signed ("+5.7").
inline std::string pct(double v) { return fmt::format("{:.1f}", v * 100); }
inline std::string signed_pct(double v) { return fmt::format("{:+.1f}", v * 100); }

// {"runs", "median_abs", "p90_abs", "mean_abs", "max_abs", "bias"} of `cases`.
inline Json summary_json(const std::vector<perf::AccuracyCase>& cases) {
  const auto s = perf::summarize(cases);
  return Json{{"runs", s.count},        {"median_abs", s.median_abs}, {"p90_abs", s.p90_abs},
              {"mean_abs", s.mean_abs}, {"max_abs", s.max_abs},       {"bias", s.mean_signed}};
}

// `out` followed by the skipped rows, one a line (not in CSV, which holds only the tables).
inline std::string with_skipped(std::string out, const std::vector<std::string>& skipped,
                                Format format) {
  if (format == Format::kCsv || skipped.empty()) return out;
  out += "\nSkipped rows:\n";
  for (const auto& s : skipped) out += "  " + s + "\n";
  return out;
}

}  // namespace aicost::report
