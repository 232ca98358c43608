// SQLite backend: one file in WAL mode, one transaction per ingested file, writers taking turns
// through a lock file beside it (file_lock.h).
#include "sqlite_store.h"

#include <sqlite3.h>

#include <functional>
#include <unordered_map>

#include "file_lock.h"
#include "ledger_base.h"
#include "schema.h"
#include "sqlite_feed.h"
#include "sqlite_feed_rows.h"
#include "sqlite_file.h"
#include "sqlite_reads.h"
#include "sqlite_scan.h"
#include "sqlite_stmt.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

// `sql` with PostgreSQL's $1, $2 ... as SQLite's ?1, ?2 ...
std::string sqlite_params(std::string sql) {
  for (std::size_t i = 0; i + 1 < sql.size(); ++i)
    if (sql[i] == '$' && sql[i + 1] >= '0' && sql[i + 1] <= '9') sql[i] = '?';
  return sql;
}

// A bulk load's rows bound to a prepared INSERT, one step per row; the first failure is kept.
class BindSink final : public RowSink {
 public:
  BindSink(sqlite3_stmt* s, std::function<core::Error()> error) : s_(s), error_(std::move(error)) {}
  void i64(std::int64_t v) override { sqlite3_bind_int64(s_, ++i_, v); }
  void real(double v) override { sqlite3_bind_double(s_, ++i_, v); }
  void text(std::string_view v) override {
    sqlite3_bind_text(s_, ++i_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void null() override { sqlite3_bind_null(s_, ++i_); }
  void end_row() override {
    if (sqlite3_step(s_) != SQLITE_DONE && status_) status_ = error_();
    sqlite3_reset(s_);
    i_ = 0;
  }
  core::Status status() const { return status_; }

 private:
  sqlite3_stmt* s_;
  std::function<core::Error()> error_;
  int i_ = 0;
  core::Status status_;
};

class SqliteStore final : public LedgerBase {
 public:
  SqliteStore(sqlite3* db, std::string path, const StoreOptions& options)
      : LedgerBase(options),
        db_(db),
        path_(std::move(path)),
        reads_(db_, path_, options, [this] { return tagsets(); }) {}
  ~SqliteStore() override {
    rollback();
    statements_.clear();
    sqlite3_close(db_);
  }

  core::Status init() {
    // The busy timeout before anything else: every statement below may meet a lock.
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    // Pages of 64 KiB (a new ledger; an old one keeps its pages until a VACUUM): a scan of the
    // charges spends much of its time per page, not per row (10M charges, 30 of 122 days, one
    // core: 0.78-0.83 s against 1.51-1.56 s in 4 KiB pages). Set before WAL, which fixes it.
    if (auto s = exec("PRAGMA page_size=65536"); !s) return s;
    if (auto s = use_wal(db_, path_); !s) return s;
    // FULL sync keeps a power cut from losing a committed file; the few syncs per file cost
    // nothing next to the rows. Reads on this connection go through a memory map (up to the 2 GB
    // SQLite allows, pread beyond); large scans have their own (sqlite_reads.cc).
    if (auto s = exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536; "
                      "PRAGMA mmap_size=2147418112;");
        !s)
      return s;
    for (auto* feed : {&charge_feed_, &daily_feed_, &string_feed_})
      if (auto s = feed->attach(db_); !s) return s;
    if (auto s = register_scan_function(db_); !s) return s;
    // Reads first, and writes only when a migration is due: a reader opening the ledger while an
    // ingest holds the write lock must not wait for it.
    return open_schema(path_);
  }

  std::string backend() const override { return "sqlite"; }

  core::Result<std::vector<ledger::AggregateRow>> aggregate(
      const ledger::AggregateQuery& q) override {
    return reads_.aggregate(q);
  }
  core::Result<std::vector<std::vector<ledger::AggregateRow>>> aggregate_each(
      std::span<const ledger::AggregateQuery> queries) override {
    // One scan where it can; else each query in turn, as any store.
    if (!SqliteReads::scans_together(queries)) return ledger::Store::aggregate_each(queries);
    return reads_.aggregate_each(queries);
  }
  core::Status aggregate_into(std::span<const ledger::AggregateQuery> queries,
                              const AggregateSink& sink, std::size_t interleave = 0,
                              std::size_t interleave_from = 0) override {
    return reads_.aggregate_into(queries, sink, interleave, interleave_from);
  }

  core::Result<ledger::CompactResult> compact() override {
    if (in_ingest()) return make_error(ErrorCode::kInternal, "compact inside an open ingest");
    auto pragma = [this](const char* name) -> core::Result<std::int64_t> {
      core::Status st;
      Stmt q(db_, std::string("PRAGMA ") + name, st);
      if (!st) return st.error();
      if (sqlite3_step(q.get()) != SQLITE_ROW) return error(std::string("reading PRAGMA ") + name);
      return sqlite3_column_int64(q.get(), 0);
    };
    ledger::CompactResult out;
    auto pages = pragma("page_count"), page = pragma("page_size");
    if (!pages || !page) return (pages ? page : pages).error();
    out.bytes_before = *pages * *page;
    auto lock = FileLock::acquire(path_, "compact", options_);
    if (!lock) return lock.error();
    // VACUUM rewrites the file through a temporary copy: it needs the ledger's size again on disk.
    // It renumbers the charges' rowids, and adds one to the schema cookie, which a scan split
    // over connections compares (sqlite_reads.cc). In WAL it keeps the page size: a ledger in
    // 4 KiB pages (made by an older aicost) is vacuumed with a rollback journal, then switched
    // back, which needs it to itself for a moment.
    const bool small_pages = *page < 65536;
    if (small_pages)
      if (auto s = exec("PRAGMA journal_mode=DELETE"); !s) return s.error();
    auto vacuumed = exec("PRAGMA page_size=65536; VACUUM;");
    if (small_pages)
      if (auto s = use_wal(db_, path_); !s && vacuumed) vacuumed = s;
    if (!vacuumed) return vacuumed.error();
    checkpoint(db_);  // the file holds the new pages, not only the log
    auto pages_after = pragma("page_count"), page_after = pragma("page_size");
    if (!pages_after || !page_after) return (pages_after ? page_after : pages_after).error();
    out.bytes_after = *pages_after * *page_after;
    out.how = "VACUUM, pages of " + std::to_string(*page / 1024) + " KiB -> " +
              std::to_string(*page_after / 1024) + " KiB";
    return out;
  }

 protected:
  Dialect dialect() const override { return Dialect::kSqlite; }

  core::Result<SqlRows> query(const char* what, const std::string& sql,
                              const std::vector<SqlParam>& params) override {
    SqlRows out;
    auto s = rows_of(what, sql, params, [&out](sqlite3_stmt* s) {
      auto& row = out.rows.emplace_back(static_cast<std::size_t>(sqlite3_column_count(s)));
      for (std::size_t c = 0; c < row.size(); ++c) read_cell(s, static_cast<int>(c), row[c]);
    });
    if (!s) return s.error();
    return out;
  }
  // One row held at a time, its cells overwritten in place (a text cell keeps its buffer).
  core::Status query_each(const char* what, const std::string& sql,
                          const std::vector<SqlParam>& params, const RowVisit& visit) override {
    SqlRows one;
    auto& row = one.rows.emplace_back();
    return rows_of(what, sql, params, [&](sqlite3_stmt* s) {
      row.resize(static_cast<std::size_t>(sqlite3_column_count(s)));
      for (std::size_t c = 0; c < row.size(); ++c) read_cell(s, static_cast<int>(c), row[c]);
      visit(one, 0);
    });
  }
  core::Status script(const char*, const std::string& sql) override { return exec(sql); }
  core::Result<int> applied_version() override { return store::applied_version(db_, path_); }
  core::Error no_ledger() const override {
    return make_error(
        ErrorCode::kNotFound,
        "this file is not an aicost ledger yet (it has no tables); load a billing export into it "
        "(aicost ledger ingest FILE --db " +
            path_ + ") or make it a ledger (aicost ledger init --db " + path_ + ")",
        path_);
  }

  // Writers take turns through the lock file (file_lock.h), then BEGIN IMMEDIATE.
  core::Status begin_write(Writer who) override {
    const char* name = who == Writer::kIngest      ? "ingest"
                       : who == Writer::kMigration ? "migration"
                                                   : "check";
    busy_ = false;
    auto lock = FileLock::acquire(path_, name, options_);
    if (!lock) return lock.error();
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      busy_ = sqlite3_errcode(db_) == SQLITE_BUSY;
      return sqlite_error(
          db_, path_,
          busy_ ? "starting a write (another process kept the ledger locked)" : "starting a write");
    }
    writer_ = std::move(*lock);
    ingest_ = who == Writer::kIngest;
    if (!ingest_) return {};
    auto s = bump_generation(db_, path_);  // a scan split over connections compares it
    if (!s) rollback_write();
    return s;
  }
  core::Status commit_write() override {
    if (auto c = exec("COMMIT"); !c) {
      busy_ = sqlite3_errcode(db_) == SQLITE_BUSY;  // a COMMIT waits for readers, and may give up
      return c;
    }
    // An ingest's pages are in the log: copy them into the file now, and empty the log, rather
    // than leave a log the size of the load beside the ledger for as long as anyone reads it.
    if (ingest_) checkpoint(db_);
    writer_.release();
    return {};
  }
  void rollback_write() noexcept override {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    writer_.release();
  }
  bool transient_failure() const override { return busy_; }

