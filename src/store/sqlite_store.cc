// SQLite backend: one file in WAL mode, one transaction per ingested file, writers taking turns
// through a lock file beside it (file_lock.h).
#include "sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <unordered_map>

#include "aicost/core/text.h"
#include "aicost/core/amount.h"
#include "file_lock.h"
#include "commitments.h"
#include "id_rollup.h"
#include "raw_tagsets.h"
#include "recheck.h"
#include "sample_rollup.h"
#include "sqlite_alerts.h"
#include "schema.h"
#include "sqlite_feed.h"
#include "sqlite_feed_rows.h"
#include "sqlite_file.h"
#include "sqlite_reads.h"
#include "sqlite_stmt.h"
#include "string_ids.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

// Where the currency's id sits in a rollup row's ids.
constexpr std::size_t kCurrencySlot = [] {
  std::size_t i = 0;
  while (ledger::kRollupDims[i] != ledger::Dimension::kCurrency) ++i;
  return i;
}();

class SqliteStore final : public ledger::Store {
 public:
  SqliteStore(sqlite3* db, std::string path, const StoreOptions& options)
      : db_(db), path_(std::move(path)), options_(options), reads_(db_, path_, options), alerts_(db_, path_) {}
  ~SqliteStore() override {
    if (in_tx_) rollback();
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
    // Read first, and write only when a migration is due: a reader opening the ledger while an
    // ingest holds the write lock must not wait for it.
    auto current = applied_version(db_, path_);
    if (!current) return current.error();
    if (*current < latest_schema_version()) {
      bool made = false;
      if (auto s = migrate(db_, path_, options_, current, made); !s) return s;
      if (made && options_.on_create) options_.on_create(path_);
    }
    if (*current > latest_schema_version())
      return make_error(ErrorCode::kInvalidInput,
                        "the ledger was written by a newer aicost (schema " + std::to_string(*current) +
                            ", this one knows " + std::to_string(latest_schema_version()) + "); upgrade aicost",
                        path_);
    version_ = latest_schema_version();
    return {};
  }

  std::string backend() const override { return "sqlite"; }
  int schema_version() const override { return version_; }

  core::Result<std::optional<ledger::SourceRecord>> find_source(const std::string& sha256) override {
    auto all = reads_.select_sources("WHERE sha256 = ?", sha256);
    if (!all) return all.error();
    if (all->empty()) return std::optional<ledger::SourceRecord>{};
    return std::optional<ledger::SourceRecord>(all->front());
  }
  core::Result<std::vector<ledger::SourceRecord>> sources_at(const std::string& path) override {
    return reads_.select_sources("WHERE path = ?", path);
  }
  core::Result<std::vector<ledger::SourceRecord>> sources() override { return reads_.select_sources("", ""); }

  core::Result<std::optional<ledger::SourceRecord>> begin_source(const ledger::SourceFile& file,
                                                                 const std::vector<std::int64_t>& replace) override {
    if (in_tx_) return make_error(ErrorCode::kInternal, "begin_source inside an open ingest");
    auto lock = FileLock::acquire(path_, "ingest", options_);
    if (!lock) return lock.error();
    if (auto s = exec("BEGIN IMMEDIATE"); !s) return s.error();
    in_tx_ = true;
    writer_ = std::move(*lock);
    // Another process may have loaded these bytes, or this path, while this one waited.
    auto same = reads_.select_sources("WHERE sha256 = ?", file.sha256);
    if (!same) return fail(same.error());
    auto at_path = reads_.select_sources("WHERE path = ?", file.path);
    if (!at_path) return fail(at_path.error());
    if (file.path == "(stdin)") at_path->clear();  // every load of standard input has this name
    auto again = recheck_under_lock(*same, *at_path, replace);
    if (!again || *again) {
      rollback();
      return again;
    }
    if (auto s = bump_generation(db_, path_); !s) return fail(s);
    for (auto id : replace)
      if (auto s = drop_source(id); !s) return fail(s);
    core::Status st;
    Stmt ins(db_, "INSERT INTO sources (path, sha256, bytes, format, loaded_at) VALUES (?, ?, ?, ?, ?)", st);
    if (!st) return fail(st);
    record_ = {};
    record_.file = file;
    record_.loaded_at = core::utc_now_iso();
    ins.text(1, file.path);
    ins.text(2, file.sha256);
    ins.i64(3, file.bytes);
    ins.text(4, file.format);
    ins.text(5, record_.loaded_at);
    if (sqlite3_step(ins.get()) != SQLITE_DONE) return fail(error("recording the source"));
    source_id_ = record_.id = sqlite3_last_insert_rowid(db_);
    rows_ = 0;
    warnings_ = 0;
    rollup_.clear();
    hours_.clear();
    if (auto s = load_tagsets(); !s) return fail(s);
    if (auto s = load_strings(); !s) return fail(s);
    return std::optional<ledger::SourceRecord>{};
  }

