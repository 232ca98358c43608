// Private to report: names the tables and the charts of a report share, so a chart's labels read
// as the table's rows, and the Vega-Lite pieces every chart is built from (charts.cc).
#pragma once

#include <string>
#include <vector>

#include "aicost/report/charts.h"
#include "aicost/search/search.h"
#include "aicost/serving/capacity.h"
#include "json.h"

namespace aicost::report {

// "h100-sxm TP4 fp8": a serving deployment option (serving_report.cc).
std::string option_name(const serving::DeploymentOption& o);

// "TP8 PP4 VPP1 CP1 EP1 DP16": a search candidate's layout (search_report.cc).
std::string layout(const search::Candidate& c);

// A Vega-Lite spec with the schema, `description`, a 640 px width and the fonts and label room of
// every chart.
Json base_spec(const std::string& description);
// `spec` as a Chart titled `title`.
Chart chart(std::string title, const Json& spec);
// A horizontal bar per row of `values` ({label_field, value_field, ...}), longest first;
// `value_format` a d3-format for the value axis.
Json bar_spec(const std::string& description, Json values, const std::string& label_field,
              const std::string& label_title, const std::string& value_field,
              const std::string& value_title, const std::string& value_format);

// The series of a grouped bar chart: the field that tells a row's bar within its label, and,
// where the colours are fixed, the field's values in order and their colours.
struct BarSeries {
  std::string field, title;
  std::vector<std::string> domain, colors;
};
// Horizontal bars side by side per label, one per value of `series.field`, labels in the rows'
// order; `value_format` a d3-format for the value axis.
Json grouped_bar_spec(const std::string& description, Json values, const std::string& label_field,
                      const std::string& label_title, const BarSeries& series,
                      const std::string& value_field, const std::string& value_title,
                      const std::string& value_format);

}  // namespace aicost::report
