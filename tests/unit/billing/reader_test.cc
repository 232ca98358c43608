// Files no reader reads (compression inside compression, Parquet in memory, UTF-16/32) are told
// apart from their first bytes and refused with what they are and what to do
// (src/billing/signatures.cc), whatever --format says.
#include <gtest/gtest.h>

#include <string>

#include "aicost/billing/reader.h"
#include "collected.h"

namespace aicost::billing {
namespace {

using namespace std::string_literals;

std::string refused(const std::string& bytes, Format format = Format::kAuto) {
  return refusal(bytes, format, "export.csv.gz");
}

struct Case {
  const char* name;
  std::string bytes;
  const char* says;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class NotText : public ::testing::TestWithParam<Case> {};

TEST_P(NotText, SaysWhatTheFileIsAndWhatToDo) {
  for (Format f : {Format::kAuto, Format::kFocus, Format::kDcgmPrometheus}) {
    const auto m = refused(GetParam().bytes, f);
    EXPECT_NE(m.find(GetParam().says), std::string::npos) << format_name(f) << ": " << m;
    EXPECT_EQ(m.find("--format"), std::string::npos) << m;
    if (m.find("inside a compressed file") == std::string::npos) {
      EXPECT_NE(m.find("is planned"), std::string::npos) << m;
    }
  }
}

const std::string kCsv = "BilledCost,ChargePeriodStart\n1,2024-09-01T00:00:00Z\n";

std::string utf16(const std::string& ascii, bool big_endian) {
  std::string out;
  for (char c : ascii) out += big_endian ? "\0"s + c : std::string(1, c) + '\0';
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Signatures, NotText,
    ::testing::Values(
        // What reaches a reader compressed was inside a file that was decoded (source.cc).
        Case{"gzip", "\x1F\x8B\x08\x00\x00\x00\x00\x00"s,
             "this is a gzip-compressed file inside a compressed file; unpack the outer file"},
        Case{"zstd", "\x28\xB5\x2F\xFD\x04\x00"s,
             "a zstd-compressed file inside a compressed file; unpack"},
        Case{"bzip2", "BZh91AY&SY"s, "a bzip2-compressed file inside a compressed file; unpack"},
        Case{"xz",
             "\xFD"
             "7zXZ\0\0"s,
             "an xz-compressed file inside a compressed file; unpack"},
        Case{"zip", "PK\x03\x04\x14\0\0\0"s, "a zip archive inside a compressed file; unpack"},
        Case{"parquet", "PAR1\x15\x04"s, "a Parquet file; save it to a file and load that"},
        Case{"utf16le_bom", "\xFF\xFE"s + utf16(kCsv, false),
             "UTF-16 (little-endian) text; convert it to UTF-8 first (iconv -f UTF-16 "},
        Case{"utf16be_bom", "\xFE\xFF"s + utf16(kCsv, true),
             "UTF-16 (big-endian) text; convert it to UTF-8 first"},
        Case{"utf16le", utf16(kCsv, false),
             "UTF-16 (little-endian) text without a byte-order mark; convert it to UTF-8 first "
             "(iconv -f UTF-16LE"},
        Case{"utf16be", utf16(kCsv, true),
             "UTF-16 (big-endian) text without a byte-order mark; convert it to UTF-8 first (iconv "
             "-f UTF-16BE"},
        Case{"utf32le", "\xFF\xFE\0\0B\0\0\0"s, "UTF-32 (little-endian) text"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(NotText, TextThatLooksLikeNoFormatStillAsksForTheFormat) {
  EXPECT_NE(refused("a,b,c\n1,2,3\n").find("name it with --format"), std::string::npos);
  // A header that merely starts like a signature is text.
  EXPECT_NE(refused("BZh,x\n1,2\n").find("name it with --format"), std::string::npos);
}

}  // namespace
}  // namespace aicost::billing
