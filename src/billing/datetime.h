// Date-times as billing exports write them: the forms read, the years accepted, and the words
// for a cell that is none.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "aicost/ledger/charge.h"

namespace aicost::billing {

enum class DateForm {
  kIso,       // 2024-09-01T00:00:00Z (FOCUS)
  kNoZone,    // 2024-09-01 00:00:00 or 2024-09-01T00:00:00 (read as UTC)
  kOffset,    // 2024-09-01T02:00:00+02:00 (converted to UTC)
  kDateOnly,  // 2024-09-01
  kUsDate,    // 9/1/2024, 09/01/2024 (Azure) or 4/1/25, read as month/day/year (20YY)
};
// The years a date may have: a year outside is out of range, not a format error.
inline constexpr int kMinYear = 1900, kMaxYear = 2200;
// Seconds since the epoch, and which form the text used. nullopt for text that is no date-time,
// and for a well-formed one outside kMinYear..kMaxYear (`out_of_range` is then set).
std::optional<ledger::UnixSeconds> parse_datetime(std::string_view v, DateForm* form = nullptr,
                                                  bool* out_of_range = nullptr);
// Whether a time in seconds since the epoch falls in kMinYear..kMaxYear.
bool time_in_range(double seconds);
// "out of range (max 2200-12-31T23:59:59Z)", or the min when `above` is false.
std::string time_out_of_range(bool above);
// Why a cell is not a date-time, for messages: "'x' is not a date-time" or "'2262-01-01' is out
// of range (max 2200-12-31T23:59:59Z)".
std::string not_a_datetime(std::string_view v, bool out_of_range,
                           std::string_view what = "a date-time");

}  // namespace aicost::billing
