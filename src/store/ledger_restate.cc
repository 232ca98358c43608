// A delivery that replaces what earlier deliveries of its export held (ledger::Store::restate):
// by billing period, or for OpenShift by day and report.
#include <string_view>

#include "ledger_base.h"
#include "recheck.h"

namespace aicost::store {

using core::ErrorCode;
using core::make_error;

core::Result<std::vector<std::int64_t>> LedgerBase::restate(
    const std::string& export_key, const std::vector<std::string>& periods) {
  if (!in_tx_) return make_error(ErrorCode::kInternal, "restate outside an ingest");
  if (export_key.rfind("ocp|", 0) == 0) return restate_days(export_key, periods);
  auto q = query("reading earlier deliveries",
                 "SELECT id, COALESCE(periods, '') FROM sources WHERE export_key = $1 AND id <> $2 "
                 "ORDER BY id",
                 {std::string_view(export_key), source_id_});
  if (!q) return q.error();
  std::vector<EarlierDelivery> earlier;
  for (std::size_t r = 0; r < q->size(); ++r) earlier.push_back({q->i64(r, 0), q->text(r, 1)});
  auto gone = restated(earlier, periods);
  if (!gone) return gone.error();
  for (auto id : *gone)
    if (auto s = drop_source(id); !s) return s.error();
  const std::string text = periods_text(periods);
  if (auto r = query("recording the delivery",
                     "UPDATE sources SET export_key = $1, periods = $2 WHERE id = $3",
                     {std::string_view(export_key), std::string_view(text), source_id_});
      !r)
    return r.error();
  return gone;
}

core::Result<std::vector<std::int64_t>> LedgerBase::restate_days(
    const std::string& export_key, const std::vector<std::string>& slices) {
  auto q = query("reading earlier deliveries",
                 "SELECT id FROM sources WHERE export_key = $1 AND id <> $2 ORDER BY id",
                 {std::string_view(export_key), source_id_});
  if (!q) return q.error();
  std::vector<std::pair<std::int64_t, std::string_view>> parsed;  // day, resource type
  std::vector<std::string> days;
  for (const auto& s : slices) {
    const auto bar = s.find('|');
    auto day = ledger::parse_day(std::string_view(s).substr(0, bar));
    if (bar == std::string::npos || !day)
      return make_error(ErrorCode::kInternal,
                        "an OpenShift restatement slice is not YYYY-MM-DD|type: " + s);
    parsed.emplace_back(*day, std::string_view(s).substr(bar + 1));
    days.push_back(s.substr(0, bar));
  }
  std::vector<std::int64_t> changed, days_changed;
  for (std::size_t r = 0; r < q->size(); ++r) {
    const std::int64_t id = q->i64(r, 0);
    std::int64_t gone = 0;
    // The daily and resource-day rollups are keyed by day and resource type among their
    // dimensions, so deleting the same slices from them leaves them the rollups of the charges
    // that stay.
    for (const auto& [day, type] : parsed) {
      const std::vector<SqlParam> params{id, std::int64_t{day}, type};
      constexpr const char* kWhere =
          " WHERE source_id = $1 AND day = $2 AND resource_type_sid IN (SELECT id FROM strings "
          "WHERE value = $3)";
      auto n = query("counting re-sent rows", std::string("SELECT COUNT(*) FROM charges") + kWhere,
                     params);
      if (!n) return n.error();
      if (n->i64(0, 0) == 0) continue;
      gone += n->i64(0, 0);
      days_changed.push_back(day);
      for (const char* table : {"charges", "charge_daily", "charge_resource_daily"})
        if (auto d = query("deleting re-sent rows", std::string("DELETE FROM ") + table + kWhere,
                           params);
            !d)
          return d.error();
    }
    if (gone == 0) continue;
    changed.push_back(id);
    auto left =
        query("counting what stays", "SELECT rows - $1 FROM sources WHERE id = $2", {gone, id});
    if (!left) return left.error();
    if (left->i64(0, 0) <= 0) {
      if (auto s = drop_source(id); !s) return s.error();
    } else if (auto u = query("recording what stays",
                              "UPDATE sources SET rows = rows - $1 WHERE id = $2", {gone, id});
               !u) {
      return u.error();
    } else if (auto t = resum_source_totals(id); !t) {
      return t.error();
    }
  }
  if (auto s = remerge_days(std::move(days_changed)); !s) return s.error();
  const std::string text = periods_text(days);
  if (auto r = query("recording the delivery",
                     "UPDATE sources SET export_key = $1, periods = $2 WHERE id = $3",
                     {std::string_view(export_key), std::string_view(text), source_id_});
      !r)
    return r.error();
  return changed;
}

}  // namespace aicost::store
