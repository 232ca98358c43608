// SQLite backend: one file, WAL journal, one transaction per ingested file.
#include "sqlite_store.h"

#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <unordered_map>

#include "aicost/core/amount.h"
#include "aicost/ledger/rollup.h"
#include "schema.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3* db, const std::string& sql, core::Status& status) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
      status = make_error(ErrorCode::kInternal, std::string("SQLite: ") + sqlite3_errmsg(db), sql.substr(0, 80));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(Stmt&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  sqlite3_stmt* get() const { return s_; }

  void text(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC); }
  void i64(int i, std::int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  void null(int i) { sqlite3_bind_null(s_, i); }

 private:
  sqlite3_stmt* s_ = nullptr;
};

std::string now_iso() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string column_text(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s, i)))
           : std::string();
}

class SqliteStore final : public ledger::Store {
 public:
  explicit SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteStore() override {
    if (in_tx_) rollback();
    statements_.clear();
    sqlite3_close(db_);
  }

  core::Status init() {
    // A rollback journal, not WAL: an ingest appends new pages, which a rollback journal does not
    // copy, where WAL writes every page twice (to the log, then the checkpoint). FULL sync keeps a
    // power cut from corrupting it; the few syncs per file cost nothing next to the rows.
    if (auto s = exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"
                      "PRAGMA busy_timeout=10000; PRAGMA cache_size=-65536;");
        !s)
      return s;
    if (auto s = exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                      "applied_at TEXT NOT NULL)");
        !s)
      return s;
    int current = 0;
    {
      core::Status st;
      Stmt q(db_, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", st);
      if (!st) return st;
      if (sqlite3_step(q.get()) == SQLITE_ROW) current = sqlite3_column_int(q.get(), 0);
    }
    if (current > latest_schema_version())
      return make_error(ErrorCode::kInvalidInput,
                        "the ledger was written by a newer aicost (schema " + std::to_string(current) +
                            ", this one knows " + std::to_string(latest_schema_version()) + "); upgrade aicost",
                        path_);
    for (const auto& m : migrations(Dialect::kSqlite)) {
      if (m.version <= current) continue;
      if (auto s = exec("BEGIN IMMEDIATE"); !s) return s;
      auto s = exec(m.sql);
      if (s) s = exec("INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + ", '" + now_iso() + "')");
      if (!s) {
        (void)exec("ROLLBACK");
        return s;
      }
      if (auto c = exec("COMMIT"); !c) return c;
    }
    version_ = latest_schema_version();
    return {};
  }

  std::string backend() const override { return "sqlite"; }
  int schema_version() const override { return version_; }

  core::Result<std::optional<ledger::SourceRecord>> find_source(const std::string& sha256) override {
    auto all = select_sources("WHERE sha256 = ?", sha256);
    if (!all) return all.error();
    if (all->empty()) return std::optional<ledger::SourceRecord>{};
    return std::optional<ledger::SourceRecord>(all->front());
  }
  core::Result<std::vector<ledger::SourceRecord>> sources_at(const std::string& path) override {
    return select_sources("WHERE path = ?", path);
  }
  core::Result<std::vector<ledger::SourceRecord>> sources() override { return select_sources("", ""); }

  core::Status begin_source(const ledger::SourceFile& file, const std::vector<std::int64_t>& replace) override {
    if (in_tx_) return make_error(ErrorCode::kInternal, "begin_source inside an open ingest");
    if (auto s = exec("BEGIN IMMEDIATE"); !s) return s;
    in_tx_ = true;
    for (auto id : replace) {
      for (const char* table : {"charges", "charge_daily", "gpu_samples", "row_issues", "sources"}) {
        core::Status st;
        Stmt del(db_, std::string("DELETE FROM ") + table + (std::string(table) == "sources" ? " WHERE id = ?" : " WHERE source_id = ?"), st);
        if (!st) return fail(st);
        del.i64(1, id);
        if (sqlite3_step(del.get()) != SQLITE_DONE) return fail(error("deleting a replaced source"));
      }
    }
    core::Status st;
    Stmt ins(db_, "INSERT INTO sources (path, sha256, bytes, format, loaded_at) VALUES (?, ?, ?, ?, ?)", st);
    if (!st) return fail(st);
    const std::string loaded_at = now_iso();
    ins.text(1, file.path);
    ins.text(2, file.sha256);
    ins.i64(3, file.bytes);
    ins.text(4, file.format);
    ins.text(5, loaded_at);
    if (sqlite3_step(ins.get()) != SQLITE_DONE) return fail(error("recording the source"));
    source_id_ = sqlite3_last_insert_rowid(db_);
    rows_ = 0;
    warnings_ = 0;
    rollup_.clear();
    if (auto s = load_tagsets(); !s) return fail(s);
    return {};
  }

  core::Status add_charges(std::span<const ledger::Charge> rows) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_charges outside an ingest");
    auto* s = statement("charge",
                        "INSERT INTO charges VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s) return fail(error("preparing the charge insert"));
    for (const auto& c : rows) {
      auto tagset = tagset_id(c.tags);
      if (!tagset) return fail(tagset.error());
      int i = 0;
      s->i64(++i, source_id_);
      s->i64(++i, c.line);
      s->i64(++i, ledger::day_of(c.period_start));
      s->i64(++i, c.period_start);
      s->i64(++i, c.period_end);
      s->i64(++i, c.billing_period_start);
      s->text(++i, c.currency);
      s->i64(++i, c.billed);
      s->i64(++i, c.effective);
      s->i64(++i, c.list);
      if (c.contracted) s->i64(++i, *c.contracted); else s->null(++i);
      for (const std::string* v : {&c.provider, &c.billing_account_id, &c.billing_account_name, &c.sub_account_id,
                                   &c.sub_account_name, &c.service_name, &c.service_category, &c.region_id,
                                   &c.resource_id, &c.resource_name, &c.resource_type, &c.sku_id,
                                   &c.charge_category, &c.charge_class, &c.charge_frequency, &c.pricing_category,
                                   &c.commitment_discount_id, &c.commitment_discount_status, &c.pricing_unit,
                                   &c.consumed_unit, &c.charge_description})
        s->text(++i, *v);
      if (c.pricing_quantity) s->real(++i, *c.pricing_quantity); else s->null(++i);
      if (c.consumed_quantity) s->real(++i, *c.consumed_quantity); else s->null(++i);
      s->real(++i, c.gpu_hours);
      s->i64(++i, *tagset);
      if (sqlite3_step(s->get()) != SQLITE_DONE) return fail(error("inserting a charge"));
      sqlite3_reset(s->get());
      rollup_.add(c, *tagset);
      ++rows_;
    }
    return {};
  }

  core::Status add_samples(std::span<const ledger::GpuSample> samples) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_samples outside an ingest");
    auto* s = statement("sample", "INSERT INTO gpu_samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s) return fail(error("preparing the sample insert"));
    for (const auto& g : samples) {
      int i = 0;
      s->i64(++i, source_id_);
      s->i64(++i, g.line);
      s->i64(++i, g.time);
      const std::string metric = ledger::gpu_metric_name(g.metric);
      s->text(++i, metric);
      s->real(++i, g.value);
      for (const std::string* v : {&g.host, &g.gpu, &g.uuid, &g.model_name, &g.ns, &g.pod, &g.container, &g.job})
        s->text(++i, *v);
      if (sqlite3_step(s->get()) != SQLITE_DONE) return fail(error("inserting a GPU sample"));
      sqlite3_reset(s->get());
      ++rows_;
    }
    return {};
  }

  core::Status add_issues(std::span<const ledger::RowIssue> issues) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_issues outside an ingest");
    auto* s = statement("issue", "INSERT INTO row_issues VALUES (?,?,?,?,?)");
    if (!s) return fail(error("preparing the issue insert"));
    for (const auto& r : issues) {
      const std::string severity = r.severity == ledger::RowIssue::Severity::kError ? "error" : "warning";
      s->i64(1, source_id_);
      s->i64(2, r.line);
      s->text(3, r.column);
      s->text(4, severity);
      s->text(5, r.message);
      if (sqlite3_step(s->get()) != SQLITE_DONE) return fail(error("recording a row issue"));
      sqlite3_reset(s->get());
      warnings_ += r.severity == ledger::RowIssue::Severity::kWarning;
    }
    return {};
  }

  core::Result<ledger::SourceRecord> commit_source(const std::string& format, std::int64_t rejected) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "commit_source outside an ingest");
    auto* s = statement("daily", "INSERT INTO charge_daily VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s) return fail(error("preparing the rollup insert"));
    for (const auto& r : rollup_.rows()) {
      int i = 0;
      s->i64(++i, source_id_);
      s->i64(++i, r.day);
      for (const auto& v : r.values) s->text(++i, v);
      s->i64(++i, r.tagset);
      for (auto v : {r.sums.billed, r.sums.effective, r.sums.list, r.sums.contracted}) {
        if (v > INT64_MAX || v < INT64_MIN) return fail(make_error(ErrorCode::kInvalidInput, "a day's cost in one group exceeds 9.2e9 currency units; the ledger cannot hold it exactly"));
        s->i64(++i, static_cast<std::int64_t>(v));
      }
      s->real(++i, r.sums.gpu_hours);
      s->i64(++i, r.sums.rows);
      if (sqlite3_step(s->get()) != SQLITE_DONE) return fail(error("inserting the daily rollup"));
      sqlite3_reset(s->get());
    }
    core::Status st;
    Stmt upd(db_, "UPDATE sources SET rows = ?, rejected = ?, warnings = ?, format = ? WHERE id = ?", st);
    if (!st) return fail(st);
    upd.i64(1, rows_);
    upd.i64(2, rejected);
    upd.i64(3, warnings_);
    upd.text(4, format);
    upd.i64(5, source_id_);
    if (sqlite3_step(upd.get()) != SQLITE_DONE) return fail(error("closing the source"));
    if (auto c = exec("COMMIT"); !c) return fail(c);
    in_tx_ = false;
    auto rec = select_sources("WHERE id = ?", std::to_string(source_id_));
    if (!rec) return rec.error();
    if (rec->empty()) return make_error(ErrorCode::kInternal, "the committed source vanished");
    return rec->front();
  }

  void rollback() noexcept override {
    if (!in_tx_) return;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    in_tx_ = false;
    tagset_ids_.clear();
    raw_ids_.clear();
    tagsets_loaded_ = false;
  }

  core::Result<std::vector<ledger::RowIssue>> issues(std::int64_t source_id, std::int64_t limit) override {
    core::Status st;
    Stmt q(db_, "SELECT line, column_name, severity, message FROM row_issues WHERE source_id = ? ORDER BY line LIMIT ?", st);
    if (!st) return st.error();
    q.i64(1, source_id);
    q.i64(2, limit);
    std::vector<ledger::RowIssue> out;
    while (sqlite3_step(q.get()) == SQLITE_ROW) {
      ledger::RowIssue r;
      r.line = sqlite3_column_int64(q.get(), 0);
      r.column = column_text(q.get(), 1);
      r.severity = column_text(q.get(), 2) == "error" ? ledger::RowIssue::Severity::kError
                                                       : ledger::RowIssue::Severity::kWarning;
      r.message = column_text(q.get(), 3);
      out.push_back(std::move(r));
    }
    return out;
  }

  core::Result<std::vector<ledger::AggregateRow>> aggregate(const ledger::AggregateQuery& q) override {
    const auto a = aggregate_sql(q, Dialect::kSqlite);
    core::Status st;
    Stmt s(db_, a.sql, st);
    if (!st) return st.error();
    for (std::size_t i = 0; i < a.params.size(); ++i) s.text(static_cast<int>(i + 1), a.params[i]);
    std::vector<ledger::AggregateRow> out;
    for (;;) {
      const int rc = sqlite3_step(s.get());
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return error("aggregating charges");
      ledger::AggregateRow r;
      int i = 0;
      if (q.by_day) r.day = sqlite3_column_int(s.get(), i++);
      for (std::size_t k = 0; k < q.dims.size(); ++k) r.values.push_back(column_text(s.get(), i++));
      r.currency = column_text(s.get(), i++);
      if (q.by_tagset) r.tagset = sqlite3_column_int64(s.get(), i++);
      r.sums.billed = sqlite3_column_int64(s.get(), i++);
      r.sums.effective = sqlite3_column_int64(s.get(), i++);
      r.sums.list = sqlite3_column_int64(s.get(), i++);
      r.sums.contracted = sqlite3_column_int64(s.get(), i++);
      r.sums.gpu_hours = sqlite3_column_double(s.get(), i++);
      r.sums.rows = sqlite3_column_int64(s.get(), i++);
      out.push_back(std::move(r));
    }
    return out;
  }

  core::Result<std::vector<ledger::HostActivity>> gpu_activity(std::optional<ledger::Day> from,
                                                               std::optional<ledger::Day> to) override {
    const auto a = gpu_activity_sql(from, to, Dialect::kSqlite);
    core::Status st;
    Stmt s(db_, a.sql, st);
    if (!st) return st.error();
    for (std::size_t i = 0; i < a.params.size(); ++i) s.text(static_cast<int>(i + 1), a.params[i]);
    std::vector<ledger::HostActivity> out;
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      const auto metric = ledger::gpu_metric_from_name(column_text(s.get(), 2));
      if (!metric) continue;
      out.push_back({column_text(s.get(), 0), sqlite3_column_int(s.get(), 1), *metric,
                     sqlite3_column_double(s.get(), 3), sqlite3_column_int64(s.get(), 4)});
    }
    if (rc != SQLITE_DONE) return error("reading GPU activity");
    return out;
  }

  core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>> tagsets() override {
    core::Status st;
    Stmt q(db_, "SELECT tagset_id, key, value FROM tagset_tags ORDER BY tagset_id, key, value", st);
    if (!st) return st.error();
    std::map<std::int64_t, std::vector<ledger::Tag>> out;
    while (sqlite3_step(q.get()) == SQLITE_ROW)
      out[sqlite3_column_int64(q.get(), 0)].push_back({column_text(q.get(), 1), column_text(q.get(), 2)});
    return out;
  }

 private:
  core::Status exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "unknown error";
      sqlite3_free(msg);
      return make_error(ErrorCode::kIo, "SQLite: " + m, path_);
    }
    return {};
  }
  core::Error error(const std::string& what) const {
    const int code = sqlite3_errcode(db_);
    const ErrorCode kind = code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_BUSY ||
                                   code == SQLITE_READONLY || code == SQLITE_CANTOPEN
                               ? ErrorCode::kIo
                               : ErrorCode::kInternal;
    return make_error(kind, "SQLite failed " + what + ": " + sqlite3_errmsg(db_), path_);
  }
  core::Error fail(const core::Status& s) {
    rollback();
    return s.error();
  }
  core::Error fail(const core::Error& e) {
    rollback();
    return e;
  }

  Stmt* statement(const std::string& name, const char* sql) {
    auto it = statements_.find(name);
    if (it != statements_.end()) return &it->second;
    core::Status st;
    Stmt s(db_, sql, st);
    if (!st) return nullptr;
    return &statements_.emplace(name, std::move(s)).first->second;
  }

  core::Status load_tagsets() {
    if (tagsets_loaded_) return {};
    core::Status st;
    Stmt q(db_, "SELECT id, canonical FROM tagsets", st);
    if (!st) return st;
    while (sqlite3_step(q.get()) == SQLITE_ROW) tagset_ids_[column_text(q.get(), 1)] = sqlite3_column_int64(q.get(), 0);
    tagsets_loaded_ = true;
    return {};
  }

  core::Result<std::int64_t> tagset_id(const std::vector<ledger::Tag>& tags) {
    if (tags.empty()) return std::int64_t{0};
    if (auto it = raw_ids_.find(tags); it != raw_ids_.end()) return it->second;
    const std::string canonical = ledger::tagset_text(tags);
    if (auto it = tagset_ids_.find(canonical); it != tagset_ids_.end()) {
      raw_ids_.emplace(tags, it->second);
      return it->second;
    }
    auto* ins = statement("tagset", "INSERT INTO tagsets (canonical) VALUES (?)");
    auto* tag = statement("tag", "INSERT OR IGNORE INTO tagset_tags VALUES (?, ?, ?)");
    if (!ins || !tag) return error("preparing the tag inserts");
    ins->text(1, canonical);
    if (sqlite3_step(ins->get()) != SQLITE_DONE) return error("inserting a tag set");
    sqlite3_reset(ins->get());
    const std::int64_t id = sqlite3_last_insert_rowid(db_);
    for (const auto& t : tags) {
      const std::string key = ledger::canonical_tag_key(t.key);
      tag->i64(1, id);
      tag->text(2, key);
      tag->text(3, t.value);
      if (sqlite3_step(tag->get()) != SQLITE_DONE) return error("inserting a tag");
      sqlite3_reset(tag->get());
    }
    tagset_ids_.emplace(canonical, id);
    raw_ids_.emplace(tags, id);
    return id;
  }

  core::Result<std::vector<ledger::SourceRecord>> select_sources(const std::string& where, const std::string& arg) {
    core::Status st;
    Stmt q(db_, "SELECT id, path, sha256, bytes, format, loaded_at, rows, rejected, warnings FROM sources " + where +
                    " ORDER BY id", st);
    if (!st) return st.error();
    if (!where.empty()) q.text(1, arg);
    std::vector<ledger::SourceRecord> out;
    while (sqlite3_step(q.get()) == SQLITE_ROW) {
      ledger::SourceRecord r;
      r.id = sqlite3_column_int64(q.get(), 0);
      r.file.path = column_text(q.get(), 1);
      r.file.sha256 = column_text(q.get(), 2);
      r.file.bytes = sqlite3_column_int64(q.get(), 3);
      r.file.format = column_text(q.get(), 4);
      r.loaded_at = column_text(q.get(), 5);
      r.rows = sqlite3_column_int64(q.get(), 6);
      r.rejected = sqlite3_column_int64(q.get(), 7);
      r.warnings = sqlite3_column_int64(q.get(), 8);
      out.push_back(std::move(r));
    }
    for (auto& r : out) {
      Stmt t(db_, "SELECT currency, SUM(billed), SUM(effective) FROM charge_daily WHERE source_id = ? GROUP BY currency ORDER BY currency", st);
      if (!st) return st.error();
      t.i64(1, r.id);
      while (sqlite3_step(t.get()) == SQLITE_ROW)
        r.totals.push_back({column_text(t.get(), 0), sqlite3_column_int64(t.get(), 1), sqlite3_column_int64(t.get(), 2)});
    }
    return out;
  }

  sqlite3* db_;
  std::string path_;
  int version_ = 0;
  bool in_tx_ = false;
  std::int64_t source_id_ = 0, rows_ = 0, warnings_ = 0;
  std::unordered_map<std::string, Stmt> statements_;
  std::unordered_map<std::string, std::int64_t> tagset_ids_;  // canonical text -> id
  std::unordered_map<std::vector<ledger::Tag>, std::int64_t, ledger::TagsHash> raw_ids_;  // as written -> id
  bool tagsets_loaded_ = false;
  ledger::DailyRollup rollup_;
};

}  // namespace

core::Result<std::unique_ptr<ledger::Store>> open_sqlite(const std::string& path) {
  // One connection per store, used by one thread at a time: no per-call mutexes (they cost ~5 % of
  // an ingest), and no global memory statistics.
  static const bool configured = [] { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK; }();
  (void)configured;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return make_error(ErrorCode::kIo, "cannot open the ledger database: " + msg, path);
  }
  auto store = std::make_unique<SqliteStore>(db, path);
  if (auto s = store->init(); !s) return s.error();
  return std::unique_ptr<ledger::Store>(std::move(store));
}

}  // namespace aicost::store
