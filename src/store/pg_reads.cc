#include "pg_reads.h"

#include <algorithm>

#include "group_fold.h"
#include "query_sql.h"
#include "schema.h"

namespace aicost::store {

core::Result<std::vector<ledger::RowIssue>> PgReads::issues(std::int64_t source_id, std::int64_t limit) {
  // SQLite reads a negative LIMIT as none; PostgreSQL refuses it.
  auto r = limit < 0 ? run("reading row issues", "SELECT line, column_name, severity, message FROM row_issues "
                                                 "WHERE source_id = $1 ORDER BY line", {std::to_string(source_id)})
                     : run("reading row issues", "SELECT line, column_name, severity, message FROM row_issues "
                                                 "WHERE source_id = $1 ORDER BY line LIMIT $2",
                           {std::to_string(source_id), std::to_string(limit)});
  if (!r) return r.error();
  std::vector<ledger::RowIssue> out;
  bool ok = true;
  std::string severity;
  for (int row = 0; row < PQntuples(r->get()); ++row) {
    ledger::RowIssue issue;
    ok &= cell(r->get(), row, 0, issue.line) && cell(r->get(), row, 1, issue.column) &&
          cell(r->get(), row, 2, severity) && cell(r->get(), row, 3, issue.message);
    issue.severity = ledger::severity_from_name(severity);
    out.push_back(std::move(issue));
  }
  if (!ok) return unexpected("reading row issues");
  return out;
}

core::Result<std::vector<ledger::AggregateRow>> PgReads::aggregate(const ledger::AggregateQuery& q) {
  std::vector<ledger::AggregateRow> out;
  if (auto s = aggregate_into({&q, 1}, [&out](std::size_t, ledger::AggregateRow& row) -> core::Status {
        out.push_back(std::move(row));
        return {};
      }, 0);
      !s)
    return s.error();
  return out;
}

namespace {

// Rows a FETCH brings at a time: the client holds one batch of the server's groups, not all.
constexpr int kFetchRows = 20000;

// Folds one batch of aggregate_sql's rows; false when a cell does not parse.
bool fold_batch(const PGresult* res, const ledger::AggregateQuery& q, GroupFold& fold, std::vector<std::int64_t>& cells,
                std::string& text) {
  bool ok = true;
  for (int row = 0; row < PQntuples(res); ++row) {
    int i = 0;
    ledger::Day day = 0;
    if (q.by_day) ok &= cell(res, row, i++, day);
    for (auto& c : cells) {
      ok &= cell(res, row, i++, text);
      c = fold.text(text);
    }
    std::int64_t tagset = 0;
    if (q.reads_tags()) ok &= cell(res, row, i++, tagset);
    ledger::Sums s;
    ok &= wide_cell(res, row, i++, s.billed) && wide_cell(res, row, i++, s.effective) &&
          wide_cell(res, row, i++, s.list) && wide_cell(res, row, i++, s.contracted) &&
          cell(res, row, i++, s.gpu_hours) && cell(res, row, i++, s.rows) &&
          cell(res, row, i++, s.consumed_quantity) && cell(res, row, i++, s.first_day) &&
          cell(res, row, i++, s.last_day);
    fold.add(day, cells, tagset, s);
  }
  return ok;
}

}  // namespace

core::Status PgReads::fold(const ledger::AggregateQuery& q, GroupFold& fold) {
  const auto a = aggregate_sql(q, Dialect::kPostgres);
  // WITH HOLD: the cursor outlives its statement's own transaction (none is open here), the
  // server keeping the answer until it is read.
  if (auto r = run("aggregating charges", "DECLARE aicost_aggregate NO SCROLL CURSOR WITH HOLD FOR " + a.sql, a.params);
      !r)
    return r.error();
  std::vector<std::int64_t> cells(q.dims.size() + 1);
  std::string text;
  core::Status status;
  for (;;) {
    auto r = run("aggregating charges", "FETCH FORWARD " + std::to_string(kFetchRows) + " FROM aicost_aggregate");
    if (!r) {
      status = r.error();
      break;
    }
    if (!fold_batch(r->get(), q, fold, cells, text)) {
      status = unexpected("aggregating charges");
      break;
    }
    if (PQntuples(r->get()) < kFetchRows) break;
  }
  auto closed = run("aggregating charges", "CLOSE aicost_aggregate");
  if (!status) return status;
  if (!closed) return closed.error();
  return {};
}

core::Status PgReads::aggregate_into(std::span<const ledger::AggregateQuery> queries,
                                     const ledger::Store::AggregateSink& sink, std::size_t interleave) {
  std::map<std::int64_t, std::vector<ledger::Tag>> tags;
  if (std::any_of(queries.begin(), queries.end(), [](const auto& q) { return q.reads_tags(); })) {
    auto t = tagsets();
    if (!t) return t.error();
    tags = std::move(*t);
  }
  // Every cell comes as text: nothing to look up.
  auto none = [](const std::vector<std::int64_t>& ids, std::vector<std::string>&) -> core::Status {
    return core::make_error(core::ErrorCode::kInternal, "unexpected string id " + std::to_string(ids.front()));
  };
  // Each distinct query's groups, read once.
  std::vector<std::unique_ptr<GroupFold>> folds;
  std::vector<GroupFold*> answers;  // by query
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto first = static_cast<std::size_t>(std::find(queries.begin(), queries.end(), queries[i]) - queries.begin());
    if (first < i) {
      answers.push_back(answers[first]);
      continue;
    }
    auto& f = folds.emplace_back(std::make_unique<GroupFold>(queries[i], tags));
    if (auto s = fold(queries[i], *f); !s) return s;
    f->seal();
    answers.push_back(f.get());
  }
  if (interleave > 0) return each_interleaved({answers.data(), answers.size()}, interleave, none, sink);
  return each_in_turn(answers, none, sink);
}