  core::Status load(const char* what, const char* table, int columns, std::size_t n,
                    const RowWriter& write) override {
    if (n == 0) return {};
    std::string sql = std::string("INSERT INTO ") + table + " VALUES (?";
    for (int i = 1; i < columns; ++i) sql += ",?";
    Stmt* s = statement(sql + ")", sql + ")");
    if (!s) return error(what);
    BindSink sink(s->get(), [this, what] { return error(what); });
    for (std::size_t k = 0; k < n && sink.status(); ++k) write(k, sink);
    return sink.status();
  }
  core::Status load_charges(std::int64_t source, std::span<const ledger::Charge> rows,
                            const std::int64_t* tagsets, const ChargeTextIds* ids) override {
    const ChargeRows batch{source, rows.data(), tagsets, ids};
    return feed(charge_feed_, "charges", charge_columns(), &batch, rows.size());
  }
  core::Status load_daily(std::int64_t source, std::span<const IdRollupRow> rows) override {
    const DailyRows batch{source, rows.data()};
    return feed(daily_feed_, "charge_daily", daily_columns(), &batch, rows.size());
  }
  // The next ids, max + 1 on (this connection holds the write lock, and SQLite would number them
  // so too), fed in one statement.
  core::Result<std::vector<std::int64_t>> store_strings(std::span<const std::string_view> values,
                                                        std::int64_t max_id) override {
    std::vector<std::int64_t> ids(values.size());
    pending_.clear();
    for (std::size_t i = 0; i < values.size(); ++i)
      pending_.emplace_back(ids[i] = max_id + 1 + std::int64_t(i), values[i]);
    auto s = feed(string_feed_, "strings", "id, value", pending_.data(), pending_.size());
    pending_.clear();
    if (!s) return s.error();
    return ids;
  }
  core::Result<std::vector<std::int64_t>> store_tagsets(std::span<const NewTagset> sets) override {
    auto* ins = statement("tagset", "INSERT INTO tagsets (canonical) VALUES (?)");
    auto* tag = statement("tag", "INSERT OR IGNORE INTO tagset_tags VALUES (?, ?, ?)");
    if (!ins || !tag) return error("preparing the tag inserts");
    std::vector<std::int64_t> ids;
    for (const auto& set : sets) {
      ins->text(1, set.canonical);
      if (sqlite3_step(ins->get()) != SQLITE_DONE) return error("inserting a tag set");
      sqlite3_reset(ins->get());
      const std::int64_t id = ids.emplace_back(sqlite3_last_insert_rowid(db_));
      for (const auto& t : *set.tags) {
        const std::string key = ledger::canonical_tag_key(t.key);
        tag->i64(1, id);
        tag->text(2, key);
        tag->text(3, t.value);
        if (sqlite3_step(tag->get()) != SQLITE_DONE) return error("inserting a tag");
        sqlite3_reset(tag->get());
      }
    }
    return ids;
  }

