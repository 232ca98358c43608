#include "aicost/core/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "aicost/core/text.h"

// Expected values are the unit definitions in include/aicost/core/units.h and quantity.h:
// SI prefixes are powers of 1000, IEC prefixes powers of 1024, lower-case b is a bit (1/8 B),
// a month is 730 h. Every expectation below is derived by hand from those definitions.

namespace aicost::core {
namespace {

constexpr double kRel = 1e-12;  // parse results are one multiplication: exact up to rounding

void expect_rel(double actual, double expected) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * kRel) << "expected " << expected;
}

TEST(ParseBytes, IecGibIsPowerOfTwo) {
  // 80 GiB = 80 * 2^30 = 85,899,345,920 B.
  auto r = parse_bytes("80GiB");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 80.0 * 1073741824.0);
}

TEST(ParseBytes, SiGbIsPowerOfTen) {
  // 80 GB = 80 * 1e9 = 8e10 B.
  auto r = parse_bytes("80GB");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 8e10);
}

TEST(ParseBytes, FractionalTerabytes) {
  // 1.5 TB = 1.5e12 B.
  auto r = parse_bytes("1.5TB");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 1.5e12);
}

TEST(ParseBandwidth, LowerCaseBIsBits) {
  // 400 Gb/s = 400e9 bit/s / 8 = 5e10 B/s.
  auto r = parse_bandwidth("400Gb/s");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 5e10);
}

TEST(ParseBandwidth, UpperCaseBIsBytes) {
  // 900 GB/s = 9e11 B/s.
  auto r = parse_bandwidth("900GB/s");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 9e11);
}

TEST(ParseFlopsRate, TeraFlops) {
  // 989 TFLOP/s = 9.89e14 FLOP/s.
  auto r = parse_flops_rate("989TFLOP/s");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 9.89e14);
}

TEST(ParseDuration, Minutes) {
  // 30 min = 1800 s.
  auto r = parse_duration("30min");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 1800.0);
}

TEST(ParseDuration, Hours) {
  // 2 h = 7200 s.
  auto r = parse_duration("2h");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 7200.0);
}

TEST(ParseDuration, MonthIs730Hours) {
  // 1 month = 730 h = 730 * 3600 = 2,628,000 s.
  auto r = parse_duration("1month");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 2628000.0);
}

TEST(ParseDuration, YearIs8760Hours) {
  // 5 y = 5 x 8760 h = 5 x 31,536,000 s = 157,680,000 s (retention minimums are written in years).
  auto r = parse_duration("5y");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 157680000.0);
  auto y = parse_duration("1year");
  ASSERT_TRUE(y) << y.error().what();
  expect_rel(y->value(), 31536000.0);
}

TEST(ParseMoneyRate, HourlyRateStoredPerSecond) {
  // 2.49 USD/h = 2.49 / 3600 USD/s.
  auto r = parse_money_rate("2.49USD/h");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 2.49 / 3600.0);
}

TEST(ParseMoneyRate, MonthlyRateUses730Hours) {
  // 150 USD/month = 150 / (730 * 3600) USD/s.
  auto r = parse_money_rate("150USD/month");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 150.0 / 2628000.0);
}

TEST(ParseStoragePrice, PerGbMonth) {
  // 0.023 USD/GB-month = 0.023 / (1e9 B * 2,628,000 s) USD/(B*s).
  auto r = parse_storage_price("0.023USD/GB-month");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 0.023 / (1e9 * 2628000.0));
}

TEST(ParseTransferPrice, PerGb) {
  // 0.09 USD/GB = 9e-11 USD/B.
  auto r = parse_transfer_price("0.09USD/GB");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 0.09 / 1e9);
}

TEST(ParseCount, BillionSuffix) {
  // 300B = 300 * 1e9 = 3e11 (B = billion for counts, not bytes).
  auto r = parse_count("300B");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(*r, 3e11);
}

TEST(ParseCount, TrillionSuffix) {
  // 15T = 1.5e13.
  auto r = parse_count("15T");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(*r, 1.5e13);
}

TEST(ParseCount, PlainNumber) {
  auto r = parse_count("42");
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_DOUBLE_EQ(*r, 42.0);
}

TEST(ParsePercent, TwentyPercentIsPointTwo) {
  auto r = parse_percent("20%");
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_NEAR(*r, 0.2, 1e-15);
}

// 0.08 USD per kWh: one kWh is 1,000 W x 3,600 s = 3.6e6 J, so 0.08 / 3.6e6 USD/J.
TEST(ParseEnergyPrice, KilowattHour) {
  auto r = parse_energy_price("0.08USD/kWh");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 0.08 / 3.6e6);
  auto mwh = parse_energy_price("80USD/MWh");
  ASSERT_TRUE(mwh) << mwh.error().what();
  expect_rel(mwh->value(), r->value());
}

