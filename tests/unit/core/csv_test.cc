#include "aicost/core/csv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aicost::core {
namespace {

struct Rec {
  std::vector<std::string> fields;
  std::int64_t line;
};

// Parses `text` fed in pieces of `chunk` bytes (0: all at once).
Result<std::vector<Rec>> parse(std::string_view text, std::size_t chunk = 0) {
  std::vector<Rec> out;
  CsvStream s("t.csv", [&](const CsvRecord& r) {
    out.push_back({{r.fields.begin(), r.fields.end()}, r.line});
    return Status{};
  });
  const std::size_t step = chunk == 0 ? text.size() + 1 : chunk;
  for (std::size_t i = 0; i < text.size(); i += step)
    if (auto st = s.feed(text.substr(i, step)); !st) return st.error();
  if (auto st = s.finish(); !st) return st.error();
  return out;
}

TEST(Csv, QuotesEscapesNewlinesAndLines) {
  const std::string text =
      "\xEF\xBB\xBF"
      "a,b,c\r\n"
      "1,\"x, y\",\"say \"\"hi\"\"\"\n"
      "\n"
      "2,\"two\nlines\",\n"
      " 3 ,\t4\t,\"\"\n"
      "5,6,7";
  for (std::size_t chunk : {0, 1, 2, 3, 5, 7, 64}) {
    auto r = parse(text, chunk);
    ASSERT_TRUE(r) << chunk << ": " << r.error().what();
    ASSERT_EQ(r->size(), 5u) << chunk;
    const auto& v = *r;
    EXPECT_EQ(v[0].fields, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(v[0].line, 1);
    EXPECT_EQ(v[1].fields, (std::vector<std::string>{"1", "x, y", "say \"hi\""}));
    EXPECT_EQ(v[1].line, 2);
    EXPECT_EQ(v[2].fields, (std::vector<std::string>{"2", "two\nlines", ""}));
    EXPECT_EQ(v[2].line, 4);  // the blank line 3 is skipped
    EXPECT_EQ(v[3].fields, (std::vector<std::string>{"3", "4", ""}));
    EXPECT_EQ(v[3].line, 6);
    EXPECT_EQ(v[4].fields, (std::vector<std::string>{"5", "6", "7"}));
    EXPECT_EQ(v[4].line, 7);
  }
}

TEST(Csv, LenientWhereRealExportsBend) {
  auto r = parse("a\"b,\"c\"d,e\n");
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].fields, (std::vector<std::string>{"a\"b", "cd", "e"}));
}

TEST(Csv, SeveralEscapedFieldsInOneRecordStayIntact) {
  // Found by fuzzing: the second escaped field's storage moved the first one's.
  auto r = parse("\"a\"\"\",\"b\"\"\",\"c\"\"d\"\n");
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].fields, (std::vector<std::string>{"a\"", "b\"", "c\"d"}));
}

TEST(Csv, TrailingCommaAtEndOfFileIsAnEmptyField) {
  auto r = parse("a,b,");
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].fields, (std::vector<std::string>{"a", "b", ""}));
}

TEST(Csv, UnterminatedQuoteIsAParseErrorAtItsRecord) {
  auto r = parse("a,b\n1,\"open\nmore\n", 3);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kParse);
  EXPECT_EQ(r.error().context, "t.csv:2");
}

TEST(Csv, CallbackErrorStopsTheRead) {
  int calls = 0;
  CsvStream s("t.csv", [&](const CsvRecord&) {
    ++calls;
    return Status(make_error(ErrorCode::kInvalidInput, "stop"));
  });
  EXPECT_FALSE(s.feed("a\nb\nc\n"));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace aicost::core
