// What `aicost ledger` prints, on hand-made results: every output mode survives text that is not
// UTF-8, and a report grouped by currency has one currency column.
#include "aicost/report/ledger_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aicost/core/amount.h"

namespace aicost::report {
namespace {

// A file name is bytes on Linux: a Latin-1 "ü" (0xFC) is a valid path and invalid UTF-8.
TEST(LedgerReport, SourcesWhosePathIsNotUtf8RenderInEveryFormat) {
  ledger::SourceRecord s;
  s.id = 1;
  s.file = {
      "/exports/M\xFC"
      "nchen.csv",
      std::string(64, 'a'), 10, "focus-1.2"};
  s.loaded_at = "2026-12-01T00:00:00Z";
  s.rows = 1;
  for (const Format f : {Format::kTable, Format::kJson, Format::kCsv, Format::kMarkdown})
    EXPECT_NO_THROW(render_sources({s}, f)) << to_string(f);
  const auto j = nlohmann::json::parse(render_sources({s}, Format::kJson));
  EXPECT_NE(j.dump().find("/exports/M\xEF\xBF\xBDnchen.csv"), std::string::npos)
      << j.dump();  // U+FFFD
}

ledger::Report by_currency() {
  ledger::Report r;
  r.request.by = {{ledger::Dimension::kService, ""}, {ledger::Dimension::kCurrency, ""}};
  ledger::ReportLine l;
  l.values = {"Compute", "EUR"};
  l.currency = "EUR";
  l.sums.billed = l.sums.effective = l.sums.list = 5 * core::kNanosPerUnit;
  l.sums.rows = 1;
  r.lines.push_back(l);
  l.values = {};
  r.totals.push_back(l);
  return r;
}

TEST(LedgerReport, GroupedByCurrencyTheCsvHasOneCurrencyColumn) {
  EXPECT_EQ(render_ledger_report(by_currency(), Format::kCsv),
            "service,currency,billed,effective,list,gpu_hours,per_gpu_hour,rows,share_pct\n"
            "Compute,EUR,5,5,5,,,1,100.0\n");
}

TEST(LedgerReport, GroupedByCurrencyTheTotalRowNamesItsCurrency) {
  const std::string t = render_ledger_report(by_currency(), Format::kTable);
  EXPECT_NE(t.find("\ntotal    EUR "), std::string::npos) << t;
}

}  // namespace
}  // namespace aicost::report