core::Result<std::vector<ledger::HostActivity>> PgReads::gpu_activity(std::optional<ledger::Day> from,
                                                             std::optional<ledger::Day> to) {
  const auto a = gpu_activity_sql(from, to, Dialect::kPostgres);
  auto r = run("reading GPU activity", a.sql, a.params);
  if (!r) return r.error();
  std::vector<ledger::HostActivity> out;
  bool ok = true;
  for (int row = 0; row < PQntuples(r->get()); ++row) {
    ledger::HostActivity h;
    std::string metric;
    ok &= cell(r->get(), row, 0, h.host) && cell(r->get(), row, 1, h.day) && cell(r->get(), row, 2, metric) &&
          cell(r->get(), row, 3, h.mean) && cell(r->get(), row, 4, h.samples);
    const auto m = ledger::gpu_metric_from_name(metric);
    if (!m) continue;
    h.metric = *m;
    out.push_back(std::move(h));
  }
  if (!ok) return unexpected("reading GPU activity");
  return out;
}

core::Result<std::vector<ledger::GpuHour>> PgReads::gpu_hours(std::optional<ledger::Day> from,
                                                     std::optional<ledger::Day> to) {
  const auto a = gpu_hours_sql(from, to, Dialect::kPostgres);
  auto r = run("reading hourly GPU telemetry", a.sql, a.params);
  if (!r) return r.error();
  std::vector<ledger::GpuHour> out;
  bool ok = true;
  for (int row = 0; row < PQntuples(r->get()); ++row) {
    ledger::GpuHour h;
    std::string metric;
    ok &= cell(r->get(), row, 0, h.host) && cell(r->get(), row, 1, h.gpu) && cell(r->get(), row, 2, h.hour) &&
          cell(r->get(), row, 3, metric) && cell(r->get(), row, 4, h.sum) && cell(r->get(), row, 5, h.samples);
    const auto m = ledger::gpu_metric_from_name(metric);
    if (!m) continue;
    h.metric = *m;
    out.push_back(std::move(h));
  }
  if (!ok) return unexpected("reading hourly GPU telemetry");
  ledger::merge_gpu_hours(out);
  return out;
}

core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>> PgReads::tagsets() {
  // Byte order, as SQLite sorts, whatever the database's collation.
  auto r = run("reading tag sets",
               "SELECT tagset_id, key, value FROM tagset_tags ORDER BY tagset_id, key COLLATE \"C\", value COLLATE \"C\"");
  if (!r) return r.error();
  std::map<std::int64_t, std::vector<ledger::Tag>> out;
  bool ok = true;
  for (int row = 0; row < PQntuples(r->get()); ++row) {
    std::int64_t id = 0;
    ledger::Tag t;
    ok &= cell(r->get(), row, 0, id) && cell(r->get(), row, 1, t.key) && cell(r->get(), row, 2, t.value);
    out[id].push_back(std::move(t));
  }
  if (!ok) return unexpected("reading tag sets");
  return out;
}

// Sources and their per-currency totals in one statement, hence one snapshot.
core::Result<std::vector<ledger::SourceRecord>> PgReads::select_sources(const std::string& where, const std::string& arg) {
  auto r = run("reading sources",
               "SELECT s.id, s.path, s.sha256, s.bytes, s.format, s.loaded_at, s.rows, s.rejected, s.warnings, "
               "t.currency, t.billed, t.effective FROM sources s LEFT JOIN LATERAL (SELECT c.value AS currency, "
               "SUM(d.billed) AS billed, SUM(d.effective) AS effective FROM charge_daily d JOIN strings c ON c.id = "
               "d.currency_sid WHERE d.source_id = s.id GROUP BY c.value) t ON true " + where + " ORDER BY s.id, t.currency COLLATE \"C\"",
               where.empty() ? std::vector<std::string>{} : std::vector<std::string>{arg});
  if (!r) return r.error();
  const PGresult* res = r->get();
  std::vector<ledger::SourceRecord> out;
  bool ok = true;
  for (int row = 0; row < PQntuples(res); ++row) {
    std::int64_t id = 0;
    ok &= cell(res, row, 0, id);
    if (out.empty() || out.back().id != id) {
      ledger::SourceRecord s;
      s.id = id;
      ok &= cell(res, row, 1, s.file.path) && cell(res, row, 2, s.file.sha256) && cell(res, row, 3, s.file.bytes) &&
            cell(res, row, 4, s.file.format) && cell(res, row, 5, s.loaded_at) && cell(res, row, 6, s.rows) &&
            cell(res, row, 7, s.rejected) && cell(res, row, 8, s.warnings);
      out.push_back(std::move(s));
    }
    if (PQgetisnull(res, row, 9)) continue;  // no charges
    ledger::CurrencyTotal t;
    ok &= cell(res, row, 9, t.currency) && wide_cell(res, row, 10, t.billed) && wide_cell(res, row, 11, t.effective);
    out.back().totals.push_back(std::move(t));
  }
  if (!ok) return unexpected("reading sources");
  return out;
}

}  // namespace aicost::store
