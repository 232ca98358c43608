// Parsing of numbers with units from input files: "80GiB", "900GB/s", "400Gb/s", "989TFLOP/s",
// "2.49USD/h", "0.023USD/GB-month", "0.09USD/GB", "15T" (a count), "700W", "20%", "30min".
// SI and IEC prefixes are distinct (GB = 1e9 B, GiB = 2^30 B); lower-case b is bits.
// A number without a unit where one is expected is an error that names a unit to add
// (after SimGrid src/xbt/xbt_parse_units.cpp). Negative values are rejected.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/core/result.h"

namespace aicost::core {

enum class UnitKind {
  kBytes,           // B, KB..PB, KiB..PiB
  kBandwidth,       // B/s.., GB/s, GiB/s, Gb/s (bits), Gbps
  kFlopsRate,       // FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s (also TFLOPS, TOP/s)
  kDuration,        // ms, s, min, h, d, w, month (= 730 h), y (= 8760 h)
  kMoney,           // USD
  kMoneyRate,       // USD/h, USD/day, USD/month (730 h), USD/year (8760 h)
  kStoragePrice,    // USD/GB-month, USD/GiB-month, USD/TB-month
  kTransferPrice,   // USD/GB, USD/GiB, USD/TB
  kCount,           // plain number or K, M, B (billion), T (trillion): tokens, parameters
  kPower,           // W, kW, MW
  kPercent,         // 20% -> 0.2
  kEnergyPrice,     // USD/kWh, USD/MWh -> USD/J
  kPowerPrice,      // USD/kW-month (730 h), USD/kW-year (8760 h): capacity rent -> USD/(W*s)
  kPercentPerYear,  // 10%/y, 10%/year -> 0.1 per year
};

// Human name of the kind ("a size", "a bandwidth", ...), for messages.
const char* unit_kind_name(UnitKind kind);
// The units accepted for a kind, in the order they are listed in messages.
std::vector<std::string> accepted_units(UnitKind kind);

// Parses `text` as a quantity of `kind` and returns it in base units (B, B/s, FLOP/s, s, USD,
// USD/s, USD/(B*s), USD/B, count, W, fraction, USD/J, USD/(W*s), fraction per year). Errors are
// kInvalidInput with a message that says what to write instead.
Result<double> parse_base_units(std::string_view text, UnitKind kind);

Result<Bytes> parse_bytes(std::string_view text);
Result<BytesPerSecond> parse_bandwidth(std::string_view text);
Result<FlopsPerSecond> parse_flops_rate(std::string_view text);
Result<Seconds> parse_duration(std::string_view text);
Result<Usd> parse_money(std::string_view text);
Result<UsdPerSecond> parse_money_rate(std::string_view text);
Result<UsdPerByteSecond> parse_storage_price(std::string_view text);
Result<UsdPerByte> parse_transfer_price(std::string_view text);
Result<double> parse_count(std::string_view text);
Result<Watts> parse_power(std::string_view text);
Result<double> parse_percent(std::string_view text);
Result<UsdPerJoule> parse_energy_price(std::string_view text);
Result<UsdPerJoule> parse_power_price(std::string_view text);  // a kW-month is an energy too

// Formats a count with an SI suffix: 3e11 -> "300B", 1.5e13 -> "15T".
std::string format_count(double count);

// A value in SI units as an input file writes it, for the kinds the efficiency profiles use:
// kPercent 0.685 -> "68.5%"; kDuration 0 -> "0s", 3e-4 -> "300us", 1.5e-3 -> "1.5ms", 2 -> "2s";
// anything else as a plain number ("128"). Six significant digits (printf %g).
std::string format_in_unit(double value, UnitKind kind);

}  // namespace aicost::core
