#include "sqlite_scan.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <set>

#include "query_sql.h"
#include "schema.h"
#include "sqlite_scan_rows.h"
#include "sqlite_stmt.h"

namespace aicost::store {

core::Result<MultiScan> MultiScan::plan(sqlite3* db,
                                        std::span<const ledger::AggregateQuery> queries) {
  MultiScan m;
  m.queries_ = queries;
  m.parts_.resize(queries.size());
  if (queries.size() == 1) {
    // One query is its own scan: SQL applies its filters, and the daily rollup answers it where it
    // can.
    m.all_ = queries[0];
    for (std::size_t k = 0; k < m.all_.dims.size(); ++k) m.parts_[0].columns.push_back(k);
    for (auto d : m.all_.dims) m.encoded_.push_back(dimension_encoded(d));
    if (auto s = m.choose_resource_rollup(db); !s) return s.error();
    if (auto s = m.prune_sources(db); !s) return s.error();
    if (auto s = m.count_gpu_rows(db); !s) return s.error();
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
    // The union of the days: unbounded where any query is.
    m.all_.from =
        m.all_.from && q.from ? std::optional(std::min(*m.all_.from, *q.from)) : std::nullopt;
    m.all_.to = m.all_.to && q.to ? std::optional(std::max(*m.all_.to, *q.to)) : std::nullopt;
    for (auto d : q.dims) part.columns.push_back(column_of(d));
    for (const auto& f : q.filters) {
      const std::size_t c = column_of(f.key.dim);
      if (!dimension_encoded(f.key.dim)) {
        auto it = std::find_if(part.text_filters.begin(), part.text_filters.end(),
                               [c](const auto& p) { return p.first == c; });
        if (it == part.text_filters.end()) it = part.text_filters.insert(it, {c, {}});
        it->second.push_back(f.value);
        continue;
      }
      auto it = std::find_if(part.id_filters.begin(), part.id_filters.end(),
                             [c](const auto& p) { return p.first == c; });
      if (it == part.id_filters.end()) it = part.id_filters.insert(it, {c, {}});
      sqlite3_reset(id_of.get());
      id_of.text(1, f.value);
      // A value the ledger has never seen has no id: nothing matches it.
      if (sqlite3_step(id_of.get()) == SQLITE_ROW)
        it->second.push_back(sqlite3_column_int64(id_of.get(), 0));
    }
  }
  for (auto d : m.all_.dims) m.encoded_.push_back(dimension_encoded(d));
  if (auto s = m.choose_resource_rollup(db); !s) return s.error();
  if (auto s = m.prune_sources(db); !s) return s.error();
  return m;
}

core::Status MultiScan::choose_resource_rollup(sqlite3* db) {
  if (!fits_resource_rollup(all_)) return {};
  for (const auto& q : queries_)
    if (q.gpu_rows_only) return {};
  core::Status st;
  Stmt q(db, kResourceRollupShare, st);
  if (!st) return st;
  if (sqlite3_step(q.get()) != SQLITE_ROW)
    return core::make_error(
        core::ErrorCode::kIo,
        std::string("SQLite failed reading the sources: ") + sqlite3_errmsg(db));
  resource_rollup_ =
      use_resource_rollup(sqlite3_column_int64(q.get(), 0), sqlite3_column_int64(q.get(), 1));
  return {};
}

core::Status MultiScan::prune_sources(sqlite3* db) {
  if (from_rollup(all_) || resource_rollup_ || !all_.from || !all_.to) return {};
  // The sources with charges (their totals, schema 10: a few rows, where the rollup has one per
  // source and day), and those with a charge in the days (the rollup, through its index on day).
  auto ids = [db](const std::string& sql) -> core::Result<std::vector<std::int64_t>> {
    core::Status st;
    Stmt q(db, sql, st);
    if (!st) return st.error();
    std::vector<std::int64_t> out;
    while (sqlite3_step(q.get()) == SQLITE_ROW) out.push_back(sqlite3_column_int64(q.get(), 0));
    return out;
  };
  auto all = ids("SELECT DISTINCT source_id FROM source_totals");
  if (!all) return all.error();
  // Read until every source is met: where all of them charge in the days (the check's 32 days of
  // 100 sources that each span the ledger's days, 30M charges: 3.4M rollup rows, each a seek for
  // its source from the index on day, about 3 % of the check), the first day's rows tell.
  std::set<std::int64_t> within;
  {
    core::Status st;
    Stmt q(db,
           "SELECT source_id FROM charge_daily WHERE day >= " + std::to_string(*all_.from) +
               " AND day < " + std::to_string(*all_.to),
           st);
    if (!st) return st;
    int rc = SQLITE_ROW;
    while (within.size() < all->size() && (rc = sqlite3_step(q.get())) == SQLITE_ROW)
      within.insert(sqlite3_column_int64(q.get(), 0));
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
      return core::make_error(
          core::ErrorCode::kIo,
          std::string("SQLite failed reading the rollup: ") + sqlite3_errmsg(db));
  }
  if (within.size() == all->size()) return {};
  // Their first and last rows, each found through the index on source_id. The range is read as a
  // range of rowids, as fast per row as a full scan; "+source_id" keeps SQLite from reading it
  // through the index instead (a seek per row), and drops another source's rows in the range.
  RowRange range;  // none: an empty range
  std::string in;
  for (const std::int64_t source : within) {
    auto first = ids("SELECT rowid FROM charges WHERE source_id = " + std::to_string(source) +
                     " ORDER BY rowid LIMIT 1");
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

core::Status MultiScan::count_gpu_rows(sqlite3* db) {
  if (!all_.gpu_rows_only || !all_.from || !all_.to) return {};
  auto one = [db](const std::string& sql) -> core::Result<std::int64_t> {
    core::Status st;
    Stmt q(db, sql, st);
    if (!st) return st.error();
    if (sqlite3_step(q.get()) != SQLITE_ROW)
      return core::make_error(core::ErrorCode::kInternal, "no row from: " + sql);
    return sqlite3_column_int64(q.get(), 0);
  };
  const std::string days =
      " AND day >= " + std::to_string(*all_.from) + " AND day < " + std::to_string(*all_.to);
  auto gpu_rows =
      one("SELECT COUNT(*) FROM charges INDEXED BY charges_gpu_day WHERE gpu_hours > 0" + days);
  if (!gpu_rows) return gpu_rows.error();
  if (*gpu_rows == 0) {
    nothing_ = true;
    return {};
  }
  // The rows a scan reads in order: the sources' range, or the whole table (rowids as split()).
  std::int64_t scanned = 0;
  if (pruned_) {
    scanned = pruned_->size();
  } else {
    auto span =
        one("SELECT COALESCE((SELECT MAX(rowid) FROM charges) - (SELECT MIN(rowid) FROM charges) + "
            "1, 0)");
    if (!span) return span.error();
    scanned = *span;
  }
  // A row found through the index costs a seek in the table; the scan reads one in turn. 1 in 8
  // is a guess on the safe side (an index walk of a few rows beats a scan of millions by far).
  index_ = *gpu_rows * 8 < scanned ? " INDEXED BY charges_gpu_day" : " NOT INDEXED";
  return {};
}

core::Result<std::vector<MultiScan::RowRange>> MultiScan::split(sqlite3* db, std::size_t parts,
                                                                std::int64_t min_rows) const {
  // A rollup, nothing, or a few rows through an index: one scan, not split.
  if (from_rollup(all_) || resource_rollup_ || nothing_ || index_ == " INDEXED BY charges_gpu_day")
    return std::vector<RowRange>{};
  RowRange all;
  if (pruned_) {
    all = *pruned_;
  } else {
    core::Status st;
    // Two seeks (SQLite reads a lone MIN or MAX from the end of the table; both at once, all of
    // it).
    Stmt q(db, "SELECT (SELECT MIN(rowid) FROM charges), (SELECT MAX(rowid) FROM charges)", st);
    if (!st) return st.error();
    if (sqlite3_step(q.get()) == SQLITE_ROW && sqlite3_column_type(q.get(), 0) != SQLITE_NULL)
      all = {sqlite3_column_int64(q.get(), 0), sqlite3_column_int64(q.get(), 1)};
  }
  const std::int64_t most =
      std::max<std::int64_t>(all.size() / std::max<std::int64_t>(min_rows, 1), 1);
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

void FoldTurns::wait(std::size_t thread) {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return turn_ == thread; });
}

void FoldTurns::pass(std::size_t thread) {
  {
    const std::lock_guard lock(m_);
    ++passes_[thread];
    next(thread);
  }
  cv_.notify_all();
}

void FoldTurns::leave(std::size_t thread) {
  {
    const std::lock_guard lock(m_);
    gone_[thread] = true;
    if (turn_ == thread) next(thread);
  }
  cv_.notify_all();
}

void FoldTurns::next(std::size_t thread) {
  for (std::size_t k = 1; k <= gone_.size(); ++k) {
    const std::size_t t = (thread + k) % gone_.size();
    if (!gone_[t]) {
      turn_ = t;
      return;
    }
  }
}

core::Status MultiScan::scan(sqlite3* db, std::vector<GroupFold>& folds, TextIds& texts,
                             const RowRange* part, FoldTurns* turns, std::size_t thread) const {
  struct Leave {
    FoldTurns* turns;
    std::size_t thread;
    ~Leave() {
      if (turns) turns->leave(thread);
    }
  } leave{turns, thread};
  if (nothing_) return {};
  std::vector<std::string> also;
  if (const RowRange* rows = part ? part : pruned_ ? &*pruned_ : nullptr)
    also.push_back("rowid BETWEEN " + std::to_string(rows->first) + " AND " +
                   std::to_string(rows->last));
  if (!sources_in_.empty()) also.push_back(sources_in_);
  auto a = scan_sql(all_, Dialect::kSqlite, also, index_, kScanRowFunction, resource_rollup_);
  core::Status st;
  Stmt s(db, a.sql, st);
  if (!st) return st;
  const int scan_param = sqlite3_bind_parameter_index(s.get(), ":scan");
  for (int i = 1, p = 0; i <= sqlite3_bind_parameter_count(s.get()); ++i)
    if (i != scan_param) s.text(i, a.params[static_cast<std::size_t>(p++)]);
  const std::size_t n = all_.dims.size();
  std::vector<std::size_t> text_columns;
  for (std::size_t k = 0; k < n; ++k)
    if (!encoded_[k]) text_columns.push_back(k);
  ScanBatch batch;
  batch.stride = n + 2;
  std::vector<std::string_view> views(n);
  std::vector<std::int64_t> cells;
  // Per fold, the batch's rows that reach it: their keys and sums (GroupFold::add_keyed).
  std::vector<std::vector<GroupFold::Cell>> keys(folds.size());
  std::vector<std::vector<ledger::Sums>> sums(folds.size());
  for (std::size_t i = 0; i < folds.size(); ++i) {
    keys[i].resize(ScanBatch::kRows * folds[i].width());
    sums[i].reserve(ScanBatch::kRows);
  }
  // Folding a batch: its text cells become stand-ins, and each row goes to the queries whose days
  // and filters it meets.
  const std::function<void()> fold = [&] {
    if (turns) turns->wait(thread);
    // Text cells become stand-ins first, each text's index slot and bytes fetched a few cells
    // ahead: in a table of millions of resource ids, each is a wait on memory otherwise.
    constexpr std::size_t kAhead = 16;
    const std::size_t n_texts = batch.hashes.size();
    for (std::size_t t = 0; t < n_texts; ++t) {
      if (t + kAhead < n_texts) texts.prefetch_slot(batch.hashes[t + kAhead]);
      if (t + kAhead / 2 < n_texts) texts.prefetch_text(batch.hashes[t + kAhead / 2]);
      const std::uint32_t begin = t == 0 ? 0 : batch.ends[t - 1];
      const std::size_t r = t / text_columns.size();
      batch.cells[r * batch.stride + text_columns[t % text_columns.size()]] = texts.id(
          std::string_view(batch.bytes).substr(begin, batch.ends[t] - begin), batch.hashes[t]);
    }
    for (std::size_t r = 0, t = 0; r < batch.size(); ++r) {
      const std::int64_t* ids = &batch.cells[r * batch.stride];
      for (const std::size_t k : text_columns) {
        const std::uint32_t begin = t == 0 ? 0 : batch.ends[t - 1];
        views[k] = std::string_view(batch.bytes).substr(begin, batch.ends[t] - begin);
        ++t;
      }
      const ledger::Day day = batch.days[r];
      for (std::size_t i = 0; i < queries_.size(); ++i) {
        const auto& q = queries_[i];
        if ((q.from && day < *q.from) || (q.to && day >= *q.to)) continue;
        if (q.gpu_rows_only && !(batch.sums[r].gpu_hours > 0))
          continue;  // as query_sql's "gpu_hours > 0"
        const auto& part = parts_[i];
        bool keep = true;
        for (const auto& [c, allowed] : part.id_filters)
          keep = keep && std::find(allowed.begin(), allowed.end(), ids[c]) != allowed.end();
        for (const auto& [c, allowed] : part.text_filters)
          keep = keep && std::find(allowed.begin(), allowed.end(), views[c]) != allowed.end();
        if (!keep) continue;
        cells.clear();
        for (auto c : part.columns) cells.push_back(ids[c]);
        cells.push_back(ids[n]);
        if (folds[i].make_key(day, cells, ids[n + 1], &keys[i][sums[i].size() * folds[i].width()]))
          sums[i].push_back(batch.sums[r]);
      }
    }
    for (std::size_t i = 0; i < folds.size(); ++i) {
      folds[i].add_keyed(std::span(keys[i]).first(sums[i].size() * folds[i].width()), sums[i]);
      sums[i].clear();
    }
    batch.clear();
    if (turns) turns->pass(thread);
  };
  // The rows reach take_row, which batches them and folds each full batch: one step of the
  // statement reads them all (its one row out is their count).
  RowTaker taker{&batch, &encoded_, &fold, nullptr};
  taker.bind(s.get(), scan_param);
  int rc = sqlite3_step(s.get());
  while (rc == SQLITE_ROW) rc = sqlite3_step(s.get());
  if (taker.failure) std::rethrow_exception(taker.failure);
  if (rc != SQLITE_DONE)
    return core::make_error(core::ErrorCode::kIo,
                            std::string("SQLite failed scanning charges: ") + sqlite3_errmsg(db));
  if (batch.size() > 0) fold();
  return {};
}

}  // namespace aicost::store
