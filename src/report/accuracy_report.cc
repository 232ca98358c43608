#include "aicost/report/accuracy_report.h"

#include <fmt/format.h>

#include <map>

#include "accuracy_parts.h"

#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"

namespace aicost::report {

std::string render_accuracy(const std::vector<perf::AccuracyCase>& cases,
                            const std::vector<std::string>& skipped, Format format) {
  Table rows;
  rows.title = "Measured vs predicted (training: tokens/s per GPU; serving: tokens/s or seconds)";
  rows.header = {"run", "generation", "measured", "predicted", "error_pct"};
  rows.right_align = {false, false, true, true, true};
  std::map<std::string, std::vector<perf::AccuracyCase>> groups;
  for (const auto& c : cases) {
    rows.rows.push_back({c.name, c.group, value(c.measured), value(c.predicted),
                         fmt::format("{:+.1f}", c.error() * 100)});
    groups[c.group].push_back(c);
  }
  Table summary;
  summary.title = "Summary of |error| (nearest-rank percentiles)";
  summary.header = {"group", "runs", "median_pct", "p90_pct", "mean_pct", "max_pct", "bias_pct"};
  summary.right_align = {false, true, true, true, true, true, true};
  auto add = [&](const std::string& name, const std::vector<perf::AccuracyCase>& cs) {
    const auto s = perf::summarize(cs);
    summary.rows.push_back(
        {name, std::to_string(s.count), fmt::format("{:.1f}", s.median_abs * 100),
         fmt::format("{:.1f}", s.p90_abs * 100), fmt::format("{:.1f}", s.mean_abs * 100),
         fmt::format("{:.1f}", s.max_abs * 100), fmt::format("{:+.1f}", s.mean_signed * 100)});
  };
  add("all", cases);
  for (const auto& [g, cs] : groups) add(g, cs);
  if (format == Format::kJson) {
    nlohmann::json j;
    j["runs"] = nlohmann::json::array();
    for (const auto& c : cases) {
      j["runs"].push_back({{"run", c.name},
                           {"group", c.group},
                           {"measured", c.measured},
                           {"predicted", c.predicted},
                           {"error", c.error()}});
    }
    j["summary"]["all"] = summary_json(cases);
    for (const auto& [g, cs] : groups) j["summary"][g] = summary_json(cs);
    j["skipped"] = skipped;
    return json_text(j) + "\n";
  }
  if (format == Format::kHtml) {
    return html_page(
        "aicost validate", accuracy_charts(cases, "model"),
        with_skipped(render(rows, Format::kTable) + "\n" + render(summary, Format::kTable), skipped,
                     Format::kTable));
  }
  return with_skipped(render(rows, format) + "\n" + render(summary, format), skipped, format);
}

}  // namespace aicost::report
