// PostgreSQL backend: libpq, one transaction per ingested file, bulk rows through COPY (text format).
// Money columns are BIGINT nano-units; their SUMs come back as NUMERIC text and are parsed exactly.
#include <libpq-fe.h>

#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "aicost/core/text.h"
#include "aicost/store/open.h"
#include "commitments.h"
#include "id_rollup.h"
#include "pg_alerts.h"
#include "pg_conn.h"
#include "pg_lock.h"
#include "pg_reads.h"
#include "recheck.h"
#include "sample_rollup.h"
#include "schema.h"
#include "string_ids.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

// Serialises migrations of every ledger in a database (pg_advisory_xact_lock key, "aicost" in ASCII).
constexpr const char* kMigrationLock = "107105267708788";

class PgStore final : public ledger::Store, private PgConn {
 public:
  PgStore(PGconn* conn, const std::string& url, const StoreOptions& options)
      : PgConn(conn, url, scrub(redact(url), url)), options_(options) {}
  ~PgStore() override {
    rollback();
    PQfinish(conn_);
  }

  core::Status init() {
    // The library never prints: drop libpq's notices ("relation ... already exists, skipping").
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
    if (PQsetClientEncoding(conn_, "UTF8") != 0) return error("setting the client encoding to UTF8", nullptr);
    // Doubles (gpu_hours) in their shortest exact text, as servers before 12 do not by default.
    if (auto r = run("configuring the session", "SET extra_float_digits = 3"); !r) return r.error();
    auto current = applied_version();
    if (!current) return current.error();
    if (*current == 0 && options_.mode == OpenMode::kExisting)
      return make_error(ErrorCode::kNotFound,
                        "there is no aicost ledger in this database (no tables; a schema in its search_path?); load a "
                        "billing export first (aicost ledger ingest FILE) or make an empty ledger (aicost ledger init)",
                        where_);
    if (*current < latest_schema_version()) {
      if (auto s = migrate(); !s) return s;
      current = applied_version();
      if (!current) return current.error();
      if (made_ && options_.on_create) options_.on_create(where_);
    }
    if (*current > latest_schema_version())
      return make_error(ErrorCode::kInvalidInput,
                        "the ledger was written by a newer aicost (schema " + std::to_string(*current) +
                            ", this one knows " + std::to_string(latest_schema_version()) + "); upgrade aicost",
                        where_);
    version_ = *current;
    return {};
  }

  std::string backend() const override { return "postgresql"; }
  int schema_version() const override { return version_; }

  core::Result<std::optional<ledger::SourceRecord>> find_source(const std::string& sha256) override {
    auto all = reads_.select_sources("WHERE s.sha256 = $1", sha256);
    if (!all) return all.error();
    if (all->empty()) return std::optional<ledger::SourceRecord>{};
    return std::optional<ledger::SourceRecord>(all->front());
  }
  core::Result<std::vector<ledger::SourceRecord>> sources_at(const std::string& path) override {
    return reads_.select_sources("WHERE s.path = $1", path);
  }
  core::Result<std::vector<ledger::SourceRecord>> sources() override { return reads_.select_sources("", ""); }

  core::Result<ledger::CompactResult> compact() override {
    if (in_tx_) return make_error(ErrorCode::kInternal, "compact inside an open ingest");
    auto size = [this]() -> core::Result<std::int64_t> {
      auto r = run("measuring the database", "SELECT pg_database_size(current_database())");
      if (!r) return r.error();
      return std::stoll(PQgetvalue(r->get(), 0, 0));
    };
    ledger::CompactResult out;
    auto before = size();
    if (!before) return before.error();
    // VACUUM runs outside a transaction, one table at a time.
    for (const char* table : {"charges", "charge_daily", "strings", "tagsets", "tagset_tags", "gpu_samples",
                              "gpu_hourly", "contract_commitments", "row_issues", "alerts_sent", "sources"})
      if (auto r = run("vacuuming the ledger", std::string("VACUUM (ANALYZE) ") + table); !r) return r.error();
    auto after = size();
    if (!after) return after.error();
    out.bytes_before = *before;
    out.bytes_after = *after;
    out.how = "VACUUM (ANALYZE) of the ledger's tables";
    return out;
  }

