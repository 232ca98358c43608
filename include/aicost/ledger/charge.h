// One row of a cost-and-usage export in FOCUS terms, whatever file format it came from.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "aicost/core/result.h"

namespace aicost::ledger {

using UnixSeconds = std::int64_t;  // seconds since 1970-01-01T00:00:00Z
using Day = std::int32_t;          // days since 1970-01-01 (UTC)

Day day_of(UnixSeconds t);
// "2024-09-01" for a day number; the inverse of parse in the readers.
std::string day_text(Day d);
// Days since the epoch of a civil date (proleptic Gregorian); no validation.
Day days_from_civil(int year, unsigned month, unsigned day);
// Days in `month` (1..12) of `year` (proleptic Gregorian leap years); 0 for another month.
unsigned days_in_month(int year, unsigned month);

enum class DayForm {
  kDay,         // exactly "YYYY-MM-DD"
  kDayOrMonth,  // that, or "YYYY-MM" for the month's 1st
};
// The one parser of a date a person writes (options, budget files): four-digit year, two-digit
// month and day, a day the calendar has, nothing after it. On error kInvalidInput with a message
// that says what is wrong ("2025-02-31: February 2025 has 28 days"); the caller adds the context
// (the option, or the file position).
core::Result<Day> parse_day(std::string_view text, DayForm form = DayForm::kDay);

struct Tag {
  std::string key;    // as the export wrote it ("Team", "cost-center")
  std::string value;  // JSON true (a key without a value) is stored as "true"
  friend bool operator==(const Tag&, const Tag&) = default;
};

// Hash of a row's tags as written (order and case matter), for caches in front of tagset_text.
struct TagsHash {
  std::size_t operator()(const std::vector<Tag>& tags) const;
};

// A charge row. Money is exact nano-units (core/amount.h) of `currency`; names are FOCUS column
// names in snake_case. Empty strings are FOCUS nulls.
struct Charge {
  std::int64_t line = 0;         // 1-based line in the source file where the row starts
  UnixSeconds period_start = 0;  // ChargePeriodStart (inclusive)
  UnixSeconds period_end = 0;    // ChargePeriodEnd (exclusive)
  UnixSeconds billing_period_start = 0;
  std::string currency;  // BillingCurrency, ISO 4217

  std::int64_t billed = 0;                 // BilledCost: the invoice basis
  std::int64_t effective = 0;              // EffectiveCost: amortised, after all discounts
  std::int64_t list = 0;                   // ListCost: public price
  std::optional<std::int64_t> contracted;  // ContractedCost: negotiated, before commitments

  std::string provider, billing_account_id, billing_account_name, sub_account_id, sub_account_name;
  std::string service_name, service_category, region_id, resource_id, resource_name, resource_type;
  std::string sku_id, charge_category, charge_class, charge_frequency, pricing_category;
  std::string commitment_discount_id, commitment_discount_status, pricing_unit, consumed_unit;
  std::string charge_description;
  std::optional<double> pricing_quantity, consumed_quantity;

  double gpu_hours = 0;  // GPUs × hours where the row says how many GPUs (docs/LEDGER.md)
  std::vector<Tag> tags;
};

// Empties every field but keeps the strings' capacity (readers refill one Charge per row).
void clear(Charge& c);

// Every text field of a charge (tags apart), in the order of the struct: the one list for code
// that must visit all of them. `const Charge` gives pointers to const.
template <typename C>
requires std::is_same_v<std::remove_const_t<C>, Charge>
auto text_fields(C& c) {
  using S = std::conditional_t<std::is_const_v<C>, const std::string, std::string>;
  return std::array<S*, 22>{&c.currency,
                            &c.provider,
                            &c.billing_account_id,
                            &c.billing_account_name,
                            &c.sub_account_id,
                            &c.sub_account_name,
                            &c.service_name,
                            &c.service_category,
                            &c.region_id,
                            &c.resource_id,
                            &c.resource_name,
                            &c.resource_type,
                            &c.sku_id,
                            &c.charge_category,
                            &c.charge_class,
                            &c.charge_frequency,
                            &c.pricing_category,
                            &c.commitment_discount_id,
                            &c.commitment_discount_status,
                            &c.pricing_unit,
                            &c.consumed_unit,
                            &c.charge_description};
}

// "team" for "Team", "TEAM", "team "; "cost_center" for "cost-center", "Cost Center", "CostCenter".
std::string canonical_tag_key(std::string_view key);

// The tags of a row in one canonical text (keys canonical, sorted, JSON-escaped), so rows with the
// same tags share one stored tag set.
std::string tagset_text(const std::vector<Tag>& tags);

// A reader's complaint about one cell (or the whole row when column is empty).
struct RowIssue {
  // error: the row was not loaded; note: information that is no fault of the file (a column
  // FOCUS deprecates but still requires), which `ledger validate` shows without failing.
  enum class Severity { kWarning, kError, kNote };
  std::int64_t line = 0;
  std::string column;
  Severity severity = Severity::kWarning;
  std::string message;
};

// "warning", "error", "note": how an issue is stored and shown.
inline const char* severity_name(RowIssue::Severity s) {
  return s == RowIssue::Severity::kError  ? "error"
         : s == RowIssue::Severity::kNote ? "note"
                                          : "warning";
}
// The inverse; text it does not know reads as a warning.
inline RowIssue::Severity severity_from_name(std::string_view name) {
  return name == "error"  ? RowIssue::Severity::kError
         : name == "note" ? RowIssue::Severity::kNote
                          : RowIssue::Severity::kWarning;
}

}  // namespace aicost::ledger
