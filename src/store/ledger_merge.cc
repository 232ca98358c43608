// The daily rollup merged across sources (charge_daily_merged, schema 9) kept equal to charge_daily
// summed over its sources, inside the transaction that changes charge_daily: an ingest adds its
// source's groups, and dropping or restating a source sums the days it had again from what stays.
// Money and row counts are integers, so the merged sums are exact whatever the order; GPU-hours
// and ConsumedQuantity are doubles, summed once more from charge_daily where a source leaves
// rather than subtracted (a difference of doubles would leave a residue where nothing stays).
// Each source's totals per currency (source_totals, schema 10) are kept here too.
#include <algorithm>

#include "ledger_base.h"

namespace aicost::store {
namespace {

// Days per statement: an IN list of literals, short enough for either database's parser.
constexpr std::size_t kDaysPerStatement = 500;

std::string day_list(std::span<const std::int64_t> days) {
  std::string out;
  for (auto d : days) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

// Exact decimal text of a wide sum, as source_totals keeps it.
std::string decimal(core::WideNanos v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string out;
  for (; v != 0; v /= 10) out += static_cast<char>('0' + (negative ? -(v % 10) : v % 10));
  if (negative) out += '-';
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

core::Status LedgerBase::merge_source(std::int64_t source) {
  std::string set;
  for (const char* column :
       {"billed", "effective", "list", "contracted", "gpu_hours", "rows", "consumed_quantity"}) {
    set += set.empty() ? "" : ", ";
    set += std::string(column) + " = charge_daily_merged." + column + " + excluded." + column;
  }
  const std::string columns = merged_columns();
  // The source's rows are one per key (IdRollup's groups), as ON CONFLICT needs in PostgreSQL.
  auto r = query("merging the daily rollup",
                 "INSERT INTO charge_daily_merged (" + columns + ") SELECT " + columns +
                     " FROM charge_daily WHERE source_id = $1 ON CONFLICT (" + merged_key() +
                     ") DO UPDATE SET " + set,
                 {source});
  if (!r) return r.error();
  return {};
}

core::Result<std::vector<std::int64_t>> LedgerBase::daily_days(std::int64_t source) {
  auto q = query("reading a source's days",
                 "SELECT DISTINCT day FROM charge_daily WHERE source_id = $1", {source});
  if (!q) return q.error();
  std::vector<std::int64_t> out;
  for (std::size_t r = 0; r < q->size(); ++r) out.push_back(q->i64(r, 0));
  return out;
}

core::Status LedgerBase::remerge_days(std::vector<std::int64_t> days) {
  std::sort(days.begin(), days.end());
  days.erase(std::unique(days.begin(), days.end()), days.end());
  for (std::size_t k = 0; k < days.size(); k += kDaysPerStatement) {
    const auto some = std::span(days).subspan(k, std::min(kDaysPerStatement, days.size() - k));
    const std::string in = " WHERE day IN (" + day_list(some) + ")";
    if (auto r = query("dropping merged days", "DELETE FROM charge_daily_merged" + in); !r)
      return r.error();
    if (auto r = query("summing merged days", merged_from_daily(in)); !r) return r.error();
  }
  return {};
}

core::Status LedgerBase::write_source_totals(std::int64_t source, std::int64_t currency_sid,
                                             const ledger::CurrencyTotal& t) {
  const std::string billed = decimal(t.billed), effective = decimal(t.effective);
  auto r = query("recording the source's totals",
                 "INSERT INTO source_totals (source_id, currency_sid, billed, effective) VALUES "
                 "($1, $2, $3, $4)",
                 {source, currency_sid, std::string_view(billed), std::string_view(effective)});
  if (!r) return r.error();
  return {};
}

core::Status LedgerBase::resum_source_totals(std::int64_t source) {
  if (auto r = query("dropping a source's totals", "DELETE FROM source_totals WHERE source_id = $1",
                     {source});
      !r)
    return r.error();
  auto r =
      query("summing a source's totals",
            "INSERT INTO source_totals (source_id, currency_sid, billed, effective) SELECT "
            "source_id, currency_sid, CAST(SUM(billed) AS TEXT), CAST(SUM(effective) AS TEXT) FROM "
            "charge_daily WHERE source_id = $1 GROUP BY source_id, currency_sid",
            {source});
  if (!r) return r.error();
  return {};
}

core::Status LedgerBase::write_resource_rollup() {
  const bool folds = resources_.folds();
  if (folds) {
    const auto& rows = resources_.rows();
    constexpr int kColumns = 10 + static_cast<int>(ledger::kResourceRollupDimCount) + 1;
    auto s = load("inserting the resource-day rollup", "charge_resource_daily", kColumns,
                  rows.size(), [&](std::size_t k, RowSink& out) {
                    const auto& r = rows[k];
                    out.i64(source_id_);
                    out.i64(r.day);
                    out.text(r.resource);
                    for (auto id : r.ids) out.i64(id);  // the dimensions', then the currency's
                    out.i64(r.tagset);
                    for (auto v : {r.sums.billed, r.sums.effective, r.sums.list, r.sums.contracted})
                      out.i64(static_cast<std::int64_t>(v));  // folds(): each fits
                    out.real(r.sums.gpu_hours);
                    out.i64(r.sums.rows);
                    out.real(r.sums.consumed_quantity);
                    out.end_row();
                  });
    if (!s) return s;
    if (auto r = query("recording the resource-day rollup",
                       "UPDATE sources SET resource_rollup = 1 WHERE id = $1", {source_id_});
        !r)
      return r.error();
  }
  resources_.clear();
  return {};
}

}  // namespace aicost::store