  core::Result<std::optional<ledger::SourceRecord>> begin_source(const ledger::SourceFile& file,
                                                                 const std::vector<std::int64_t>& replace) override {
    if (in_tx_) return make_error(ErrorCode::kInternal, "begin_source inside an open ingest");
    if (auto r = run("starting the ingest transaction", "BEGIN"); !r) return r.error();
    in_tx_ = true;
    // One writer at a time; readers are not blocked.
    if (auto s = lock_ledger(*this, conn_, where_, options_, "ingest"); !s) return fail(s.error());
    // Another process may have loaded these bytes, or this path, while this one waited.
    auto same = reads_.select_sources("WHERE s.sha256 = $1", file.sha256);
    if (!same) return fail(same.error());
    auto at_path = reads_.select_sources("WHERE s.path = $1", file.path);
    if (!at_path) return fail(at_path.error());
    if (file.path == "(stdin)") at_path->clear();  // every load of standard input has this name
    auto again = recheck_under_lock(*same, *at_path, replace);
    if (!again || *again) {
      rollback();
      return again;
    }
    for (auto id : replace)
      if (auto s = drop_source(id); !s) return fail(s.error());
    auto ins = run("recording the source",
                   "INSERT INTO sources (path, sha256, bytes, format, loaded_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                   {file.path, file.sha256, std::to_string(file.bytes), file.format, core::utc_now_iso()});
    if (!ins) return fail(ins.error());
    if (PQntuples(ins->get()) != 1 || !cell(ins->get(), 0, 0, source_id_)) return fail(unexpected("recording the source"));
    rows_ = 0;
    warnings_ = 0;
    rollup_.clear();
    hours_.clear();
    if (auto s = load_tagsets(); !s) return fail(s.error());
    if (auto s = load_strings(); !s) return fail(s.error());
    return std::optional<ledger::SourceRecord>{};
  }

  core::Status add_charges(std::span<const ledger::Charge> rows) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_charges outside an ingest");
    // Tag sets first: no other statement can run on the connection while a COPY is open.
    std::vector<std::int64_t> tagsets;
    if (auto s = intern_tagsets(rows, tagsets); !s) return fail(s.error());
    // Then the strings not stored yet, for the same reason.
    std::vector<ChargeTextIds> ids;
    if (auto s = intern_strings(rows, ids); !s) return fail(s.error());
    auto s = copy_in("inserting charges", "charges (" + charge_columns() + ")", rows.size(), [&](std::size_t k, CopyRows& out) {
      const auto& c = rows[k];
      out.i64(source_id_);
      out.i64(c.line);
      out.i64(ledger::day_of(c.period_start));
      out.i64(c.period_start);
      out.i64(c.period_end);
      out.i64(c.billing_period_start);
      out.i64(c.billed);
      out.i64(c.effective);
      out.i64(c.list);
      if (c.contracted) out.i64(*c.contracted); else out.null();
      if (c.pricing_quantity) out.real(*c.pricing_quantity); else out.null();
      if (c.consumed_quantity) out.real(*c.consumed_quantity); else out.null();
      out.real(c.gpu_hours);
      out.i64(tagsets[k]);
      out.text(c.resource_id);
      for (auto id : ids[k]) out.i64(id);
      out.end_row();
    });
    if (!s) return fail(s.error());
    rollup_.add(rows, ids, tagsets);
    rows_ += static_cast<std::int64_t>(rows.size());
    return {};
  }