 private:
  core::Status exec(const std::string& sql) { return sqlite_exec(db_, path_, sql); }
  core::Error error(const std::string& what) const { return sqlite_error(db_, path_, what); }

  // A column of the current row into `cell` (a text into the string it holds already, if any).
  static void read_cell(sqlite3_stmt* s, int c, SqlRows::Cell& cell) {
    switch (sqlite3_column_type(s, c)) {
      case SQLITE_NULL: cell = nullptr; break;
      case SQLITE_INTEGER: cell = std::int64_t{sqlite3_column_int64(s, c)}; break;
      case SQLITE_FLOAT: cell = sqlite3_column_double(s, c); break;
      default: {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(s, c));
        const auto n = static_cast<std::size_t>(sqlite3_column_bytes(s, c));
        if (auto* text = std::get_if<std::string>(&cell))
          text->assign(p ? p : "", n);
        else
          cell = std::string(p ? p : "", n);
      }
    }
  }

  // Runs `sql` with `params` bound, handing each row to `row` as SQLite steps onto it.
  template <class Row>
  core::Status rows_of(const char* what, const std::string& sql,
                       const std::vector<SqlParam>& params, Row&& row) {
    Stmt* s = statement(sql, sqlite_params(sql));
    if (!s) return error(what);
    sqlite3_reset(s->get());
    int i = 0;
    for (const auto& p : params) {
      ++i;
      if (const auto* v = std::get_if<std::int64_t>(&p))
        s->i64(i, *v);
      else if (const auto* d = std::get_if<double>(&p))
        s->real(i, *d);
      else if (const auto* t = std::get_if<std::string_view>(&p))
        s->text(i, *t);
      else
        s->null(i);
    }
    int rc;
    while ((rc = sqlite3_step(s->get())) == SQLITE_ROW) row(s->get());
    busy_ = (rc & 0xff) == SQLITE_BUSY;
    auto e = rc == SQLITE_DONE ? core::Status{} : core::Status(error(what));
    sqlite3_reset(s->get());
    sqlite3_clear_bindings(s->get());
    return e;
  }

  // The statement prepared for `key`, prepared from `sql` on first use.
  Stmt* statement(const std::string& key, const std::string& sql) {
    auto it = statements_.find(key);
    if (it != statements_.end()) return &it->second;
    core::Status st;
    Stmt s(db_, sql, st);
    if (!st) return nullptr;
    return &statements_.emplace(key, std::move(s)).first->second;
  }

  // Every row `feed` holds, in one statement: binding each value of a row of integers costs about
  // as much as SQLite's own work on it. OR FAIL: a statement that could stop half way on a UNIQUE
  // or NOT NULL constraint makes SQLite copy each page it changes to a statement journal first,
  // thousands of pages for a batch of new strings landing all over the `strings` index (an
  // error rolls the ingest's transaction back anyway).
  core::Status feed(SqliteFeed& feed, const char* table, const std::string& columns,
                    const void* rows, std::size_t n) {
    if (n == 0) return {};
    Stmt* s = statement(feed.name(), "INSERT OR FAIL INTO " + std::string(table) + " (" + columns +
                                         ") SELECT * FROM " + feed.name());
    if (!s) return error(std::string("preparing the insert into ") + table);
    feed.set_rows(rows, n);
    const bool done = sqlite3_step(s->get()) == SQLITE_DONE;
    auto e = done ? core::Status{} : core::Status(error(std::string("inserting into ") + table));
    sqlite3_reset(s->get());
    feed.set_rows(nullptr, 0);
    return e;
  }

  sqlite3* db_;
  std::string path_;
  SqliteReads reads_;
  FileLock writer_;  // held from begin_write to its commit or rollback
  bool ingest_ = false, busy_ = false;
  std::unordered_map<std::string, Stmt> statements_;
  std::vector<NewString> pending_;  // strings to insert
  SqliteFeed charge_feed_{"aicost_charges_feed", kChargeColumnCount, &charge_column};
  SqliteFeed daily_feed_{"aicost_daily_feed", kDailyColumnCount, &daily_column};
  SqliteFeed string_feed_{"aicost_strings_feed", 2, &string_column};
};

}  // namespace

core::Result<std::unique_ptr<ledger::Store>> open_sqlite(const std::string& path,
                                                         const StoreOptions& options) {
  // One connection per store, used by one thread at a time: no per-call mutexes (they cost ~5 % of
  // an ingest), and no global memory statistics.
  static const bool configured = [] {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
  }();
  (void)configured;
  sqlite3* db = nullptr;
  const int access = options.mode == OpenMode::kReadOnly ? SQLITE_OPEN_READONLY
                     : options.mode == OpenMode::kCreate
                         ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                         : SQLITE_OPEN_READWRITE;
  if (sqlite3_open_v2(path.c_str(), &db, access | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return make_error(ErrorCode::kIo, "cannot open the ledger database: " + msg, path);
  }
  auto store = std::make_unique<SqliteStore>(db, path, options);
  if (auto s = store->init(); !s) return s.error();
  return std::unique_ptr<ledger::Store>(std::move(store));
}

}  // namespace aicost::store
