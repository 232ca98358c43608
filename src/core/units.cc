#include "aicost/core/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "aicost/core/suggest.h"
#include "aicost/core/text.h"

namespace aicost::core {
namespace {

struct UnitEntry {
  const char* symbol;
  double factor;  // base units per one of this unit
};

constexpr double kBit = 1.0 / 8.0;
constexpr double kHour = kSecondsPerHour;

const std::vector<UnitEntry>& table(UnitKind kind) {
  static const std::vector<UnitEntry> bytes = {
      {"B", 1},      {"KB", kKB},   {"MB", kMB},   {"GB", kGB},   {"TB", kTB},         {"PB", kPB},
      {"KiB", kKiB}, {"MiB", kMiB}, {"GiB", kGiB}, {"TiB", kTiB}, {"PiB", kTiB * 1024}};
  static const std::vector<UnitEntry> bandwidth = {
      {"B/s", 1},           {"KB/s", kKB},         {"MB/s", kMB},        {"GB/s", kGB},
      {"TB/s", kTB},        {"KiB/s", kKiB},       {"MiB/s", kMiB},      {"GiB/s", kGiB},
      {"TiB/s", kTiB},      {"b/s", kBit},         {"Kb/s", kKB * kBit}, {"Mb/s", kMB * kBit},
      {"Gb/s", kGB * kBit}, {"Tb/s", kTB * kBit},  {"Mbps", kMB * kBit}, {"Gbps", kGB * kBit},
      {"Tbps", kTB * kBit}, {"Gbit/s", kGB * kBit}};
  static const std::vector<UnitEntry> flops = {
      {"FLOP/s", 1},    {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}, {"GFLOPS", 1e9},
      {"TFLOPS", 1e12}, {"PFLOPS", 1e15}, {"TOP/s", 1e12},   {"POP/s", 1e15}};
  static const std::vector<UnitEntry> duration = {{"us", 1e-6},
                                                  {"ms", 1e-3},
                                                  {"s", 1},
                                                  {"min", 60},
                                                  {"h", kHour},
                                                  {"d", 86400},
                                                  {"w", 7 * 86400},
                                                  {"month", kSecondsPerMonth},
                                                  {"y", kSecondsPerYear},
                                                  {"year", kSecondsPerYear}};
  static const std::vector<UnitEntry> money = {{"USD", 1}};
  static const std::vector<UnitEntry> money_rate = {{"USD/h", 1 / kHour},
                                                    {"USD/hour", 1 / kHour},
                                                    {"USD/day", 1 / 86400.0},
                                                    {"USD/month", 1 / kSecondsPerMonth},
                                                    {"USD/year", 1 / kSecondsPerYear}};
  static const std::vector<UnitEntry> storage = {{"USD/GB-month", 1 / (kGB * kSecondsPerMonth)},
                                                 {"USD/GiB-month", 1 / (kGiB * kSecondsPerMonth)},
                                                 {"USD/TB-month", 1 / (kTB * kSecondsPerMonth)}};
  static const std::vector<UnitEntry> transfer = {
      {"USD/GB", 1 / kGB}, {"USD/GiB", 1 / kGiB}, {"USD/TB", 1 / kTB}};
  static const std::vector<UnitEntry> count = {
      {"", 1}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}};
  static const std::vector<UnitEntry> power = {{"W", 1}, {"kW", 1e3}, {"MW", 1e6}};
  static const std::vector<UnitEntry> percent = {{"%", 0.01}};
  static const std::vector<UnitEntry> energy_price = {{"USD/kWh", 1 / (1e3 * kHour)},
                                                      {"USD/MWh", 1 / (1e6 * kHour)}};
  static const std::vector<UnitEntry> power_price = {{"USD/kW-month", 1 / (1e3 * kSecondsPerMonth)},
                                                     {"USD/kW-year", 1 / (1e3 * kSecondsPerYear)}};
  static const std::vector<UnitEntry> percent_per_year = {{"%/y", 0.01}, {"%/year", 0.01}};
  switch (kind) {
    case UnitKind::kBytes: return bytes;
    case UnitKind::kBandwidth: return bandwidth;
    case UnitKind::kFlopsRate: return flops;
    case UnitKind::kDuration: return duration;
    case UnitKind::kMoney: return money;
    case UnitKind::kMoneyRate: return money_rate;
    case UnitKind::kStoragePrice: return storage;
    case UnitKind::kTransferPrice: return transfer;
    case UnitKind::kCount: return count;
    case UnitKind::kPower: return power;
    case UnitKind::kPercent: return percent;
    case UnitKind::kEnergyPrice: return energy_price;
    case UnitKind::kPowerPrice: return power_price;
    case UnitKind::kPercentPerYear: return percent_per_year;
  }
  return count;
}

const char* example(UnitKind kind) {
  switch (kind) {
    case UnitKind::kBytes: return "'80GiB' (IEC) or '80GB' (SI)";
    case UnitKind::kBandwidth: return "'900GB/s' (bytes) or '400Gb/s' (bits)";
    case UnitKind::kFlopsRate: return "'989TFLOP/s'";
    case UnitKind::kDuration: return "'30min', '2h' or '90d'";
    case UnitKind::kMoney: return "'1000USD'";
    case UnitKind::kMoneyRate: return "'2.49USD/h' or '150USD/month'";
    case UnitKind::kStoragePrice: return "'0.023USD/GB-month'";
    case UnitKind::kTransferPrice: return "'0.09USD/GB'";
    case UnitKind::kCount: return "'300B' or '15T'";
    case UnitKind::kPower: return "'700W'";
    case UnitKind::kPercent: return "'20%'";
    case UnitKind::kEnergyPrice: return "'0.08USD/kWh'";
    case UnitKind::kPowerPrice: return "'185USD/kW-month'";
    case UnitKind::kPercentPerYear: return "'10%/y'";
  }
  return "";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

const char* unit_kind_name(UnitKind kind) {
  switch (kind) {
    case UnitKind::kBytes: return "a size";
    case UnitKind::kBandwidth: return "a bandwidth";
    case UnitKind::kFlopsRate: return "a FLOP rate";
    case UnitKind::kDuration: return "a duration";
    case UnitKind::kMoney: return "an amount of money";
    case UnitKind::kMoneyRate: return "a price per time";
    case UnitKind::kStoragePrice: return "a storage price";
    case UnitKind::kTransferPrice: return "a transfer price";
    case UnitKind::kCount: return "a count";
    case UnitKind::kPower: return "a power";
    case UnitKind::kPercent: return "a percentage";
    case UnitKind::kEnergyPrice: return "an energy price";
    case UnitKind::kPowerPrice: return "a price per kW of capacity";
    case UnitKind::kPercentPerYear: return "a percentage per year";
  }
  return "a quantity";
}

std::vector<std::string> accepted_units(UnitKind kind) {
  std::vector<std::string> out;
  for (const auto& e : table(kind)) out.emplace_back(e.symbol);
  return out;
}

Result<double> parse_base_units(std::string_view raw, UnitKind kind) {
  const std::string_view text = trim(raw);
  const std::string shown = "'" + std::string(raw) + "'";
  if (text.empty()) {
    return make_error(ErrorCode::kInvalidInput, std::string("empty value where ") +
                                                    unit_kind_name(kind) +
                                                    " is expected; write e.g. " + example(kind));
  }
  double number = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || !std::isfinite(number)) {
    return make_error(ErrorCode::kInvalidInput,
                      shown + " is not a number with a unit; write e.g. " + example(kind));
  }
  if (number < 0) {
    return make_error(ErrorCode::kInvalidInput,
                      shown + " is negative; " + unit_kind_name(kind) + " must be >= 0");
  }
  const std::string_view unit = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  const auto& units = table(kind);
  for (const auto& e : units) {
    if (unit == e.symbol) return number * e.factor;
  }
  if (unit.empty()) {
    return make_error(ErrorCode::kInvalidInput, shown + " has no unit; " + unit_kind_name(kind) +
                                                    " needs one, e.g. " + example(kind));
  }
  // A case-insensitive match is accepted only when it is unambiguous (GB/s vs Gb/s is not).
  const UnitEntry* only = nullptr;
  int matches = 0;
  for (const auto& e : units) {
    if (iequals(unit, e.symbol)) {
      only = &e;
      ++matches;
    }
  }
  if (matches == 1 && kind != UnitKind::kBytes && kind != UnitKind::kBandwidth) {
    return number * only->factor;
  }
  std::string list;
  for (const auto& e : units) {
    if (*e.symbol == '\0') continue;
    if (!list.empty()) list += ", ";
    list += e.symbol;
  }
  return make_error(ErrorCode::kInvalidInput, "unknown unit '" + std::string(unit) + "' in " +
                                                  shown + " for " + unit_kind_name(kind) + "." +
                                                  did_you_mean(unit, accepted_units(kind)) +
                                                  " Accepted: " + list);
}

namespace {
template <class Q>
Result<Q> as(std::string_view text, UnitKind kind) {
  auto r = parse_base_units(text, kind);
  if (!r) return r.error();
  return Q(*r);
}
}  // namespace

Result<Bytes> parse_bytes(std::string_view t) { return as<Bytes>(t, UnitKind::kBytes); }
Result<BytesPerSecond> parse_bandwidth(std::string_view t) {
  return as<BytesPerSecond>(t, UnitKind::kBandwidth);
}
Result<FlopsPerSecond> parse_flops_rate(std::string_view t) {
  return as<FlopsPerSecond>(t, UnitKind::kFlopsRate);
}
Result<Seconds> parse_duration(std::string_view t) { return as<Seconds>(t, UnitKind::kDuration); }
Result<Usd> parse_money(std::string_view t) { return as<Usd>(t, UnitKind::kMoney); }
Result<UsdPerSecond> parse_money_rate(std::string_view t) {
  return as<UsdPerSecond>(t, UnitKind::kMoneyRate);
}
Result<UsdPerByteSecond> parse_storage_price(std::string_view t) {
  return as<UsdPerByteSecond>(t, UnitKind::kStoragePrice);
}
Result<UsdPerByte> parse_transfer_price(std::string_view t) {
  return as<UsdPerByte>(t, UnitKind::kTransferPrice);
}
Result<double> parse_count(std::string_view t) { return parse_base_units(t, UnitKind::kCount); }
Result<Watts> parse_power(std::string_view t) { return as<Watts>(t, UnitKind::kPower); }
Result<double> parse_percent(std::string_view t) { return parse_base_units(t, UnitKind::kPercent); }
Result<UsdPerJoule> parse_energy_price(std::string_view t) {
  return as<UsdPerJoule>(t, UnitKind::kEnergyPrice);
}
Result<UsdPerJoule> parse_power_price(std::string_view t) {
  return as<UsdPerJoule>(t, UnitKind::kPowerPrice);
}

std::string format_count(double count) {
  static const struct {
    double f;
    const char* s;
  } kSuffix[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}, {1, ""}};
  char buf[64];
  for (const auto& s : kSuffix) {
    // Pick the suffix after rounding to 4 significant digits, so 999,999 prints as "1M".
    std::snprintf(buf, sizeof buf, "%.4g", count / s.f);
    if (std::strtod(buf, nullptr) >= 1 || s.f == 1) {
      return std::string(buf) + s.s;
    }
  }
  return buf;
}

std::string format_in_unit(double v, UnitKind kind) {
  auto g = [](double x, const char* unit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g%s", x, unit);
    return std::string(buf);
  };
  switch (kind) {
    case UnitKind::kPercent: return g(std::round(v * 1e4) / 100, "%");
    case UnitKind::kDuration:
      if (v == 0) return "0s";
      if (v < 1e-3) return g(std::round(v * 1e9) / 1e3, "us");
      if (v < 1) return g(std::round(v * 1e6) / 1e3, "ms");
      return g(v, "s");
    default: return g(v, "");
  }
}

}  // namespace aicost::core
