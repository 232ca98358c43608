// The byte policy and the row caps of every reader (src/billing/guard.h): bytes that are not
// UTF-8, and NULs, are repaired to U+FFFD with a warning per column and the row keeps its money;
// rows over a cap are rejected with an error naming the cap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "aicost/core/text.h"
#include "collected.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

using namespace std::string_literals;
using Severity = ledger::RowIssue::Severity;

const std::string kFffd = "\xEF\xBF\xBD";

Collected read(const std::string& text, Format format) { return collect(text, format); }

// Every text of a charge, for "nothing invalid reaches a store".
std::vector<const std::string*> texts(const ledger::Charge& c) {
  const auto fields = ledger::text_fields(c);
  std::vector<const std::string*> out(fields.begin(), fields.end());
  for (const auto& t : c.tags) out.insert(out.end(), {&t.key, &t.value});
  return out;
}

void expect_all_clean(const Collected& c) {
  for (const auto& ch : c.charges)
    for (const auto* s : texts(ch))
      EXPECT_TRUE(core::utf8_clean(*s)) << "line " << ch.line << ": " << *s;
  for (const auto& i : c.issues) {
    EXPECT_TRUE(core::utf8_clean(i.column)) << i.column;
    EXPECT_TRUE(core::utf8_clean(i.message)) << i.message;
  }
}

const ledger::RowIssue* find_issue(const Collected& c, std::string_view column,
                                   std::string_view text) {
  for (const auto& i : c.issues)
    if (i.column == column && i.message.find(text) != std::string::npos) return &i;
  return nullptr;
}

