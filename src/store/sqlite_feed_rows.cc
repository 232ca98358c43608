#include "sqlite_feed_rows.h"

namespace aicost::store {

void charge_column(const void* rows, std::size_t k, int column, sqlite3_context* out) {
  const auto& b = *static_cast<const ChargeRows*>(rows);
  const auto& c = b.charges[k];
  constexpr int kFirstText = kChargeColumnCount - static_cast<int>(kChargeTextCount);
  if (column >= kFirstText)
    return sqlite3_result_int64(out, b.ids[k][static_cast<std::size_t>(column - kFirstText)]);
  switch (column) {
    case 0: return sqlite3_result_int64(out, b.source_id);
    case 1: return sqlite3_result_int64(out, c.line);
    case 2: return sqlite3_result_int64(out, ledger::day_of(c.period_start));
    case 3: return sqlite3_result_int64(out, c.period_start);
    case 4: return sqlite3_result_int64(out, c.period_end);
    case 5: return sqlite3_result_int64(out, c.billing_period_start);
    case 6: return sqlite3_result_int64(out, c.billed);
    case 7: return sqlite3_result_int64(out, c.effective);
    case 8: return sqlite3_result_int64(out, c.list);
    case 9:
      return c.contracted ? sqlite3_result_int64(out, *c.contracted) : sqlite3_result_null(out);
    case 10:
      return c.pricing_quantity ? sqlite3_result_double(out, *c.pricing_quantity)
                                : sqlite3_result_null(out);
    case 11:
      return c.consumed_quantity ? sqlite3_result_double(out, *c.consumed_quantity)
                                 : sqlite3_result_null(out);
    case 12: return sqlite3_result_double(out, c.gpu_hours);
    case 13: return sqlite3_result_int64(out, b.tagsets[k]);
    case 14:
      return sqlite3_result_text(out, c.resource_id.data(), static_cast<int>(c.resource_id.size()),
                                 SQLITE_STATIC);
    default: return sqlite3_result_null(out);
  }
}

void daily_column(const void* rows, std::size_t k, int column, sqlite3_context* out) {
  const auto& b = *static_cast<const DailyRows*>(rows);
  const auto& r = b.rows[k];
  constexpr int kDims = static_cast<int>(ledger::kRollupDimCount);
  if (column == 0) return sqlite3_result_int64(out, b.source_id);
  if (column == 1) return sqlite3_result_int64(out, r.day);
  if (column < 2 + kDims)
    return sqlite3_result_int64(out, r.ids[static_cast<std::size_t>(column - 2)]);
  switch (column - 2 - kDims) {  // the sums fit 64 bits: commit_source checked
    case 0: return sqlite3_result_int64(out, r.tagset);
    case 1: return sqlite3_result_int64(out, static_cast<std::int64_t>(r.sums.billed));
    case 2: return sqlite3_result_int64(out, static_cast<std::int64_t>(r.sums.effective));
    case 3: return sqlite3_result_int64(out, static_cast<std::int64_t>(r.sums.list));
    case 4: return sqlite3_result_int64(out, static_cast<std::int64_t>(r.sums.contracted));
    case 5: return sqlite3_result_double(out, r.sums.gpu_hours);
    case 6: return sqlite3_result_int64(out, r.sums.rows);
    case 7: return sqlite3_result_double(out, r.sums.consumed_quantity);
    default: return sqlite3_result_null(out);
  }
}

void string_column(const void* rows, std::size_t k, int column, sqlite3_context* out) {
  const auto& s = static_cast<const NewString*>(rows)[k];
  if (column == 0) return sqlite3_result_int64(out, s.first);
  sqlite3_result_text(out, s.second.data(), static_cast<int>(s.second.size()), SQLITE_STATIC);
}

}  // namespace aicost::store
