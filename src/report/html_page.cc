// The `-o html` page (report/html.h): the chart scripts inline, one <div> per chart, the numbers.
#include "aicost/report/html.h"

#include <fmt/format.h>

namespace aicost::report {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string escape(const std::string& text) { return html_escape(text); }

// JSON inside <script>: "</" would end the element early (HTML 4.01 B.3.2), "<\/" is the same
// JSON string.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    out += json[i];
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') out += '\\';
  }
  return out;
}

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 24px 32px;
       color: #222; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
.note { color: #666; font-size: 13px; }
.chart { margin: 8px 0 16px; }
.chart-error, #js-errors { color: #b00020; font-family: monospace; white-space: pre-wrap; }
nav { margin: 0 0 16px; font-size: 14px; } nav a, nav b { margin-right: 14px; }
textarea { width: 100%; font-family: monospace; font-size: 12px; }
pre { font-size: 12px; background: #f6f8fa; padding: 12px; overflow-x: auto; border-radius: 4px; }
)";

// Draws every spec as SVG (so the marks are in the DOM), then marks the <body> for the tests.
constexpr const char* kDraw = R"(
(function () {
  const specs = JSON.parse(document.getElementById('aicost-specs').textContent);
  const errors = [];
  Promise.all(specs.map(function (spec, i) {
    const el = document.getElementById('chart-' + i);
    return vegaEmbed(el, spec, {renderer: 'svg', actions: false}).catch(function (e) {
      errors.push(String(e));
      el.className = 'chart-error';
      el.textContent = 'chart error: ' + e;
    });
  })).then(function () {
    document.body.setAttribute('data-charts-rendered', String(specs.length - errors.length));
    if (errors.length) document.body.setAttribute('data-chart-errors', errors.join('; '));
  });
})();
)";

}  // namespace

const std::vector<Script>& vega_scripts() {
  static const std::vector<Script> scripts = {{"vega-6.4.0.min.js", vega_js()},
                                              {"vega-lite-6.5.0.min.js", vega_lite_js()},
                                              {"vega-embed-7.3.0.min.js", vega_embed_js()}};
  return scripts;
}

const std::vector<std::string_view>& html_commands() {
  static const std::vector<std::string_view> commands = {
      "estimate", "search", "reliability",   "validate",
      "optimize", "diff",   "ledger report", "ledger check"};
  return commands;
}

std::string html_page(const std::string& title, const std::vector<Chart>& charts,
                      const std::string& numbers) {
  return html_page(title, charts, numbers, PageParts{});
}

std::string html_page(const std::string& title, const std::vector<Chart>& charts,
                      const std::string& numbers, const PageParts& parts) {
  std::string out;
  const bool inline_scripts = parts.scripts_at.empty();
  out.reserve(
      (inline_scripts ? vega_js().size() + vega_lite_js().size() + vega_embed_js().size() : 0) +
      numbers.size() + 64 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"generator\" content=\"aicost\">\n<title>" + escape(title) + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n";
  // Errors of any script below, written where a person and the browser test see them.
  out +=
      "<script>window.addEventListener('error', function (e) { var el = "
      "document.getElementById('js-errors');"
      " if (el) el.textContent += 'script error: ' + e.message + '\\n'; });</script>\n";
  out += "<!-- Vega 6.4.0, Vega-Lite 6.5.0, vega-embed 7.3.0 (https://github.com/vega), ";
  out += inline_scripts ? "inline below" : "loaded below";
  out += " under their licences:\n\n";
  out += vega_licenses();
  out += "-->\n";
  for (const auto& js : vega_scripts()) {
    if (!inline_scripts) {
      out += "<script src=\"" + escape(parts.scripts_at) + std::string(js.name) + "\"></script>\n";
      continue;
    }
    out += "<script>";
    out += js.text;
    out += "</script>\n";
  }
  out += "</head>\n<body>\n";
  if (!parts.nav.empty()) {
    out += "<nav>";
    for (const auto& l : parts.nav)
      out += l.current ? "<b>" + escape(l.label) + "</b> "
                       : "<a href=\"" + escape(l.href) + "\">" + escape(l.label) + "</a> ";
    out += "</nav>\n";
  }
  out += "<h1>" + escape(title) + "</h1>\n";
  out +=
      "<p class=\"note\">Written by aicost; the charts are drawn by Vega-Lite in this page, from "
      "the figures below.</p>\n";
  out += parts.before_charts;
  out += "<div id=\"js-errors\"></div>\n";
  std::string specs = "[";
  for (size_t i = 0; i < charts.size(); ++i) {
    out += fmt::format("<h2>{}</h2>\n<div class=\"chart\" id=\"chart-{}\"></div>\n",
                       escape(charts[i].title), i);
    specs += (i ? ",\n" : "") + charts[i].spec;
  }
  specs += "]";
  out += "<h2>Figures</h2>\n<pre>" + escape(numbers) + "</pre>\n";
  out +=
      "<script type=\"application/json\" id=\"aicost-specs\">" + script_safe(specs) + "</script>\n";
  out += "<script>" + std::string(kDraw) + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace aicost::report