// A Latin-1 ü (0xFC) in three rows and a NUL in one: every row loads with its money, the text is
// repaired, and one warning per column names the first line and the count.
TEST(BytePolicy, Latin1AndNulAreRepairedAndTheRowKeepsItsMoney) {
  const std::string text =
      "BilledCost,ChargePeriodStart,BillingCurrency,ChargeDescription,ResourceId\n"
      "1.5,2024-09-01T00:00:00Z,EUR,M\xFCnchen,r1\n"
      "2.25,2024-09-01T00:00:00Z,EUR,ok,r\0"
      "2\n"s
      "3,2024-09-01T00:00:00Z,EUR,\xFC\xFC,r3\n"
      "4,2024-09-01T00:00:00Z,EUR,M\xFCnchen,r4\n";
  const auto c = read(text, Format::kFocus);
  ASSERT_EQ(c.charges.size(), 4u) << c.errors();
  EXPECT_EQ(c.summary.rejected, 0);
  EXPECT_EQ(c.charges[0].billed, 1'500'000'000);
  EXPECT_EQ(c.charges[0].charge_description, "M" + kFffd + "nchen");
  EXPECT_EQ(c.charges[1].resource_id, "r" + kFffd + "2");
  EXPECT_EQ(c.charges[2].charge_description, kFffd + kFffd);
  expect_all_clean(c);
  const auto* desc = find_issue(c, "ChargeDescription", "not UTF-8 (0xFC at byte 2)");
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(desc->line, 2);
  EXPECT_EQ(desc->severity, Severity::kWarning);
  EXPECT_NE(desc->message.find("(3 rows, the first here)"), std::string::npos) << desc->message;
  const auto* nul = find_issue(c, "ResourceId", "a NUL byte (at byte 2)");
  ASSERT_NE(nul, nullptr);
  EXPECT_EQ(nul->line, 3);
}

TEST(BytePolicy, HeaderNamesAreRepairedAndNamedByPosition) {
  const auto c =
      read("BilledCost,ChargePeriodStart,Abteilungsk\xFCrzel\n1,2024-09-01T00:00:00Z,x\n",
           Format::kFocus);
  ASSERT_EQ(c.charges.size(), 1u);
  expect_all_clean(c);
  EXPECT_NE(find_issue(c, "Abteilungsk" + kFffd + "rzel",
                       "the name of column 3 holds bytes that are not UTF-8"),
            nullptr);
}

// A Tags object whose bytes are Latin-1 would not parse as JSON; repaired first, it does. A JSON
// escape \u0000 is a NUL too.
TEST(BytePolicy, TagsAreRepairedBeforeTheyAreParsed) {
  const auto c = read(
      "BilledCost,ChargePeriodStart,Tags\n"
      "1,2024-09-01T00:00:00Z,\"{\"\"gr\xFC\xDF\"\":\"\"x\"\",\"\"k\"\":\"\"a\\u0000b\"\"}\"\n",
      Format::kFocus);
  ASSERT_EQ(c.charges.size(), 1u);
  ASSERT_EQ(c.charges[0].tags.size(), 2u);
  EXPECT_EQ(c.charges[0].tags[0].key, "gr" + kFffd + kFffd);
  EXPECT_EQ(c.charges[0].tags[1].value, "a" + kFffd + "b");
  expect_all_clean(c);
  EXPECT_TRUE(c.has_issue("Tags", "\\u0000"));
}

struct DialectCase {
  const char* name;
  Format format;
  std::string text;    // one data row with a bad byte
  const char* column;  // where the warning must point
};

void PrintTo(const DialectCase& c, std::ostream* os) { *os << c.name; }

class BytePolicyEveryReader : public ::testing::TestWithParam<DialectCase> {};

TEST_P(BytePolicyEveryReader, LoadsRepairedAndWarnsByColumn) {
  Collected c;
  ledger::GpuSample sample;
  std::int64_t samples = 0;
  Sink sink = c.sink();
  sink.sample = [&](ledger::GpuSample&& g) {
    sample = g;
    ++samples;
    return core::Status{};
  };
  auto r = read_text(GetParam().text, "t", GetParam().format, sink);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->loaded, 1) << c.errors();
  EXPECT_EQ(r->rejected, 0);
  expect_all_clean(c);
  for (const auto* s : {&sample.host, &sample.gpu, &sample.uuid, &sample.model_name, &sample.ns,
                        &sample.pod, &sample.container, &sample.job})
    EXPECT_TRUE(core::utf8_clean(*s)) << *s;
  EXPECT_NE(find_issue(c, GetParam().column, "replaced by U+FFFD"), nullptr) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Readers, BytePolicyEveryReader,
    ::testing::Values(
        DialectCase{"aws", Format::kAwsCur,
                    "lineItem/UsageStartDate,lineItem/UnblendedCost,lineItem/"
                    "LineItemDescription,resourceTags/user:team\n"
                    "2024-09-01T00:00:00Z,1,caf\xE9,m\xFCller\n",
                    "lineItem/LineItemDescription"},
        DialectCase{"azure", Format::kAzure,
                    "Date,CostInBillingCurrency,BillingCurrencyCode,ProductName\n09/01/"
                    "2024,1,EUR,Ger\xE4t\n",
                    "ProductName"},
        DialectCase{"gcp", Format::kGcp,
                    "usage_start_time,cost,currency,service.description,labels\n"
                    "2024-09-01T00:00:00Z,1,USD,Comp\0ute,\"[{'key': 't', 'value': '\xFC'}]\"\n"s,
                    "service.description"},
        DialectCase{"oci", Format::kOci,
                    "lineItem/intervalUsageStart,cost/myCost,product/Description,tags/ns.k\n"
                    "2024-09-01T00:00:00Z,1,x,\xFF\xFE\n",
                    "tags/ns.k"},
        DialectCase{"dcgm-csv", Format::kDcgmCsv,
                    "metric,gpu,Hostname,value\nDCGM_FI_DEV_GPU_UTIL,0,n\xF6"
                    "de,50\n",
                    "Hostname"},
        DialectCase{"dcgm-prometheus", Format::kDcgmPrometheus,
                    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"n\xF6"
                    "de\"} 50 1725148800000\n",
                    ""}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

// read_file streams 1 MiB at a time: a two-byte character split by the chunk boundary is still
// one character (records are checked whole), and on_bytes sees the original bytes (the SHA-256).
TEST(BytePolicy, CharacterSplitAcrossReadChunksIsNotRepaired) {
  aicost::testing::TempDir dir("aicost-bytes");
  std::string text = "BilledCost,ChargePeriodStart,ChargeDescription\n";
  const std::string row_head = "1,2024-09-01T00:00:00Z,";
  const std::string plain = row_head + "plain\n";
  while (text.size() + plain.size() + row_head.size() + 8 < (std::size_t{1} << 20)) text += plain;
  // Pad so the ü (C3 BC) straddles byte 2^20, then a Latin-1 ü in the next row.
  text += row_head;
  text += std::string((std::size_t{1} << 20) - 1 - text.size(), 'x');
  text += "\xC3\xBC\n" + row_head + "\xFC\n";
  ASSERT_EQ(static_cast<unsigned char>(text[(1 << 20) - 1]), 0xC3);
  const auto path = dir.write("split.csv", text);
  Collected c;
  std::string seen;
  auto r = read_file(path, Format::kFocus, c.sink(), [&](std::string_view b) { seen.append(b); });
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(seen, text);  // hashed as written
  EXPECT_EQ(r->rejected, 0);
  const auto& split = c.charges[c.charges.size() - 2].charge_description;
  EXPECT_EQ(split.substr(split.size() - 2), "\xC3\xBC");
  EXPECT_EQ(c.charges.back().charge_description, kFffd);
  const auto* w = find_issue(c, "ChargeDescription", "0xFC");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->line, c.charges.back().line);
  EXPECT_EQ(w->message.find("rows, the first here"), std::string::npos)
      << "one row only: " << w->message;
}

// `aicost ledger validate` prints every finding and exits 1 when there is any.
TEST(BytePolicy, ValidateFlagsTheFile) {
  aicost::testing::TempDir dir("aicost-bytes");
  const auto path = dir.write("latin1.csv",
                              "BilledCost,ChargePeriodStart,BillingCurrency,ChargeDescription\n"
                              "1,2024-09-01T00:00:00Z,EUR,M\xFCnchen\n");
  auto v = validate_file(path, Format::kAuto);
  ASSERT_TRUE(v) << v.error().what();
  bool flagged = false;
  for (const auto& i : v->issues)
    flagged = flagged || (i.column == "ChargeDescription" && i.line == 2 &&
                          i.message.find("not UTF-8") != std::string::npos);
  EXPECT_TRUE(flagged);
}

// --- caps ------------------------------------------------------------------------------------

std::string focus_with_tags(std::size_t n, std::size_t key_bytes = 4, std::size_t value_bytes = 1) {
  std::string tags = "{";
  for (std::size_t i = 0; i < n; ++i) {
    std::string key = "k" + std::to_string(i);
    if (key.size() < key_bytes) key += std::string(key_bytes - key.size(), 'k');
    tags += (i ? ",\"\"" : "\"\"") + key + "\"\":\"\"" + std::string(value_bytes, 'v') + "\"\"";
  }
  tags += "}";
  return "BilledCost,ChargePeriodStart,Tags\n1,2024-09-01T00:00:00Z,\"" + tags + "\"\n";
}

TEST(RowCaps, AThousandTagsLoadAndOneMoreIsRejected) {
  auto ok = read(focus_with_tags(1000), Format::kFocus);
  EXPECT_EQ(ok.summary.loaded, 1) << ok.errors();
  EXPECT_EQ(ok.charges.at(0).tags.size(), 1000u);
  auto over = read(focus_with_tags(1001), Format::kFocus);
  EXPECT_EQ(over.summary.loaded, 0);
  EXPECT_EQ(over.summary.rejected, 1);
  EXPECT_TRUE(over.has_issue("Tags", "the row has 1,001 tags; a row may have at most 1,000"))
      << over.errors();
}

// The row of the issue (20,000 keys, 24 GB before it was killed) is one rejected row.
TEST(RowCaps, TwentyThousandKeysAreOneRejectedRow) {
  auto c = read(focus_with_tags(20000), Format::kFocus);
  EXPECT_EQ(c.summary.rejected, 1);
  EXPECT_TRUE(c.has_issue("Tags", "20,000 tags")) << c.errors();
}

TEST(RowCaps, LongKeysAndValuesAreRejected) {
  EXPECT_EQ(read(focus_with_tags(1, 2048, 8192), Format::kFocus).summary.loaded, 1);
  auto key = read(focus_with_tags(1, 2049), Format::kFocus);
  EXPECT_EQ(key.summary.rejected, 1);
  EXPECT_TRUE(key.has_issue("Tags", "is 2,049 bytes; a key may be at most 2,048 bytes"))
      << key.errors();
  auto value = read(focus_with_tags(1, 4, 8193), Format::kFocus);
  EXPECT_EQ(value.summary.rejected, 1);
  EXPECT_TRUE(value.has_issue("Tags", "is 8,193 bytes; a value may be at most 8,192 bytes"))
      << value.errors();
}

TEST(RowCaps, TagColumnsCountToo) {
  std::string header = "lineItem/UsageStartDate,lineItem/UnblendedCost",
              row = "2024-09-01T00:00:00Z,1";
  for (int i = 0; i < 1001; ++i) {
    header += ",resourceTags/user:k" + std::to_string(i);
    row += ",v";
  }
  auto c = read(header + "\n" + row + "\n", Format::kAwsCur);
  EXPECT_EQ(c.summary.rejected, 1);
  EXPECT_TRUE(c.has_issue("resourceTags/", "1,001 tags")) << c.errors();
}

TEST(RowCaps, ACellOverOneMebibyteRejectsTheRowNotTheFile) {
  const std::string text =
      "BilledCost,ChargePeriodStart,ChargeDescription\n"
      "1,2024-09-01T00:00:00Z," +
      std::string((1 << 20) + 1, 'd') +
      "\n"
      "2,2024-09-01T00:00:00Z,ok\n";
  auto c = read(text, Format::kFocus);
  EXPECT_EQ(c.summary.loaded, 1);
  EXPECT_EQ(c.summary.rejected, 1);
  EXPECT_TRUE(c.has_issue("ChargeDescription",
                          "the cell holds 1,048,577 bytes; a cell may hold at most 1 MiB"))
      << c.errors();
}

}  // namespace
}  // namespace aicost::billing
