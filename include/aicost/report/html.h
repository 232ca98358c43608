// `-o html`: one self-contained HTML page per report (docs/REPORTS.md). The charts are Vega-Lite
// specs (report/charts.h) drawn in the browser by Vega, Vega-Lite and vega-embed, whose minified
// builds are compiled into the binary and inlined in the page: it opens from disk, with no network.
// Pure functions; thread-safe; they never print and never fail.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "aicost/report/charts.h"

namespace aicost::report {

// The page: `title` as heading, each chart under its title (drawn as SVG), then `numbers` (the
// command's table output, the figures the charts show) in a <pre> block. Text is HTML-escaped;
// specs are inlined with "</" written "<\/", so no data closes the script. When the charts are
// drawn the <body> gets data-charts-rendered="N" (N charts drawn); a chart that fails shows
// "chart error: ..." in its place and the body gets data-chart-errors; a script error anywhere
// is written into #js-errors. The browser tests read these.
std::string html_page(const std::string& title, const std::vector<Chart>& charts,
                      const std::string& numbers);

// What a page of `aicost serve` adds to a report's page: links to the other pages above the title
// (the current one not a link), and HTML written as it is between the note and the charts (a form
// the caller builds and escapes; nothing from a request goes there unescaped).
struct PageLink {
  std::string href, label;
  bool current = false;
};
struct PageParts {
  std::vector<PageLink> nav;
  std::string before_charts;
  // "": the chart scripts inline (a self-contained page). Otherwise the URL prefix the page loads
  // them from, each by its vega_scripts() name (the server answers it): a browser then fetches
  // the 0.84 MB once and keeps it, and each page is only its own charts and figures.
  std::string scripts_at;
};
std::string html_page(const std::string& title, const std::vector<Chart>& charts,
                      const std::string& numbers, const PageParts& parts);
// `text` with & < > " written as entities, for HTML text and attribute values.
std::string html_escape(const std::string& text);

// The commands (as typed after `aicost`, e.g. "estimate", "ledger report") that have `-o html`.
const std::vector<std::string_view>& html_commands();

// The minified scripts inlined in every page (generated from .deps/vega/, cmake/embed_vega.cmake).
std::string_view vega_js();
std::string_view vega_lite_js();
std::string_view vega_embed_js();
// Their licences (BSD-3-Clause), one after the other; every page carries them in a comment.
std::string_view vega_licenses();
// The three scripts in the order a page runs them, each with a file name that carries its
// version ("vega-6.4.0.min.js"), so a server may let browsers keep them for good.
struct Script {
  std::string_view name, text;
};
const std::vector<Script>& vega_scripts();

}  // namespace aicost::report
