// LedgerBase's reads that are the same SQL in both dialects: sources, row issues, tag sets and the
// GPU telemetry (the aggregates have their own paths, sqlite_reads.cc and pg_reads.cc).
#include <algorithm>

#include "ledger_base.h"
#include "query_sql.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

// Byte order, as SQLite sorts, whatever a PostgreSQL database's collation.
const char* bytewise(Dialect d) { return d == Dialect::kPostgres ? " COLLATE \"C\"" : ""; }

std::vector<SqlParam> bound(const std::vector<std::string>& texts) {
  return {texts.begin(), texts.end()};
}

}  // namespace

core::Result<std::vector<ledger::SourceRecord>> LedgerBase::select_sources(
    SourceKey key, const std::string& value) {
  const char* where = key == SourceKey::kSha256 ? "WHERE s.sha256 = $1 "
                      : key == SourceKey::kPath ? "WHERE s.path = $1 "
                                                : "";
  // A source's totals (source_totals, kept by each load): one row per currency (NULLs: none).
  auto q = query("reading sources",
                 "SELECT s.id, s.path, s.sha256, s.bytes, s.format, s.loaded_at, s.rows, "
                 "s.rejected, s.warnings, c.value, t.billed, t.effective FROM sources s LEFT JOIN "
                 "source_totals t ON t.source_id = s.id LEFT JOIN strings c ON c.id = "
                 "t.currency_sid " +
                     std::string(where) + "ORDER BY s.id, c.value" + bytewise(dialect()),
                 key == SourceKey::kAll ? std::vector<SqlParam>{}
                                        : std::vector<SqlParam>{std::string_view(value)});
  if (!q) return q.error();
  std::vector<ledger::SourceRecord> out;
  for (std::size_t r = 0; r < q->size(); ++r) {
    const std::int64_t id = q->i64(r, 0);
    if (out.empty() || out.back().id != id) {
      ledger::SourceRecord s;
      s.id = id;
      s.file.path = q->text(r, 1);
      s.file.sha256 = q->text(r, 2);
      s.file.bytes = q->i64(r, 3);
      s.file.format = q->text(r, 4);
      s.loaded_at = q->text(r, 5);
      s.rows = q->i64(r, 6);
      s.rejected = q->i64(r, 7);
      s.warnings = q->i64(r, 8);
      out.push_back(std::move(s));
    }
    if (q->null(r, 9)) continue;  // no charges
    out.back().totals.push_back({q->text(r, 9), q->wide(r, 10), q->wide(r, 11)});
  }
  if (!q->ok())
    return make_error(ErrorCode::kInternal, "an unexpected value in the ledger's sources", ledger_);
  return out;
}

core::Result<std::vector<ledger::RowIssue>> LedgerBase::issues(std::int64_t source_id,
                                                               std::int64_t limit) {
  // SQLite reads a negative LIMIT as none; PostgreSQL refuses it.
  const std::string sql =
      "SELECT line, column_name, severity, message FROM row_issues WHERE source_id = $1 ORDER BY "
      "line";
  auto q = limit < 0 ? query("reading row issues", sql, {source_id})
                     : query("reading row issues", sql + " LIMIT $2", {source_id, limit});
  if (!q) return q.error();
  std::vector<ledger::RowIssue> out;
  for (std::size_t r = 0; r < q->size(); ++r) {
    ledger::RowIssue issue;
    issue.line = q->i64(r, 0);
    issue.column = q->text(r, 1);
    issue.severity = ledger::severity_from_name(q->text(r, 2));
    issue.message = q->text(r, 3);
    out.push_back(std::move(issue));
  }
  if (!q->ok())
    return make_error(ErrorCode::kInternal, "an unexpected value in row_issues", ledger_);
  return out;
}

core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>> LedgerBase::tagsets() {
  const std::string c = bytewise(dialect());
  auto q = query(
      "reading tag sets",
      "SELECT tagset_id, key, value FROM tagset_tags ORDER BY tagset_id, key" + c + ", value" + c);
  if (!q) return q.error();
  std::map<std::int64_t, std::vector<ledger::Tag>> out;
  for (std::size_t r = 0; r < q->size(); ++r)
    out[q->i64(r, 0)].push_back({q->text(r, 1), q->text(r, 2)});
  if (!q->ok())
    return make_error(ErrorCode::kInternal, "an unexpected value in tagset_tags", ledger_);
  return out;
}

core::Result<std::vector<ledger::HostActivity>> LedgerBase::gpu_activity(
    std::optional<ledger::Day> from, std::optional<ledger::Day> to) {
  const auto a = gpu_activity_sql(from, to, dialect());
  auto q = query("reading GPU activity", a.sql, bound(a.params));
  if (!q) return q.error();
  std::vector<ledger::HostActivity> out;
  for (std::size_t r = 0; r < q->size(); ++r) {
    const auto metric = ledger::gpu_metric_from_name(q->text(r, 2));
    if (!metric) continue;
    out.push_back({q->text(r, 0), static_cast<ledger::Day>(q->i64(r, 1)), *metric, q->real(r, 3),
                   q->i64(r, 4)});
  }
  if (!q->ok())
    return make_error(ErrorCode::kInternal, "an unexpected value in the GPU activity", ledger_);
  return out;
}

core::Result<std::vector<ledger::GpuHour>> LedgerBase::gpu_hours(std::optional<ledger::Day> from,
                                                                 std::optional<ledger::Day> to,
                                                                 bool with_memory) {
  // Counted first, so that the rows are read once into memory of their size: in a fresh process
  // each page touched first is a page fault and a page zeroed, and a vector grown by doubling
  // touches twice its size (28 days of 1,024 GPUs: 0.7M rows of 96 bytes).
  const auto n = gpu_hours_sql(from, to, dialect(), with_memory, true);
  auto count = query("counting hourly GPU telemetry", n.sql, bound(n.params));
  if (!count) return count.error();
  std::vector<ledger::GpuHour> out;
  if (count->size() == 1)
    out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count->i64(0, 0), 0)));
  const auto a = gpu_hours_sql(from, to, dialect(), with_memory);
  bool ok = true;
  auto s = query_each("reading hourly GPU telemetry", a.sql, bound(a.params),
                      [&](const SqlRows& q, std::size_t r) {
                        const auto metric = ledger::gpu_metric_from_name(q.view(r, 3));
                        if (!metric) return;
                        auto& h = out.emplace_back();
                        h.host = q.view(r, 0);
                        h.gpu = q.view(r, 1);
                        h.hour = q.i64(r, 2);
                        h.metric = *metric;
                        h.sum = q.real(r, 4);
                        h.samples = q.i64(r, 5);
                        ok = ok && q.ok();
                      });
  if (!s) return s.error();
  if (!ok || !count->ok())
    return make_error(ErrorCode::kInternal, "an unexpected value in gpu_hourly", ledger_);
  ledger::merge_gpu_hours(out);
  return out;
}

core::Status LedgerBase::query_each(const char* what, const std::string& sql,
                                    const std::vector<SqlParam>& params, const RowVisit& visit) {
  auto q = query(what, sql, params);
  if (!q) return q.error();
  for (std::size_t r = 0; r < q->size(); ++r) visit(*q, r);
  return {};
}

}  // namespace aicost::store