// 185 USD per kW-month: a kW held for a month of 730 h is 1,000 W x 2,628,000 s.
TEST(ParsePowerPrice, KilowattMonthIsSevenHundredThirtyHours) {
  auto r = parse_power_price("185USD/kW-month");
  ASSERT_TRUE(r) << r.error().what();
  expect_rel(r->value(), 185 / (1e3 * 730 * 3600));
  auto year = parse_power_price("2220USD/kW-year");  // 12 x 185
  ASSERT_TRUE(year) << year.error().what();
  expect_rel(year->value(), r->value());
}

TEST(ParsePercentPerYear, TenPercentAYear) {
  auto r = parse_base_units("10%/y", UnitKind::kPercentPerYear);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_NEAR(*r, 0.1, 1e-15);
  auto bare = parse_base_units("10%", UnitKind::kPercentPerYear);
  ASSERT_FALSE(bare);
  EXPECT_NE(bare.error().what().find("%/y"), std::string::npos) << bare.error().what();
}

TEST(ParseEnergyPriceError, UnitlessNumberAsksForKwh) {
  auto r = parse_energy_price("0.08");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().what().find("'0.08USD/kWh'"), std::string::npos) << r.error().what();
  // A capacity rent is not an energy price, though both are USD per joule.
  EXPECT_FALSE(parse_energy_price("185USD/kW-month"));
}

TEST(ParseBytesError, UnitlessNumberAsksForUnit) {
  auto r = parse_bytes("80");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().what().find("GiB"), std::string::npos) << r.error().what();
  EXPECT_NE(r.error().what().find("unit"), std::string::npos) << r.error().what();
}

TEST(ParseBytesError, MiscasedUnitSuggestsGiB) {
  auto r = parse_bytes("80Gib");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().what().find("'GiB'"), std::string::npos) << r.error().what();
}

TEST(ParseBytesError, NegativeRejected) {
  auto r = parse_bytes("-5GB");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().what().find("negative"), std::string::npos) << r.error().what();
}

TEST(ParseBytesError, BitsAreNotBytes) {
  // "Gb" is gigabits; a size in bytes must not silently accept it as GB.
  auto r = parse_bytes("80Gb");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
}

TEST(ParseBytesError, EmptyString) {
  auto r = parse_bytes("");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().what().find("empty"), std::string::npos) << r.error().what();
}

TEST(FormatCount, SiSuffixes) {
  // 3e11 = 300 billion -> "300B"; 1.5e13 = 15 trillion -> "15T"; below 1000 no suffix.
  EXPECT_EQ(format_count(3e11), "300B");
  EXPECT_EQ(format_count(1.5e13), "15T");
  EXPECT_EQ(format_count(42), "42");
}

// BUG (src/core/units.cc format_count): the suffix is chosen before "%.4g" rounds, so 999,999
// (= 999.999K, which rounds to 1000 at 4 significant digits) prints as "1000K" instead of "1M";
// likewise 999,950. Enable once the suffix is picked after rounding.
TEST(FormatCount, RoundsUpIntoNextSuffix) {
  EXPECT_EQ(format_count(999999), "1M");
  EXPECT_EQ(format_count(999950), "1M");
}

// The inverse of the parsers for the kinds of data/efficiency.yaml: what format_in_unit writes
// parses back to the value (to its rounding: 0.01 % and 1 ns).
TEST(FormatInUnit, WritesWhatTheParsersRead) {
  EXPECT_EQ(format_in_unit(0.685, UnitKind::kPercent), "68.5%");
  EXPECT_EQ(format_in_unit(0, UnitKind::kDuration), "0s");
  EXPECT_EQ(format_in_unit(8e-6, UnitKind::kDuration), "8us");
  EXPECT_EQ(format_in_unit(3e-4, UnitKind::kDuration), "300us");
  EXPECT_EQ(format_in_unit(1.5e-3, UnitKind::kDuration), "1.5ms");
  EXPECT_EQ(format_in_unit(2, UnitKind::kDuration), "2s");
  EXPECT_EQ(format_in_unit(128, UnitKind::kCount), "128");
  for (auto [v, kind] : {std::pair{0.6799999999999999, UnitKind::kPercent},
                         {0.35e-3, UnitKind::kDuration},
                         {0.045, UnitKind::kDuration},
                         {96.0, UnitKind::kCount}}) {
    auto back = parse_base_units(format_in_unit(v, kind), kind);
    ASSERT_TRUE(back) << format_in_unit(v, kind);
    EXPECT_NEAR(*back, v, 1e-9);
  }
}

TEST(GroupDigits, RoundsAndGroupsThousands) {
  // 1234567.8 rounds to 1234568 and groups as 1,234,568.
  EXPECT_EQ(group_digits(1234567.8), "1,234,568");
  EXPECT_EQ(group_digits(999), "999");
  EXPECT_EQ(group_digits(-1000), "-1,000");
}

TEST(FormatBytes, SiUnits) {
  // 2.45e12 B = 2.45 TB (3 significant digits); under 1000 B printed as whole bytes.
  EXPECT_EQ(format_bytes(2.45e12), "2.45 TB");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(8e10), "80 GB");
}

}  // namespace
}  // namespace aicost::core