  core::Status add_charges(std::span<const ledger::Charge> rows) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_charges outside an ingest");
    // Ids first (tag sets and strings new to the ledger are stored on the way), then the rollup
    // over the whole batch, then the rows in one statement.
    tagsets_.resize(rows.size());
    ids_.resize(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) {
      prefetch_ahead(rows, k);
      auto tagset = tagset_id(rows[k].tags);
      if (!tagset) return fail(tagset.error());
      tagsets_[k] = *tagset;
      if (!strings_.find(rows[k], ids_[k])) intern(rows[k], ids_[k]);
    }
    auto s = feed(string_feed_, "strings", "id, value", pending_.data(), pending_.size());
    pending_.clear();
    if (!s) return fail(s);
    rollup_.add(rows, std::span(ids_.data(), rows.size()), std::span(tagsets_.data(), rows.size()));
    const ChargeRows batch{source_id_, rows.data(), tagsets_.data(), ids_.data()};
    if (auto f = feed(charge_feed_, "charges", charge_columns(), &batch, rows.size()); !f) return fail(f);
    rows_ += static_cast<std::int64_t>(rows.size());
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
    hours_.add(samples);
    return {};
  }

  core::Status add_commitments(std::span<const ledger::ContractCommitment> rows) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_commitments outside an ingest");
    if (auto s = sqlite_insert_commitments(db_, path_, source_id_, rows); !s) return fail(s);
    rows_ += static_cast<std::int64_t>(rows.size());
    return {};
  }

  core::Status add_issues(std::span<const ledger::RowIssue> issues) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_issues outside an ingest");
    auto* s = statement("issue", "INSERT INTO row_issues VALUES (?,?,?,?,?)");
    if (!s) return fail(error("preparing the issue insert"));
    for (const auto& r : issues) {
      const std::string severity = ledger::severity_name(r.severity);
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
    if (auto s = rollup_.check_fits(); !s) return fail(s);
    const auto daily = rollup_.rows();
    const DailyRows batch{source_id_, daily.data()};
    if (auto s = feed(daily_feed_, "charge_daily", daily_columns(), &batch, daily.size()); !s) return fail(s);
    if (auto s = write_hours(); !s) return fail(s);
    core::Status st;
    Stmt upd(db_, "UPDATE sources SET rows = ?, rejected = ?, warnings = ?, format = ? WHERE id = ?", st);
    if (!st) return fail(st);
    upd.i64(1, rows_);
    upd.i64(2, rejected);
    upd.i64(3, warnings_);
    upd.text(4, format);
    upd.i64(5, source_id_);
    if (sqlite3_step(upd.get()) != SQLITE_DONE) return fail(error("closing the source"));
    // The record as committed, from what this ingest wrote (reading it back costs a scan of the
    // source's rollup): totals per currency, in SQLite's byte order.
    record_.file.format = format;
    record_.rows = rows_;
    record_.rejected = rejected;
    record_.warnings = warnings_;
    std::map<std::int64_t, ledger::CurrencyTotal> totals;
    for (const auto& r : daily) {
      auto& t = totals[r.ids[kCurrencySlot]];
      t.billed += r.sums.billed;
      t.effective += r.sums.effective;
    }
    for (auto& [id, t] : totals) {
      core::Status st;
      Stmt q(db_, "SELECT value FROM strings WHERE id = ?", st);
      if (!st) return fail(st);
      q.i64(1, id);
      if (sqlite3_step(q.get()) != SQLITE_ROW) return fail(error("reading a currency"));
      t.currency = column_text(q.get(), 0);
      record_.totals.push_back(std::move(t));
    }
    std::sort(record_.totals.begin(), record_.totals.end(),
              [](const auto& a, const auto& b) { return a.currency < b.currency; });
    if (auto c = exec("COMMIT"); !c) return fail(c);
    in_tx_ = false;
    // The load's pages are in the log: copy them into the file now, and empty the log, rather
    // than leave a log the size of the load beside the ledger for as long as anyone reads it.
    checkpoint(db_);
    writer_.release();
    return record_;
  }

  core::Result<std::optional<ledger::SourceRecord>> settle_identity(const std::string& sha256, std::int64_t bytes) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "settle_identity outside an ingest");
    auto same = reads_.select_sources("WHERE sha256 = ?", sha256);
    if (!same) return same.error();
    for (const auto& r : *same)
      if (r.id != source_id_) return std::optional<ledger::SourceRecord>(r);
    core::Status st;
    Stmt upd(db_, "UPDATE sources SET sha256 = ?, bytes = ? WHERE id = ?", st);
    if (!st) return st.error();
    upd.text(1, sha256);
    upd.i64(2, bytes);
    upd.i64(3, source_id_);
    if (sqlite3_step(upd.get()) != SQLITE_DONE) return error("recording the source's identity");
    record_.file.sha256 = sha256;
    record_.file.bytes = bytes;
    return std::optional<ledger::SourceRecord>{};
  }

  core::Result<std::vector<std::int64_t>> restate(const std::string& export_key,
                                                  const std::vector<std::string>& periods) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "restate outside an ingest");
    std::vector<EarlierDelivery> earlier;
    {
      core::Status st;
      Stmt q(db_, "SELECT id, COALESCE(periods, '') FROM sources WHERE export_key = ? AND id <> ? ORDER BY id", st);
      if (!st) return st.error();
      q.text(1, export_key);
      q.i64(2, source_id_);
      int rc;
      while ((rc = sqlite3_step(q.get())) == SQLITE_ROW)
        earlier.push_back({sqlite3_column_int64(q.get(), 0), column_text(q.get(), 1)});
      if (rc != SQLITE_DONE) return error("reading earlier deliveries");
    }
    auto gone = restated(earlier, periods);
    if (!gone) return gone.error();
    for (auto id : *gone)
      if (auto s = drop_source(id); !s) return s.error();
    core::Status st;
    Stmt upd(db_, "UPDATE sources SET export_key = ?, periods = ? WHERE id = ?", st);
    if (!st) return st.error();
    const std::string text = periods_text(periods);  // bound without a copy: it must outlive the step
    upd.text(1, export_key);
    upd.text(2, text);
    upd.i64(3, source_id_);
    if (sqlite3_step(upd.get()) != SQLITE_DONE) return error("recording the delivery");
    return gone;
  }

  void rollback() noexcept override {
    if (!in_tx_) return;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    in_tx_ = false;
    writer_.release();
    tagset_ids_.clear();
    raw_ids_.clear();
    max_tagset_ = 0;
    strings_.clear();
    pending_.clear();
    rollup_.clear();
    hours_.clear();
  }

  core::Result<std::vector<ledger::RowIssue>> issues(std::int64_t source_id, std::int64_t limit) override {
    return reads_.issues(source_id, limit);
  }
  core::Result<std::vector<ledger::AggregateRow>> aggregate(const ledger::AggregateQuery& q) override {
    return reads_.aggregate(q);
  }
  core::Result<std::vector<std::vector<ledger::AggregateRow>>> aggregate_each(
      std::span<const ledger::AggregateQuery> queries) override {
    // One scan where it can; else each query in turn, as any store.
    if (!SqliteReads::scans_together(queries)) return ledger::Store::aggregate_each(queries);
    return reads_.aggregate_each(queries);
  }
  core::Status aggregate_into(std::span<const ledger::AggregateQuery> queries, const AggregateSink& sink,
                              std::size_t interleave = 0) override {
    return reads_.aggregate_into(queries, sink, interleave);
  }
  core::Result<std::vector<ledger::HostActivity>> gpu_activity(std::optional<ledger::Day> from,
                                                               std::optional<ledger::Day> to) override {
    return reads_.gpu_activity(from, to);
  }
  core::Result<std::vector<ledger::GpuHour>> gpu_hours(std::optional<ledger::Day> from,
                                                       std::optional<ledger::Day> to) override {
    return reads_.gpu_hours(from, to);
  }
  core::Result<std::vector<ledger::SentAlert>> sent_alerts() override { return alerts_.sent(); }
  // The alerts' writes take the write lock first, as an ingest does: a check waits for a long
  // ingest (saying so) up to the lock timeout, not SQLite's busy timeout.
  core::Status record_sent(std::span<const ledger::SentAlert> alerts) override {
    auto lock = FileLock::acquire(path_, "check", options_);
    if (!lock) return lock.error();
    return alerts_.record(alerts);
  }
  core::Result<std::vector<std::string>> claim_alerts(std::span<const std::string> keys,
                                                      const ledger::AlertClaim& claim) override {
    auto lock = FileLock::acquire(path_, "check", options_);
    if (!lock) return lock.error();
    return alerts_.claim(keys, claim);
  }
  core::Status release_alerts(std::span<const std::string> keys, const std::string& owner) override {
    auto lock = FileLock::acquire(path_, "check", options_);
    if (!lock) return lock.error();
    return alerts_.release(keys, owner);
  }
  core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>> tagsets() override { return reads_.tagsets(); }
  core::Result<std::vector<ledger::ContractCommitment>> commitments() override {
    return sqlite_read_commitments(db_, path_);
  }

  core::Result<ledger::CompactResult> compact() override {
    if (in_tx_) return make_error(ErrorCode::kInternal, "compact inside an open ingest");
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
    out.how = "VACUUM, pages of " + std::to_string(*page / 1024) + " KiB -> " + std::to_string(*page_after / 1024) +
              " KiB";
    return out;
  }

 private:
  // Deletes a source and everything loaded from it, inside the open transaction.
  core::Status drop_source(std::int64_t id) {
    for (const char* table : {"charges", "charge_daily", "gpu_samples", "gpu_hourly", "contract_commitments", "row_issues", "sources"}) {
      core::Status st;
      Stmt del(db_, std::string("DELETE FROM ") + table + (std::string(table) == "sources" ? " WHERE id = ?" : " WHERE source_id = ?"), st);
      if (!st) return st;
      del.i64(1, id);
      if (sqlite3_step(del.get()) != SQLITE_DONE) return error("deleting a replaced source");
    }
    return {};
  }
  core::Status exec(const std::string& sql) { return sqlite_exec(db_, path_, sql); }

  core::Error error(const std::string& what) const { return sqlite_error(db_, path_, what); }
  core::Error fail(const core::Status& s) {
    rollback();
    return s.error();
  }
  core::Error fail(const core::Error& e) {
    rollback();
    return e;
  }

  Stmt* statement(const std::string& name, const std::string& sql) {
    auto it = statements_.find(name);
    if (it != statements_.end()) return &it->second;
    core::Status st;
    Stmt s(db_, sql, st);
    if (!st) return nullptr;
    return &statements_.emplace(name, std::move(s)).first->second;
  }

  core::Status write_hours() {
    auto* s = statement("hour", "INSERT INTO gpu_hourly VALUES (?,?,?,?,?,?,?)");
    if (!s) return error("preparing the hourly telemetry insert");
    for (const auto& h : hours_.rows()) {
      s->i64(1, source_id_);
      s->i64(2, h.hour);
      s->text(3, h.host);
      s->text(4, h.gpu);
      s->text(5, ledger::gpu_metric_name(h.metric));
      s->real(6, h.sum);
      s->i64(7, h.samples);
      if (sqlite3_step(s->get()) != SQLITE_DONE) return error("inserting hourly telemetry");
      sqlite3_reset(s->get());
    }
    hours_.clear();
    return {};
  }

  // Tag sets and strings are never deleted and take ids max + 1, so what other connections
  // committed since the last look has ids above the highest one seen. Called under the write lock.
  core::Status load_tagsets() {
    core::Status st;
    Stmt q(db_, "SELECT id, canonical FROM tagsets WHERE id > ?", st);
    if (!st) return st;
    q.i64(1, max_tagset_);
    while (sqlite3_step(q.get()) == SQLITE_ROW) {
      const std::int64_t id = sqlite3_column_int64(q.get(), 0);
      tagset_ids_[column_text(q.get(), 1)] = id;
      max_tagset_ = std::max(max_tagset_, id);
    }
    return {};
  }

  core::Status load_strings() {
    core::Status st;
    Stmt q(db_, "SELECT id, value FROM strings WHERE id > ?", st);
    if (!st) return st;
    q.i64(1, strings_.max_id());
    int rc;
    while ((rc = sqlite3_step(q.get())) == SQLITE_ROW)
      strings_.add({reinterpret_cast<const char*>(sqlite3_column_blob(q.get(), 1)),
                    static_cast<std::size_t>(sqlite3_column_bytes(q.get(), 1))},
                   sqlite3_column_int64(q.get(), 0));
    if (rc != SQLITE_DONE) return error("reading strings");
    return {};
  }

  // Gives the values of `c` that `ids` lacks the next ids (this connection holds the write lock,
  // and SQLite would number them max + 1 too); add_charges stores them.
  void intern(const ledger::Charge& c, ChargeTextIds& ids) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] != StringIds::kUnknown) continue;
      // An earlier column of this row may have added it: then add() returns its id.
      const auto added = strings_.add(c.*kChargeText[i].field, strings_.max_id() + 1);
      ids[i] = added.id;
      if (added.fresh) pending_.emplace_back(added.id, added.stored);
    }
  }

  // The reader filled the batch's rows thousands of rows ago, and their strings lie all over the
  // heap: reading them is most of the id pass's time. So it asks for the Charge kAhead rows ahead,
  // and for the bytes of the strings of the one half as far ahead (whose pointers are in the lines
  // asked for before).
  static void prefetch_ahead(std::span<const ledger::Charge> rows, std::size_t k) {
    constexpr std::size_t kAhead = 8;
    if (k + kAhead < rows.size()) {
      const char* p = reinterpret_cast<const char*>(&rows[k + kAhead]);
      for (std::size_t line = 0; line < sizeof(ledger::Charge); line += 64) __builtin_prefetch(p + line);
    }
    if (k + kAhead / 2 < rows.size()) {
      const auto& c = rows[k + kAhead / 2];
      for (const auto& t : kChargeText) __builtin_prefetch((c.*t.field).data());
      for (const auto& tag : c.tags) {
        __builtin_prefetch(tag.key.data());
        __builtin_prefetch(tag.value.data());
      }
    }
  }

  // Every row `feed` holds, in one statement: binding each value of a row of integers costs about
  // as much as SQLite's own work on it. OR FAIL: a statement that could stop half way on a UNIQUE
  // or NOT NULL constraint makes SQLite copy each page it changes to a statement journal first,
  // thousands of pages for a batch of new strings landing all over the `strings` index (an
  // error rolls the ingest's transaction back anyway).
  core::Status feed(SqliteFeed& feed, const char* table, const std::string& columns, const void* rows, std::size_t n) {
    if (n == 0) return {};
    Stmt* s = statement(feed.name(), "INSERT OR FAIL INTO " + std::string(table) + " (" + columns +
                                         ") SELECT * FROM " + feed.name());
    if (!s) return error(std::string("preparing the insert into ") + table);
    feed.set_rows(rows, n);
    const bool done = sqlite3_step(s->get()) == SQLITE_DONE;
    const auto e = done ? core::Status{} : core::Status(error(std::string("inserting into ") + table));
    sqlite3_reset(s->get());
    feed.set_rows(nullptr, 0);
    return e;
  }

  core::Result<std::int64_t> tagset_id(const std::vector<ledger::Tag>& tags) {
    if (tags.empty()) return std::int64_t{0};
    if (const auto id = raw_ids_.find(tags); id != RawTagsets::kUnknown) return id;
    const std::string canonical = ledger::tagset_text(tags);
    if (auto it = tagset_ids_.find(canonical); it != tagset_ids_.end()) {
      raw_ids_.add(tags, it->second);
      return it->second;
    }
    auto* ins = statement("tagset", "INSERT INTO tagsets (canonical) VALUES (?)");
    auto* tag = statement("tag", "INSERT OR IGNORE INTO tagset_tags VALUES (?, ?, ?)");
    if (!ins || !tag) return error("preparing the tag inserts");
    ins->text(1, canonical);
    if (sqlite3_step(ins->get()) != SQLITE_DONE) return error("inserting a tag set");
    sqlite3_reset(ins->get());
    const std::int64_t id = sqlite3_last_insert_rowid(db_);
    max_tagset_ = std::max(max_tagset_, id);
    for (const auto& t : tags) {
      const std::string key = ledger::canonical_tag_key(t.key);
      tag->i64(1, id);
      tag->text(2, key);
      tag->text(3, t.value);
      if (sqlite3_step(tag->get()) != SQLITE_DONE) return error("inserting a tag");
      sqlite3_reset(tag->get());
    }
    tagset_ids_.emplace(canonical, id);
    raw_ids_.add(tags, id);
    return id;
  }

  sqlite3* db_;
  std::string path_;
  StoreOptions options_;
  SqliteReads reads_;
  SqliteAlerts alerts_;
  FileLock writer_;  // held from begin_source to commit or rollback
  int version_ = 0;
  bool in_tx_ = false;
  std::int64_t source_id_ = 0, rows_ = 0, warnings_ = 0;
  ledger::SourceRecord record_;  // of the open ingest
  std::unordered_map<std::string, Stmt> statements_;
  std::unordered_map<std::string, std::int64_t> tagset_ids_;  // canonical text -> id
  RawTagsets raw_ids_;  // as written -> id
  std::int64_t max_tagset_ = 0;  // the highest tag set id in tagset_ids_
  StringIds strings_;
  std::vector<NewString> pending_;  // strings to insert (views into strings_)
  IdRollup rollup_;
  SampleRollup hours_;  // this ingest's telemetry by GPU and hour
  SqliteFeed charge_feed_{"aicost_charges_feed", kChargeColumnCount, &charge_column};
  SqliteFeed daily_feed_{"aicost_daily_feed", kDailyColumnCount, &daily_column};
  SqliteFeed string_feed_{"aicost_strings_feed", 2, &string_column};
  std::vector<std::int64_t> tagsets_;  // add_charges' scratch: each row's tag set and string ids
  std::vector<ChargeTextIds> ids_;
};

}  // namespace

core::Result<std::unique_ptr<ledger::Store>> open_sqlite(const std::string& path, const StoreOptions& options) {
  // One connection per store, used by one thread at a time: no per-call mutexes (they cost ~5 % of
  // an ingest), and no global memory statistics.
  static const bool configured = [] { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK; }();
  (void)configured;
  sqlite3* db = nullptr;
  const int create = options.mode == OpenMode::kCreate ? SQLITE_OPEN_CREATE : 0;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | create | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return make_error(ErrorCode::kIo, "cannot open the ledger database: " + msg, path);
  }
  auto store = std::make_unique<SqliteStore>(db, path, options);
  if (auto s = store->init(); !s) return s.error();
  return std::unique_ptr<ledger::Store>(std::move(store));
}

}  // namespace aicost::store
