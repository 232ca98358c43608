// LedgerBase's reads that are the same SQL in both dialects: sources, row issues, tag sets and the
// GPU telemetry (the aggregates have their own paths, sqlite_reads.cc and pg_reads.cc).
#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

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
  // As ledger::merge_gpu_hours over the rows read, without sorting GpuHours: each row is read as
  // integers with its (host, GPU) as a number, those rows are sorted (stably: the rows of one hour
  // are summed in the order read) and summed, and only then made GpuHours, at their final count.
  // (28 days of 1,024 GPUs: 0.7M rows; sorting them as GpuHours on two strings, and a COUNT(*)
  // first to size their vector, were about 6 % of `optimize --db` on the 10M-charge bench ledger.)
  struct Row {
    std::int64_t hour;
    double sum;
    std::int64_t samples;
    std::uint32_t gpu;  // its number in `gpus`, then its rank in text order
    ledger::GpuMetric metric;
  };
  std::vector<Row> rows;
  std::vector<std::pair<std::string, std::string>> gpus;   // (host, GPU) by number
  std::unordered_map<std::string, std::uint32_t> numbers;  // by the host's length, host, GPU
  std::string key;
  const auto a = gpu_hours_sql(from, to, dialect(), with_memory);
  bool ok = true;
  auto s = query_each(
      "reading hourly GPU telemetry", a.sql, bound(a.params), [&](const SqlRows& q, std::size_t r) {
        const auto metric = ledger::gpu_metric_from_name(q.view(r, 3));
        if (!metric) return;
        const std::string_view host = q.view(r, 0), gpu = q.view(r, 1);
        key.assign(std::to_string(host.size())).append(1, ':').append(host);
        key.append(gpu);
        const auto [it, fresh] = numbers.try_emplace(key, static_cast<std::uint32_t>(gpus.size()));
        if (fresh) gpus.emplace_back(host, gpu);
        rows.push_back({q.i64(r, 2), q.real(r, 4), q.i64(r, 5), it->second, *metric});
        ok = ok && q.ok();
      });
  if (!s) return s.error();
  if (!ok) return make_error(ErrorCode::kInternal, "an unexpected value in gpu_hourly", ledger_);
  std::vector<std::uint32_t> order(gpus.size()), rank(gpus.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t x, std::uint32_t y) { return gpus[x] < gpus[y]; });
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = static_cast<std::uint32_t>(k);
  for (Row& r : rows) r.gpu = rank[r.gpu];
  const auto same = [](const Row& x, const Row& y) {
    return x.gpu == y.gpu && x.hour == y.hour && x.metric == y.metric;
  };
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
    if (x.gpu != y.gpu) return x.gpu < y.gpu;
    if (x.hour != y.hour) return x.hour < y.hour;
    return x.metric < y.metric;
  });
  std::size_t n = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) n += i == 0 || !same(rows[i - 1], rows[i]) ? 1 : 0;
  std::vector<ledger::GpuHour> out;
  out.reserve(n);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (i > 0 && same(rows[i - 1], r)) {
      out.back().sum += r.sum;
      out.back().samples += r.samples;
      continue;
    }
    auto& h = out.emplace_back();
    const auto& [host, gpu] = gpus[order[r.gpu]];
    h.host = host;
    h.gpu = gpu;
    h.hour = r.hour;
    h.metric = r.metric;
    h.sum = r.sum;
    h.samples = r.samples;
  }
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
