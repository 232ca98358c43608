// PostgreSQL backend: libpq, one transaction per ingested file, bulk rows through COPY (text
// format). Money columns are BIGINT nano-units; their SUMs come back as NUMERIC text and are parsed
// exactly.
#include <libpq-fe.h>

#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "aicost/store/open.h"
#include "ledger_base.h"
#include "pg_conn.h"
#include "pg_lock.h"
#include "pg_reads.h"
#include "schema.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

// Serialises migrations of every ledger in a database (pg_advisory_xact_lock key, "aicost" in
// ASCII).
constexpr const char* kMigrationLock = "107105267708788";

// A bulk load's rows as COPY text.
class CopySink final : public RowSink {
 public:
  CopyRows* rows = nullptr;
  void i64(std::int64_t v) override { rows->i64(v); }
  void real(double v) override { rows->real(v); }
  void text(std::string_view v) override { rows->text(v); }
  void null() override { rows->null(); }
  void end_row() override { rows->end_row(); }
};

class PgStore final : public LedgerBase, private PgConn {
 public:
  PgStore(PGconn* conn, const std::string& url, const StoreOptions& options)
      : LedgerBase(options), PgConn(conn, url, scrub(redact(url), url)) {}
  ~PgStore() override {
    rollback();
    PQfinish(conn_);
  }

  core::Status init() {
    // The library never prints: drop libpq's notices ("relation ... already exists, skipping").
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
    if (PQsetClientEncoding(conn_, "UTF8") != 0)
      return error("setting the client encoding to UTF8", nullptr);
    // Doubles (gpu_hours) in their shortest exact text, as servers before 12 do not by default.
    if (auto r = run("configuring the session", "SET extra_float_digits = 3"); !r) return r.error();
    if (options_.mode == OpenMode::kReadOnly)
      if (auto r = run("making the session read-only", "SET default_transaction_read_only = on");
          !r)
        return r.error();
    return open_schema(where_);
  }

  std::string backend() const override { return "postgresql"; }

  core::Result<ledger::CompactResult> compact() override {
    if (in_ingest()) return make_error(ErrorCode::kInternal, "compact inside an open ingest");
    auto size = [this]() -> core::Result<std::int64_t> {
      auto r = run("measuring the database", "SELECT pg_database_size(current_database())");
      if (!r) return r.error();
      return std::stoll(PQgetvalue(r->get(), 0, 0));
    };
    ledger::CompactResult out;
    auto before = size();
    if (!before) return before.error();
    // VACUUM runs outside a transaction, one table at a time.
    for (const char* table :
         {"charges", "charge_daily", "charge_daily_merged", "charge_resource_daily", "strings",
          "tagsets", "tagset_tags", "gpu_samples", "gpu_hourly", "contract_commitments",
          "row_issues", "alerts_sent", "source_totals", "sources"})
      if (auto r = run("vacuuming the ledger", std::string("VACUUM (ANALYZE) ") + table); !r)
        return r.error();
    auto after = size();
    if (!after) return after.error();
    out.bytes_before = *before;
    out.bytes_after = *after;
    out.how = "VACUUM (ANALYZE) of the ledger's tables";
    return out;
  }

  core::Result<std::vector<ledger::AggregateRow>> aggregate(
      const ledger::AggregateQuery& q) override {
    return reads_.aggregate(q);
  }
  core::Status aggregate_into(std::span<const ledger::AggregateQuery> queries,
                              const AggregateSink& sink, std::size_t interleave = 0,
                              std::size_t interleave_from = 0) override {
    return reads_.aggregate_into(queries, sink, interleave, interleave_from);
  }

 protected:
  Dialect dialect() const override { return Dialect::kPostgres; }

