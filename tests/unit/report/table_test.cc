#include "aicost/report/table.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aicost/report/format.h"

namespace aicost::report {
namespace {

Table sample() {
  return Table{{"name", "usd"}, {{"compute", "1,234"}, {"db", "5"}}, {false, true}, ""};
}

TEST(Format, ParsesEveryNameAndTheMdAlias) {
  EXPECT_EQ(format_from_string("table"), Format::kTable);
  EXPECT_EQ(format_from_string("json"), Format::kJson);
  EXPECT_EQ(format_from_string("CSV"), Format::kCsv);
  EXPECT_EQ(format_from_string("markdown"), Format::kMarkdown);
  EXPECT_EQ(format_from_string("md"), Format::kMarkdown);
  EXPECT_EQ(format_from_string("yaml"), std::nullopt);
  EXPECT_EQ(format_from_string(""), std::nullopt);
  EXPECT_STREQ(to_string(Format::kMarkdown), "markdown");
}

TEST(TableText, PadsColumnsRightAlignsNumbersAndUnderlinesTheHeader) {
  // Widths: name = max(4, 7, 2) = 7, usd = max(3, 5, 1) = 5; two spaces between columns.
  EXPECT_EQ(render(sample(), Format::kTable),
            "name       usd\n"
            "-------  -----\n"
            "compute  1,234\n"
            "db           5\n");
}

TEST(TableText, PrintsTitleAndNoTrailingSpaces) {
  Table t{{"a", "b"}, {{"long value", ""}}, {}, "Title"};
  EXPECT_EQ(render(t, Format::kTable),
            "Title\n"
            "a           b\n"
            "----------  -\n"
            "long value\n");
}

TEST(TableText, CountsUtf8CodePointsNotBytes) {
  Table t{{"x", "y"}, {{"2 → 4", "z"}, {"abcde", "w"}}, {}, ""};
  // "2 → 4" is 5 columns wide (7 bytes), like "abcde", so both rows put y at the same column.
  EXPECT_EQ(render(t, Format::kTable),
            "x      y\n"
            "-----  -\n"
            "2 → 4  z\n"
            "abcde  w\n");
  EXPECT_EQ(display_width("2 → 4"), 5u);
}

TEST(TableText, PadsRaggedRows) {
  Table t{{"a"}, {{"1", "2"}}, {}, ""};
  EXPECT_EQ(render(t, Format::kTable), "a\n-  -\n1  2\n");
}

TEST(TableText, IndentPrefixesNonEmptyLines) {
  EXPECT_EQ(indent("a\n\nb\n", 2), "  a\n\n  b\n");
  EXPECT_EQ(indent("no newline", 1), " no newline");
}

TEST(TableCsv, QuotesCommasQuotesAndNewlinesPerRfc4180) {
  Table t{
      {"name", "driver"}, {{"plain", "a, b"}, {"say \"hi\"", "line1\nline2"}}, {}, "ignored title"};
  EXPECT_EQ(render(t, Format::kCsv),
            "name,driver\n"
            "plain,\"a, b\"\n"
            "\"say \"\"hi\"\"\",\"line1\nline2\"\n");
}

// OWASP "CSV Injection": what a spreadsheet would run as a formula is written as quoted text
// with a leading '; numbers, signed ones too, stay numbers.
TEST(TableCsv, NeutralisesCellsThatASpreadsheetWouldRunAsFormulas) {
  Table t{{"cell"},
          {{"=cmd|' /C calc'!A0"},
           {"+SUM(A1:A9)"},
           {"-2+3"},
           {"@HYPERLINK(\"http://x\")"},
           {"\tx"},
           {"\rx"},
           {"-12.5"},
           {"+3"},
           {"1e9"},
           {"a=b"},
           {"-"}},
          {},
          ""};
  EXPECT_EQ(render(t, Format::kCsv),
            "cell\n"
            "\"'=cmd|' /C calc'!A0\"\n"
            "\"'+SUM(A1:A9)\"\n"
            "\"'-2+3\"\n"
            "\"'@HYPERLINK(\"\"http://x\"\")\"\n"
            "\"'\tx\"\n"
            "\"'\rx\"\n"
            "-12.5\n"
            "+3\n"
            "1e9\n"
            "a=b\n"
            "\"'-\"\n");
}

TEST(TableMarkdown, HasAlignmentRowAndEscapesPipes) {
  Table t = sample();
  t.rows.push_back({"a|b", "7"});
  t.title = "Costs";
  EXPECT_EQ(render(t, Format::kMarkdown),
            "### Costs\n\n"
            "| name | usd |\n"
            "| --- | --: |\n"
            "| compute | 1,234 |\n"
            "| db | 5 |\n"
            "| a\\|b | 7 |\n");
}

TEST(TableJson, IsAnArrayOfObjectsKeyedByHeaderInOrder) {
  Table t{{"id", "tflops", "gpus", "note"},
          {{"h100", "989.4", "8", "1,234"}, {"x", "", "n/a", "12"}},
          {false, true, true, false},
          ""};
  const auto j = nlohmann::ordered_json::parse(render(t, Format::kJson));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  // Key order follows the header.
  std::vector<std::string> keys;
  for (const auto& [k, v] : j[0].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "tflops", "gpus", "note"}));
  EXPECT_EQ(j[0]["id"], "h100");
  EXPECT_DOUBLE_EQ(j[0]["tflops"].get<double>(), 989.4);  // right-aligned plain number
  EXPECT_TRUE(j[0]["gpus"].is_number_integer());
  EXPECT_EQ(j[0]["gpus"], 8);
  EXPECT_EQ(j[0]["note"], "1,234");       // left-aligned: stays text
  EXPECT_TRUE(j[1]["tflops"].is_null());  // empty cell
  EXPECT_EQ(j[1]["gpus"], "n/a");         // not a number: stays text
  EXPECT_EQ(j[1]["note"], "12");          // left-aligned column: no conversion
}

TEST(TableJson, GroupedNumbersStayText) {
  Table t{{"usd"}, {{"1,234"}, {"1e9"}, {"inf"}}, {true}, ""};
  const auto j = nlohmann::json::parse(render(t, Format::kJson));
  EXPECT_EQ(j[0]["usd"], "1,234");
  EXPECT_DOUBLE_EQ(j[1]["usd"].get<double>(), 1e9);
  EXPECT_EQ(j[2]["usd"], "inf");
}

// A table written a few rows at a time (the ledger report's lines as they come) reads as the
// whole table rendered: widths measured over every row first (kTable), the header once.
TEST(TableWriter, PiecesReadAsTheWholeTable) {
  Table t;
  t.title = "Cost";
  t.header = {"resource", "effective", "note"};
  t.right_align = {false, true, false};
  for (int r = 0; r < 10; ++r)
    t.rows.push_back({"res-" + std::string(static_cast<std::size_t>(r), 'x'),
                      std::to_string(r * 137), r % 3 ? "a,b" : "|"});
  for (auto f : {Format::kTable, Format::kCsv, Format::kMarkdown}) {
    SCOPED_TRACE(to_string(f));
    Table head = t;
    head.rows.clear();
    TableWriter w(head, f);
    for (const auto& r : t.rows) w.measure(r);
    std::string out = w.head();
    for (std::size_t at = 0; at < t.rows.size(); at += 3)
      out +=
          w.rows({t.rows.begin() + static_cast<std::ptrdiff_t>(at),
                  t.rows.begin() + static_cast<std::ptrdiff_t>(std::min(at + 3, t.rows.size()))});
    EXPECT_EQ(out, render(t, f));
  }
}

}  // namespace
}  // namespace aicost::report
