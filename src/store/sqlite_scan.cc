#include "sqlite_scan.h"

#include <algorithm>

#include "query_sql.h"
#include "schema.h"
#include "sqlite_stmt.h"

namespace aicost::store {

core::Result<MultiScan> MultiScan::plan(sqlite3* db, std::span<const ledger::AggregateQuery> queries) {
  MultiScan m;
  m.queries_ = queries;
  m.parts_.resize(queries.size());
  if (queries.size() == 1) {
    // One query is its own scan: SQL applies its filters, and the daily rollup answers it where it can.
    m.all_ = queries[0];
    for (std::size_t k = 0; k < m.all_.dims.size(); ++k) m.parts_[0].columns.push_back(k);
    for (auto d : m.all_.dims) m.encoded_.push_back(dimension_encoded(d));
    if (auto s = m.prune_sources(db); !s) return s.error();
    return m;
  }
  m.all_.from = queries[0].from;
  m.all_.to = queries[0].to;
  auto column_of = [&m](ledger::Dimension d) {
    const auto it = std::find(m.all_.dims.begin(), m.all_.dims.end(), d);
    if (it != m.all_.dims.end()) return static_cast<std::size_t>(it - m.all_.dims.begin());
    m.all_.dims.push_back(d);
    return m.all_.dims.size() - 1;
  };
  core::Status st;
  Stmt id_of(db, "SELECT id FROM strings WHERE value = ?", st);
  if (!st) return st.error();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto& q = queries[i];
    auto& part = m.parts_[i];
    m.all_.from = std::min(*m.all_.from, *q.from);
    m.all_.to = std::max(*m.all_.to, *q.to);
    for (auto d : q.dims) part.columns.push_back(column_of(d));
    for (const auto& f : q.filters) {
      const std::size_t c = column_of(f.key.dim);
      if (!dimension_encoded(f.key.dim)) {
        auto it = std::find_if(part.text_filters.begin(), part.text_filters.end(), [c](const auto& p) { return p.first == c; });
        if (it == part.text_filters.end()) it = part.text_filters.insert(it, {c, {}});
        it->second.push_back(f.value);
        continue;
      }
      auto it = std::find_if(part.id_filters.begin(), part.id_filters.end(), [c](const auto& p) { return p.first == c; });
      if (it == part.id_filters.end()) it = part.id_filters.insert(it, {c, {}});
      sqlite3_reset(id_of.get());
      id_of.text(1, f.value);
      // A value the ledger has never seen has no id: nothing matches it.
      if (sqlite3_step(id_of.get()) == SQLITE_ROW) it->second.push_back(sqlite3_column_int64(id_of.get(), 0));
    }
  }
  for (auto d : m.all_.dims) m.encoded_.push_back(dimension_encoded(d));
  if (auto s = m.prune_sources(db); !s) return s.error();
  return m;
}

core::Status MultiScan::prune_sources(sqlite3* db) {
  if (from_rollup(all_) || !all_.from || !all_.to) return {};
  // The sources with charges, and those with a charge in the days: the daily rollup has a row per
  // source and day charged.
  auto ids = [db](const std::string& sql) -> core::Result<std::vector<std::int64_t>> {
    core::Status st;
    Stmt q(db, sql, st);
    if (!st) return st.error();
    std::vector<std::int64_t> out;
    while (sqlite3_step(q.get()) == SQLITE_ROW) out.push_back(sqlite3_column_int64(q.get(), 0));
    return out;
  };
  auto all = ids("SELECT DISTINCT source_id FROM charge_daily");
  if (!all) return all.error();
  auto within = ids("SELECT DISTINCT source_id FROM charge_daily WHERE day >= " + std::to_string(*all_.from) +
                    " AND day < " + std::to_string(*all_.to));
  if (!within) return within.error();
  if (within->size() == all->size()) return {};
  // Their first and last rows, each found through the index on source_id. The range is read as a
  // range of rowids, as fast per row as a full scan; "+source_id" keeps SQLite from reading it
  // through the index instead (a seek per row), and drops another source's rows in the range.
  RowRange range;  // none: an empty range
  std::string in;
  for (const std::int64_t source : *within) {
    auto first = ids("SELECT rowid FROM charges WHERE source_id = " + std::to_string(source) + " ORDER BY rowid LIMIT 1");
    auto last = ids("SELECT rowid FROM charges WHERE source_id = " + std::to_string(source) +
                    " ORDER BY rowid DESC LIMIT 1");
    if (!first) return first.error();
    if (!last) return last.error();
    if (first->empty() || last->empty()) continue;
    range.first = in.empty() ? first->front() : std::min(range.first, first->front());
    range.last = in.empty() ? last->front() : std::max(range.last, last->front());
    in += (in.empty() ? "" : ", ") + std::to_string(source);
  }
  pruned_ = range;
  if (!in.empty()) sources_in_ = "+source_id IN (" + in + ")";
  return {};
}