  core::Status add_samples(std::span<const ledger::GpuSample> samples) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_samples outside an ingest");
    auto s = copy_in("inserting GPU samples", "gpu_samples", samples.size(), [&](std::size_t k, CopyRows& out) {
      const auto& g = samples[k];
      out.i64(source_id_);
      out.i64(g.line);
      out.i64(g.time);
      out.text(ledger::gpu_metric_name(g.metric));
      out.real(g.value);
      for (const std::string* v : {&g.host, &g.gpu, &g.uuid, &g.model_name, &g.ns, &g.pod, &g.container, &g.job})
        out.text(*v);
      out.end_row();
    });
    if (!s) return fail(s.error());
    rows_ += static_cast<std::int64_t>(samples.size());
    hours_.add(samples);
    return {};
  }

  core::Status add_commitments(std::span<const ledger::ContractCommitment> rows) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_commitments outside an ingest");
    if (auto s = pg_insert_commitments(*this, source_id_, rows); !s) return fail(s.error());
    rows_ += static_cast<std::int64_t>(rows.size());
    return {};
  }

  core::Status add_issues(std::span<const ledger::RowIssue> issues) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "add_issues outside an ingest");
    auto s = copy_in("recording row issues", "row_issues", issues.size(), [&](std::size_t k, CopyRows& out) {
      const auto& r = issues[k];
      out.i64(source_id_);
      out.i64(r.line);
      out.text(r.column);
      out.text(ledger::severity_name(r.severity));
      out.text(r.message);
      out.end_row();
    });
    if (!s) return fail(s.error());
    for (const auto& r : issues) warnings_ += r.severity == ledger::RowIssue::Severity::kWarning;
    return {};
  }

  core::Result<ledger::SourceRecord> commit_source(const std::string& format, std::int64_t rejected) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "commit_source outside an ingest");
    if (auto s = rollup_.check_fits(); !s) return fail(s.error());
    const auto daily = rollup_.rows();
    auto s = copy_in("inserting the daily rollup", "charge_daily (" + daily_columns() + ")", daily.size(),
                     [&](std::size_t k, CopyRows& out) {
      const auto& r = daily[k];
      out.i64(source_id_);
      out.i64(r.day);
      for (auto id : r.ids) out.i64(id);
      out.i64(r.tagset);
      for (auto v : {r.sums.billed, r.sums.effective, r.sums.list, r.sums.contracted}) out.i64(static_cast<std::int64_t>(v));
      out.real(r.sums.gpu_hours);
      out.i64(r.sums.rows);
      out.end_row();
    });
    if (!s) return fail(s.error());
    const auto hours = hours_.rows();
    hours_.clear();
    s = copy_in("inserting hourly telemetry", "gpu_hourly", hours.size(), [&](std::size_t k, CopyRows& out) {
      const auto& h = hours[k];
      out.i64(source_id_);
      out.i64(h.hour);
      out.text(h.host);
      out.text(h.gpu);
      out.text(ledger::gpu_metric_name(h.metric));
      out.real(h.sum);
      out.i64(h.samples);
      out.end_row();
    });
    if (!s) return fail(s.error());
    if (auto r = run("closing the source", "UPDATE sources SET rows = $1, rejected = $2, warnings = $3, format = $4 WHERE id = $5",
                     {std::to_string(rows_), std::to_string(rejected), std::to_string(warnings_), format,
                      std::to_string(source_id_)});
        !r)
      return fail(r.error());
    if (auto r = run("committing the ingest", "COMMIT"); !r) return fail(r.error());
    in_tx_ = false;
    auto rec = reads_.select_sources("WHERE s.id = $1", std::to_string(source_id_));
    if (!rec) return rec.error();
    if (rec->empty()) return make_error(ErrorCode::kInternal, "the committed source vanished");
    return rec->front();
  }

  core::Result<std::optional<ledger::SourceRecord>> settle_identity(const std::string& sha256, std::int64_t bytes) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "settle_identity outside an ingest");
    auto same = reads_.select_sources("WHERE s.sha256 = $1", sha256);
    if (!same) return same.error();
    for (const auto& r : *same)
      if (r.id != source_id_) return std::optional<ledger::SourceRecord>(r);
    if (auto r = run("recording the source's identity", "UPDATE sources SET sha256 = $1, bytes = $2 WHERE id = $3",
                     {sha256, std::to_string(bytes), std::to_string(source_id_)});
        !r)
      return r.error();
    return std::optional<ledger::SourceRecord>{};
  }

  core::Result<std::vector<std::int64_t>> restate(const std::string& export_key,
                                                  const std::vector<std::string>& periods) override {
    if (!in_tx_) return make_error(ErrorCode::kInternal, "restate outside an ingest");
    auto q = run("reading earlier deliveries",
                 "SELECT id, COALESCE(periods, '') FROM sources WHERE export_key = $1 AND id <> $2 ORDER BY id",
                 {export_key, std::to_string(source_id_)});
    if (!q) return q.error();
    std::vector<EarlierDelivery> earlier;
    for (int i = 0; i < PQntuples(q->get()); ++i)
      earlier.push_back({std::stoll(PQgetvalue(q->get(), i, 0)), PQgetvalue(q->get(), i, 1)});
    auto gone = restated(earlier, periods);
    if (!gone) return gone.error();
    for (auto id : *gone)
      if (auto s = drop_source(id); !s) return s.error();
    if (auto r = run("recording the delivery", "UPDATE sources SET export_key = $1, periods = $2 WHERE id = $3",
                     {export_key, periods_text(periods), std::to_string(source_id_)});
        !r)
      return r.error();
    return gone;
  }

  void rollback() noexcept override {
    if (!in_tx_) return;
    in_tx_ = false;
    tagset_ids_.clear();
    tagsets_loaded_ = false;
    strings_.clear();
    rollup_.clear();
    hours_.clear();
    if (PQstatus(conn_) != CONNECTION_OK) return;  // the server ends a lost session's transaction itself
    if (PQtransactionStatus(conn_) == PQTRANS_ACTIVE) {  // a COPY left open: abort it first
      PQputCopyEnd(conn_, "rolled back");
      while (PGresult* r = PQgetResult(conn_)) PQclear(r);
    }
    PQclear(PQexec(conn_, "ROLLBACK"));
  }

  core::Result<std::vector<ledger::RowIssue>> issues(std::int64_t source_id, std::int64_t limit) override {
    return reads_.issues(source_id, limit);
  }
  core::Result<std::vector<ledger::AggregateRow>> aggregate(const ledger::AggregateQuery& q) override {
    return reads_.aggregate(q);
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
  core::Status record_sent(std::span<const ledger::SentAlert> alerts) override { return alerts_.record(alerts); }
  core::Result<std::vector<std::string>> claim_alerts(std::span<const std::string> keys,
                                                      const ledger::AlertClaim& claim) override {
    return alerts_.claim(keys, claim);
  }
  core::Status release_alerts(std::span<const std::string> keys, const std::string& owner) override {
    return alerts_.release(keys, owner);
  }
  core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>> tagsets() override { return reads_.tagsets(); }
  core::Result<std::vector<ledger::ContractCommitment>> commitments() override { return pg_read_commitments(*this); }

 private:
  // Deletes a source and everything loaded from it, inside the open transaction.
  core::Status drop_source(std::int64_t id) {
    for (const char* table : {"charges", "charge_daily", "gpu_samples", "gpu_hourly", "contract_commitments", "row_issues", "sources"}) {
      const std::string sql = std::string("DELETE FROM ") + table +
                              (std::string(table) == "sources" ? " WHERE id = $1" : " WHERE source_id = $1");
      if (auto r = run("deleting a replaced source", sql, {std::to_string(id)}); !r) return r.error();
    }
    return {};
  }
  core::Error fail(const core::Error& e) {
    rollback();
    return e;
  }

  core::Result<int> applied_version() {
    auto exists = run("reading the schema version", "SELECT to_regclass('schema_migrations') IS NOT NULL");
    if (!exists) return exists.error();
    if (std::string(PQgetvalue(exists->get(), 0, 0)) != "t") return 0;
    auto r = run("reading the schema version", "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    if (!r) return r.error();
    int v = 0;
    if (PQntuples(r->get()) != 1 || !cell(r->get(), 0, 0, v)) return unexpected("reading the schema version");
    return v;
  }

  // All pending migrations in one transaction (PostgreSQL's DDL is transactional), under a lock so
  // two processes opening a new ledger at once do not both create it.
  core::Status migrate() {
    if (auto r = run("starting the migration", "BEGIN"); !r) return r.error();
    in_tx_ = true;
    if (auto r = run("locking for the migration", "SELECT pg_advisory_xact_lock($1)", {kMigrationLock}); !r)
      return fail(r.error());
    if (auto r = run("creating schema_migrations", "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER "
                                                   "PRIMARY KEY, applied_at TEXT NOT NULL)");
        !r)
      return fail(r.error());
    auto current = applied_version();
    if (!current) return fail(current.error());
    made_ = *current == 0;  // this process makes the ledger (not one that migrated it meanwhile)
    for (const auto& m : migrations(Dialect::kPostgres)) {
      if (m.version <= *current) continue;
      // Several statements, no values: the simple-query protocol takes them in one call.
      PgResult r(PQexec(conn_, m.sql.c_str()));
      if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK)
        return fail(error("applying migration " + std::to_string(m.version), r.get()));
      if (auto ins = run("recording a migration", "INSERT INTO schema_migrations VALUES ($1, $2)",
                         {std::to_string(m.version), core::utc_now_iso()});
          !ins)
        return fail(ins.error());
    }
    if (auto r = run("committing the migration", "COMMIT"); !r) return fail(r.error());
    in_tx_ = false;
    return {};
  }

  core::Status load_tagsets() {
    if (tagsets_loaded_) return {};
    auto r = run("reading tag sets", "SELECT id, canonical FROM tagsets");
    if (!r) return r.error();
    for (int row = 0; row < PQntuples(r->get()); ++row) {
      std::int64_t id = 0;
      if (!cell(r->get(), row, 0, id)) return unexpected("reading tag sets");
      tagset_ids_[PQgetvalue(r->get(), row, 1)] = id;
    }
    tagsets_loaded_ = true;
    return {};
  }

  // The tag set id of every row. Sets not seen before are stored in one statement whose values are
  // four array parameters: one round trip per set, or a VALUES list of thousands of parameters,
  // cost more than the FOCUS sample's 1000 rows. A tag names its set by the set's number in $1,
  // not by its text: a set of k tags would send its text k times, memory growing with k squared.
  // ON CONFLICT finds a set another connection stored after the cache was loaded (and keeps the
  // stored text, so a digest shared by two texts is an error below, never a changed tag set).
  core::Status intern_tagsets(std::span<const ledger::Charge> rows, std::vector<std::int64_t>& ids) {
    ids.assign(rows.size(), 0);
    std::vector<std::string> canonical(rows.size());
    std::unordered_map<std::string_view, std::size_t> fresh;  // canonical text -> its number in $1
    std::vector<const std::string*> numbered;                 // number - 1 -> canonical text
    std::string sets, set_of_tag, keys, values;               // array literals
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (rows[k].tags.empty()) continue;
      canonical[k] = ledger::tagset_text(rows[k].tags);
      if (tagset_ids_.count(canonical[k]) || !fresh.emplace(canonical[k], numbered.size() + 1).second) continue;
      numbered.push_back(&canonical[k]);
      array_add(sets, canonical[k]);  // first seen first, as SQLite numbers them
      const std::string number = std::to_string(numbered.size());
      std::set<std::pair<std::string, std::string_view>> pairs;  // canonical keys can collide ("Team", "team")
      for (const auto& t : rows[k].tags) pairs.emplace(ledger::canonical_tag_key(t.key), t.value);
      for (const auto& [key, value] : pairs) {
        if (!set_of_tag.empty()) set_of_tag += ',';
        set_of_tag += number;
        array_add(keys, key);
        array_add(values, value);
      }
    }
    if (!fresh.empty()) {
      auto r = run("inserting tag sets",
                   "WITH u AS (SELECT c, n FROM unnest($1::text[]) WITH ORDINALITY AS u (c, n)), s AS (INSERT INTO "
                   "tagsets (canonical) SELECT c FROM u ORDER BY n ON CONFLICT ((aicost_digest(canonical))) DO UPDATE "
                   "SET canonical = tagsets.canonical RETURNING id, canonical), i AS (SELECT s.id, u.n FROM s JOIN u "
                   "ON u.c = s.canonical), t AS (INSERT INTO tagset_tags SELECT i.id, v.key, v.value FROM i JOIN "
                   "unnest($2::bigint[], $3::text[], $4::text[]) AS v (n, key, value) USING (n) ON CONFLICT DO "
                   "NOTHING) SELECT id, n FROM i",
                   {"{" + sets + "}", "{" + set_of_tag + "}", "{" + keys + "}", "{" + values + "}"});
      if (!r) return r.error();
      for (int row = 0; row < PQntuples(r->get()); ++row) {
        std::int64_t id = 0;
        std::size_t n = 0;
        if (!cell(r->get(), row, 0, id) || !cell(r->get(), row, 1, n) || n < 1 || n > numbered.size())
          return unexpected("inserting tag sets");
        tagset_ids_[*numbered[n - 1]] = id;
      }
    }
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (rows[k].tags.empty()) continue;
      const auto it = tagset_ids_.find(canonical[k]);
      if (it == tagset_ids_.end()) return unexpected("inserting tag sets");
      ids[k] = it->second;
    }
    return {};
  }

  // Strings other connections stored since this one last looked: ids only grow, and writers take
  // turns under the lock that begin_source holds, so those are the ones above the highest seen.
  core::Status load_strings() {
    auto r = run("reading strings", "SELECT id, value FROM strings WHERE id > $1", {std::to_string(strings_.max_id())});
    if (!r) return r.error();
    for (int row = 0; row < PQntuples(r->get()); ++row) {
      std::int64_t id = 0;
      if (!cell(r->get(), row, 0, id)) return unexpected("reading strings");
      strings_.add({PQgetvalue(r->get(), row, 1), static_cast<std::size_t>(PQgetlength(r->get(), row, 1))}, id);
    }
    return {};
  }

  // The string ids of every row. Strings not seen before are stored in one statement (an array
  // parameter); ON CONFLICT finds one another connection stored after the cache was loaded (and
  // keeps the stored text, as for tag sets).
  core::Status intern_strings(std::span<const ledger::Charge> rows, std::vector<ChargeTextIds>& ids) {
    ids.resize(rows.size());
    std::unordered_set<std::string_view> fresh;  // the new values, each once
    std::string values;  // array literal
    std::vector<std::size_t> incomplete;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (strings_.find(rows[k], ids[k])) continue;
      incomplete.push_back(k);
      for (std::size_t i = 0; i < kChargeTextCount; ++i) {
        if (ids[k][i] != StringIds::kUnknown) continue;
        const std::string& v = rows[k].*kChargeText[i].field;
        if (fresh.insert(v).second) array_add(values, v);
      }
    }
    if (incomplete.empty()) return {};
    auto r = run("inserting strings",
                 "INSERT INTO strings (value) SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u (v, n) ORDER BY n "
                 "ON CONFLICT ((aicost_digest(value))) DO UPDATE SET value = strings.value RETURNING id, value",
                 {"{" + values + "}"});
    if (!r) return r.error();
    for (int row = 0; row < PQntuples(r->get()); ++row) {
      std::int64_t id = 0;
      if (!cell(r->get(), row, 0, id)) return unexpected("inserting strings");
      strings_.add({PQgetvalue(r->get(), row, 1), static_cast<std::size_t>(PQgetlength(r->get(), row, 1))}, id);
    }
    for (auto k : incomplete)
      if (!strings_.find(rows[k], ids[k])) return unexpected("inserting strings");
    return {};
  }

  StoreOptions options_;
  bool made_ = false;  // migrate() made the ledger's tables
  PgReads reads_{*this};
  PgAlerts alerts_{*this};
  int version_ = 0;
  bool in_tx_ = false;
  std::int64_t source_id_ = 0, rows_ = 0, warnings_ = 0;
  std::unordered_map<std::string, std::int64_t> tagset_ids_;
  bool tagsets_loaded_ = false;
  StringIds strings_;
  IdRollup rollup_;
  SampleRollup hours_;  // this ingest's telemetry by GPU and hour
};

}  // namespace

core::Result<std::unique_ptr<ledger::Store>> open_postgres(const std::string& url, const StoreOptions& options) {
  const std::string where = scrub(redact(url), url);
  PGconn* conn = PQconnectdb(url.c_str());
  if (!conn) return make_error(ErrorCode::kIo, "cannot connect to PostgreSQL: out of memory", where);
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string msg = one_line(PQerrorMessage(conn));
    PQfinish(conn);
    return make_error(ErrorCode::kIo,
                      scrub("cannot connect to PostgreSQL: " + msg +
                                "; check that the server is running and that the URL's host, port, database, user "
                                "and password are right",
                            url),
                      where);
  }
  auto store = std::make_unique<PgStore>(conn, url, options);
  if (auto s = store->init(); !s) return s.error();
  return std::unique_ptr<ledger::Store>(std::move(store));
}

}  // namespace aicost::store