  core::Result<SqlRows> query(const char* what, const std::string& sql,
                              const std::vector<SqlParam>& params) override {
    std::vector<std::string> texts;
    std::vector<const char*> values;
    texts.reserve(params.size());
    for (const auto& p : params) {
      if (std::holds_alternative<std::nullptr_t>(p)) {
        texts.emplace_back();
        continue;
      }
      if (const auto* v = std::get_if<std::int64_t>(&p))
        texts.push_back(std::to_string(*v));
      else if (const auto* t = std::get_if<std::string_view>(&p))
        texts.emplace_back(*t);
      else {
        CopyRows shortest;  // the double's shortest exact text
        shortest.real(std::get<double>(p));
        texts.push_back(shortest.data().substr(0, shortest.data().size() - 1));
      }
      if (texts.back().find('\0') != std::string::npos)
        return make_error(
            ErrorCode::kInvalidInput,
            std::string("a value contains a NUL byte, which PostgreSQL text cannot hold, while ") +
                what,
            where_);
    }
    std::size_t i = 0;
    for (const auto& p : params) {
      values.push_back(std::holds_alternative<std::nullptr_t>(p) ? nullptr : texts[i].c_str());
      ++i;
    }
    PgResult r(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                            values.data(), nullptr, nullptr, 0));
    const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return error(what, r.get());
    SqlRows out;
    out.rows.resize(static_cast<std::size_t>(PQntuples(r.get())));
    for (int row = 0; row < PQntuples(r.get()); ++row)
      for (int c = 0; c < PQnfields(r.get()); ++c)
        out.rows[row].emplace_back(
            PQgetisnull(r.get(), row, c)
                ? SqlRows::Cell(nullptr)
                : SqlRows::Cell(
                      std::string(PQgetvalue(r.get(), row, c),
                                  static_cast<std::size_t>(PQgetlength(r.get(), row, c)))));
    return out;
  }
  // Several statements, no values: the simple-query protocol takes them in one call.
  core::Status script(const char* what, const std::string& sql) override {
    PgResult r(PQexec(conn_, sql.c_str()));
    if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) return error(what, r.get());
    return {};
  }
  core::Result<int> applied_version() override {
    auto exists =
        run("reading the schema version", "SELECT to_regclass('schema_migrations') IS NOT NULL");
    if (!exists) return exists.error();
    if (std::string(PQgetvalue(exists->get(), 0, 0)) != "t") return 0;
    auto r = run("reading the schema version",
                 "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    if (!r) return r.error();
    int v = 0;
    if (PQntuples(r->get()) != 1 || !cell(r->get(), 0, 0, v))
      return unexpected("reading the schema version");
    return v;
  }
  core::Error no_ledger() const override {
    return make_error(ErrorCode::kNotFound,
                      "there is no aicost ledger in this database (no tables; a schema in its "
                      "search_path?); load a "
                      "billing export first (aicost ledger ingest FILE) or make an empty ledger "
                      "(aicost ledger init)",
                      where_);
  }

  // One writer at a time (readers are not blocked): an ingest or a check takes the ledger's lock
  // in its transaction (pg_lock.h); a migration, which may make the tables that lock names, an
  // advisory lock on every ledger of the database.
  core::Status begin_write(Writer who) override {
    days_.clear();  // partitions made by a transaction rolled back are gone
    if (auto r = run("starting a write transaction", "BEGIN"); !r) return r.error();
    core::Status s;
    if (who == Writer::kIngest)
      s = lock_ledger(*this, conn_, where_, options_, "ingest");
    else if (who == Writer::kMigration)
      if (auto r = run("locking for the migration", "SELECT pg_advisory_xact_lock($1)",
                       {kMigrationLock});
          !r)
        s = r.error();
    if (!s) rollback_write();
    return s;
  }
  core::Status commit_write() override {
    if (auto r = run("committing", "COMMIT"); !r) return r.error();
    return {};
  }
  void rollback_write() noexcept override {
    if (PQstatus(conn_) != CONNECTION_OK)
      return;  // the server ends a lost session's transaction itself
    if (PQtransactionStatus(conn_) == PQTRANS_ACTIVE) {  // a COPY left open: abort it first
      PQputCopyEnd(conn_, "rolled back");
      while (PGresult* r = PQgetResult(conn_)) PQclear(r);
    }
    PQclear(PQexec(conn_, "ROLLBACK"));
  }
  // A deadlock, serialization failure or lock timeout ends the transaction; another try may pass.
  bool transient_failure() const override {
    const std::string& state = last_sqlstate();
    return state == "40001" || state == "40P01" || state == "55P03";
  }

  core::Status load(const char* what, const char* table, int, std::size_t n,
                    const RowWriter& write) override {
    CopySink sink;
    return copy_in(what, table, n, [&](std::size_t k, CopyRows& out) {
      sink.rows = &out;
      write(k, sink);
    });
  }
  core::Status load_charges(std::int64_t source, std::span<const ledger::Charge> rows,
                            const std::int64_t* tagsets, const ChargeTextIds* ids) override {
    // `charges` is partitioned by month (schema 6): the batch's months need their partitions first.
    std::string days;
    for (const auto& c : rows)
      if (const auto day = ledger::day_of(c.period_start); days_.insert(day).second) {
        if (!days.empty()) days += ',';
        days += std::to_string(day);
      }
    if (!days.empty())
      if (auto r = run("making the charges' monthly partitions",
                       "SELECT aicost_charges_month(d) FROM unnest($1::integer[]) AS u (d)",
                       {"{" + days + "}"});
          !r)
        return r.error();
    return copy_in("inserting charges", "charges (" + charge_columns() + ")", rows.size(),
                   [&](std::size_t k, CopyRows& out) {
                     const auto& c = rows[k];
                     out.i64(source);
                     out.i64(c.line);
                     out.i64(ledger::day_of(c.period_start));
                     out.i64(c.period_start);
                     out.i64(c.period_end);
                     out.i64(c.billing_period_start);
                     out.i64(c.billed);
                     out.i64(c.effective);
                     out.i64(c.list);
                     if (c.contracted)
                       out.i64(*c.contracted);
                     else
                       out.null();
                     if (c.pricing_quantity)
                       out.real(*c.pricing_quantity);
                     else
                       out.null();
                     if (c.consumed_quantity)
                       out.real(*c.consumed_quantity);
                     else
                       out.null();
                     out.real(c.gpu_hours);
                     out.i64(tagsets[k]);
                     out.text(c.resource_id);
                     for (auto id : ids[k]) out.i64(id);
                     out.end_row();
                   });
  }
  core::Status load_daily(std::int64_t source, std::span<const IdRollupRow> daily) override {
    return copy_in(
        "inserting the daily rollup", "charge_daily (" + daily_columns() + ")", daily.size(),
        [&](std::size_t k, CopyRows& out) {
          const auto& r = daily[k];
          out.i64(source);
          out.i64(r.day);
          for (auto id : r.ids) out.i64(id);
          out.i64(r.tagset);
          for (auto v : {r.sums.billed, r.sums.effective, r.sums.list, r.sums.contracted})
            out.i64(static_cast<std::int64_t>(v));
          out.real(r.sums.gpu_hours);
          out.i64(r.sums.rows);
          out.real(r.sums.consumed_quantity);
          out.end_row();
        });
  }

  // New strings in one statement (an array parameter); ON CONFLICT finds one another connection
  // stored after the cache was loaded and keeps the stored text, so a digest shared by two texts
  // is an error (no id for the value sent), never a changed string.
  core::Result<std::vector<std::int64_t>> store_strings(std::span<const std::string_view> values,
                                                        std::int64_t) override {
    std::string array;
    std::unordered_map<std::string_view, std::size_t> place;
    for (std::size_t i = 0; i < values.size(); ++i) {
      array_add(array, values[i]);
      place.emplace(values[i], i);
    }
    auto r = run("inserting strings",
                 "INSERT INTO strings (value) SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS "
                 "u (v, n) ORDER BY n "
                 "ON CONFLICT ((aicost_digest(value))) DO UPDATE SET value = strings.value "
                 "RETURNING id, value",
                 {"{" + array + "}"});
    if (!r) return r.error();
    std::vector<std::int64_t> ids(values.size(), 0);
    for (int row = 0; row < PQntuples(r->get()); ++row) {
      std::int64_t id = 0;
      const auto it = place.find(
          {PQgetvalue(r->get(), row, 1), static_cast<std::size_t>(PQgetlength(r->get(), row, 1))});
      if (!cell(r->get(), row, 0, id) || it == place.end()) return unexpected("inserting strings");
      ids[it->second] = id;
    }
    for (auto id : ids)
      if (id == 0) return unexpected("inserting strings");
    return ids;
  }

  // New tag sets in one statement whose values are four array parameters: one round trip per set,
  // or a VALUES list of thousands of parameters, cost more than the FOCUS sample's 1000 rows. A
  // tag names its set by the set's number in $1, not by its text: a set of k tags would send its
  // text k times, memory growing with k squared. ON CONFLICT as for strings.
  core::Result<std::vector<std::int64_t>> store_tagsets(
      std::span<const NewTagset> new_sets) override {
    std::string sets, set_of_tag, keys, values;  // array literals
    for (std::size_t i = 0; i < new_sets.size(); ++i) {
      array_add(sets, new_sets[i].canonical);  // first seen first, as SQLite numbers them
      const std::string number = std::to_string(i + 1);
      std::set<std::pair<std::string, std::string_view>>
          pairs;  // canonical keys can collide ("Team", "team")
      for (const auto& t : *new_sets[i].tags)
        pairs.emplace(ledger::canonical_tag_key(t.key), t.value);
      for (const auto& [key, value] : pairs) {
        if (!set_of_tag.empty()) set_of_tag += ',';
        set_of_tag += number;
        array_add(keys, key);
        array_add(values, value);
      }
    }
    auto r = run("inserting tag sets",
                 "WITH u AS (SELECT c, n FROM unnest($1::text[]) WITH ORDINALITY AS u (c, n)), s "
                 "AS (INSERT INTO "
                 "tagsets (canonical) SELECT c FROM u ORDER BY n ON CONFLICT "
                 "((aicost_digest(canonical))) DO UPDATE "
                 "SET canonical = tagsets.canonical RETURNING id, canonical), i AS (SELECT s.id, "
                 "u.n FROM s JOIN u "
                 "ON u.c = s.canonical), t AS (INSERT INTO tagset_tags SELECT i.id, v.key, v.value "
                 "FROM i JOIN "
                 "unnest($2::bigint[], $3::text[], $4::text[]) AS v (n, key, value) USING (n) ON "
                 "CONFLICT DO "
                 "NOTHING) SELECT id, n FROM i",
                 {"{" + sets + "}", "{" + set_of_tag + "}", "{" + keys + "}", "{" + values + "}"});
    if (!r) return r.error();
    std::vector<std::int64_t> ids(new_sets.size(), 0);
    for (int row = 0; row < PQntuples(r->get()); ++row) {
      std::int64_t id = 0;
      std::size_t n = 0;
      if (!cell(r->get(), row, 0, id) || !cell(r->get(), row, 1, n) || n < 1 || n > new_sets.size())
        return unexpected("inserting tag sets");
      ids[n - 1] = id;
    }
    for (auto id : ids)
      if (id == 0) return unexpected("inserting tag sets");
    return ids;
  }

 private:
  std::unordered_set<ledger::Day> days_;  // days whose month has its partition, this transaction
  PgReads reads_{*this, [this] { return tagsets(); }};
};

}  // namespace

core::Result<std::unique_ptr<ledger::Store>> open_postgres(const std::string& url,
                                                           const StoreOptions& options) {
  const std::string where = scrub(redact(url), url);
  PGconn* conn = PQconnectdb(url.c_str());
  if (!conn)
    return make_error(ErrorCode::kIo, "cannot connect to PostgreSQL: out of memory", where);
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string msg = one_line(PQerrorMessage(conn));
    PQfinish(conn);
    return make_error(
        ErrorCode::kIo,
        scrub(
            "cannot connect to PostgreSQL: " + msg +
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