core::Result<std::vector<MultiScan::RowRange>> MultiScan::split(sqlite3* db, std::size_t parts,
                                                                std::int64_t min_rows) const {
  if (from_rollup(all_)) return std::vector<RowRange>{};
  RowRange all;
  if (pruned_) {
    all = *pruned_;
  } else {
    core::Status st;
    // Two seeks (SQLite reads a lone MIN or MAX from the end of the table; both at once, all of it).
    Stmt q(db, "SELECT (SELECT MIN(rowid) FROM charges), (SELECT MAX(rowid) FROM charges)", st);
    if (!st) return st.error();
    if (sqlite3_step(q.get()) == SQLITE_ROW && sqlite3_column_type(q.get(), 0) != SQLITE_NULL)
      all = {sqlite3_column_int64(q.get(), 0), sqlite3_column_int64(q.get(), 1)};
  }
  const std::int64_t most = std::max<std::int64_t>(all.size() / std::max<std::int64_t>(min_rows, 1), 1);
  const std::int64_t n = std::clamp<std::int64_t>(static_cast<std::int64_t>(parts), 1, most);
  std::vector<RowRange> out;
  std::int64_t next = all.first;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t rows = all.size() / n + (i < all.size() % n ? 1 : 0);
    out.push_back({next, next + rows - 1});
    next += rows;
  }
  return out;
}

core::Status MultiScan::scan(sqlite3* db, std::vector<GroupFold>& folds, TextIds& texts, const RowRange* part) const {
  std::vector<std::string> also;
  if (const RowRange* rows = part ? part : pruned_ ? &*pruned_ : nullptr)
    also.push_back("rowid BETWEEN " + std::to_string(rows->first) + " AND " + std::to_string(rows->last));
  if (!sources_in_.empty()) also.push_back(sources_in_);
  auto a = scan_sql(all_, Dialect::kSqlite, also);
  core::Status st;
  Stmt s(db, a.sql, st);
  if (!st) return st;
  int p = 0;
  for (const auto& v : a.params) s.text(++p, v);
  const std::size_t n = all_.dims.size();
  std::vector<std::int64_t> ids(n), cells;
  std::vector<std::string_view> views(n);
  // Rows go to each fold in batches (GroupFold::add_keyed): per fold, its rows' keys and sums.
  constexpr std::size_t kBatch = 64;
  std::vector<std::vector<std::int64_t>> keys(folds.size());
  std::vector<std::vector<ledger::Sums>> batch(folds.size());
  for (std::size_t i = 0; i < folds.size(); ++i) {
    keys[i].resize(kBatch * folds[i].width());
    batch[i].reserve(kBatch);
  }
  auto flush = [&](std::size_t i) {
    folds[i].add_keyed(std::span(keys[i]).first(batch[i].size() * folds[i].width()), batch[i]);
    batch[i].clear();
  };
  for (;;) {
    const int rc = sqlite3_step(s.get());
    if (rc == SQLITE_DONE) {
      for (std::size_t i = 0; i < folds.size(); ++i) flush(i);
      return {};
    }
    if (rc != SQLITE_ROW)
      return core::make_error(core::ErrorCode::kIo, std::string("SQLite failed scanning charges: ") + sqlite3_errmsg(db));
    int col = 0;
    const ledger::Day day = sqlite3_column_int(s.get(), col++);
    for (std::size_t k = 0; k < n; ++k, ++col) {
      if (encoded_[k]) {
        ids[k] = sqlite3_column_int64(s.get(), col);
      } else {
        const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), col));
        views[k] = std::string_view(t ? t : "", static_cast<std::size_t>(sqlite3_column_bytes(s.get(), col)));
        ids[k] = texts.id(views[k]);
      }
    }
    const std::int64_t currency = sqlite3_column_int64(s.get(), col++);
    const std::int64_t tagset = sqlite3_column_int64(s.get(), col++);
    ledger::Sums sums;
    sums.billed = sqlite3_column_int64(s.get(), col++);
    sums.effective = sqlite3_column_int64(s.get(), col++);
    sums.list = sqlite3_column_int64(s.get(), col++);
    sums.contracted = sqlite3_column_int64(s.get(), col++);
    sums.gpu_hours = sqlite3_column_double(s.get(), col++);
    sums.rows = sqlite3_column_int64(s.get(), col++);
    sums.consumed_quantity = sqlite3_column_double(s.get(), col++);
    sums.first_day = sums.last_day = day;
    for (std::size_t i = 0; i < queries_.size(); ++i) {
      const auto& q = queries_[i];
      if ((q.from && day < *q.from) || (q.to && day >= *q.to)) continue;
      const auto& part = parts_[i];
      bool keep = true;
      for (const auto& [c, allowed] : part.id_filters)
        keep = keep && std::find(allowed.begin(), allowed.end(), ids[c]) != allowed.end();
      for (const auto& [c, allowed] : part.text_filters)
        keep = keep && std::find(allowed.begin(), allowed.end(), views[c]) != allowed.end();
      if (!keep) continue;
      cells.clear();
      for (auto c : part.columns) cells.push_back(ids[c]);
      cells.push_back(currency);
      if (!folds[i].make_key(q.by_day ? day : 0, cells, tagset, &keys[i][batch[i].size() * folds[i].width()]))
        continue;
      batch[i].push_back(sums);
      if (batch[i].size() == kBatch) flush(i);
    }
  }
}

}  // namespace aicost::store
