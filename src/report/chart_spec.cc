// The Vega-Lite pieces every chart is built from (chart_parts.h), apart from the charts
// themselves (charts.cc, charts_ledger.cc), so that the ledger's renderers link without the plan
// charts' modules (fuzz/CMakeLists.txt builds them alone).
#include "aicost/report/charts.h"
#include "chart_parts.h"
#include "json.h"

namespace aicost::report {

Json base_spec(const std::string& description) {
  return Json{
      {"$schema", kVegaLiteSchema},
      {"description", description},
      {"width", 640},
      // maxExtent: Vega's default (200 px) lets a long label run over the axis title.
      {"config",
       {{"axis",
         {{"labelFontSize", 12}, {"titleFontSize", 13}, {"labelLimit", 360}, {"maxExtent", 380}}},
        {"legend", {{"labelFontSize", 12}, {"titleFontSize", 13}, {"labelLimit", 320}}}}}};
}

Chart chart(std::string title, const Json& spec) {
  return Chart{std::move(title), json_text(spec)};
}

Json bar_spec(const std::string& description, Json values, const std::string& label_field,
              const std::string& label_title, const std::string& value_field,
              const std::string& value_title, const std::string& value_format) {
  Json s = base_spec(description);
  s["data"] = {{"values", std::move(values)}};
  s["mark"] = {{"type", "bar"}, {"tooltip", true}};
  s["encoding"] = {
      {"y", {{"field", label_field}, {"type", "nominal"}, {"title", label_title}, {"sort", "-x"}}},
      {"x",
       {{"field", value_field},
        {"type", "quantitative"},
        {"title", value_title},
        {"axis", {{"format", value_format}}}}}};
  return s;
}

Json grouped_bar_spec(const std::string& description, Json values, const std::string& label_field,
                      const std::string& label_title, const BarSeries& series,
                      const std::string& value_field, const std::string& value_title,
                      const std::string& value_format) {
  Json s = base_spec(description);
  s["data"] = {{"values", std::move(values)}};
  s["mark"] = {{"type", "bar"}, {"tooltip", true}};
  Json color = {{"field", series.field}, {"type", "nominal"}, {"title", series.title}};
  if (!series.domain.empty())
    color["scale"] = {{"domain", series.domain}, {"range", series.colors}};
  s["encoding"] = {
      {"y",
       {{"field", label_field}, {"type", "nominal"}, {"title", label_title}, {"sort", nullptr}}},
      {"yOffset", {{"field", series.field}}},
      {"x",
       {{"field", value_field},
        {"type", "quantitative"},
        {"title", value_title},
        {"axis", {{"format", value_format}}}}},
      {"color", std::move(color)}};
  return s;
}

}  // namespace aicost::report
