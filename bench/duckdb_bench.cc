// DuckDB as the ledger's engine, measured against the SQLite store on the same inputs (issue 18,
// docs/LEDGER.md "DuckDB as the ledger's engine"): numbers for a decision, no Store backend.
//  - Ingest: the 1M-row FOCUS CSV of BM_LedgerFocusIngestSqlite, read by the same FOCUS reader and
//    appended to a DuckDB file (DuckDB's Appender, one transaction) after hashing the file as an
//    ingest does; compare with BM_LedgerFocusIngestSqlite in the same run, and with the hash and
//    read alone (BM_LedgerFocusReadOnly).
//  - Reports: the 10M charges of the SQLite report ledger (the same generator and seed) in DuckDB,
//    grouped by team tag and day, and by resource (top 20), straight from the charges (DuckDB keeps
//    no rollup); compare with BM_LedgerReportByTagByDay and BM_LedgerReportByResourceRawScan.
// Tags are stored as SQLite's store does: each distinct tag set once, charges naming its id.
#include <benchmark/benchmark.h>
#include <duckdb.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "ledger_fixtures.h"

namespace {

namespace fs = std::filesystem;
using namespace aicost;

constexpr const char* kSchema =
    "CREATE TABLE charges (period_start TIMESTAMP, period_end TIMESTAMP, currency VARCHAR, billed "
    "BIGINT, "
    "effective BIGINT, list BIGINT, contracted BIGINT, provider VARCHAR, billing_account_id "
    "VARCHAR, "
    "sub_account_id VARCHAR, service_name VARCHAR, service_category VARCHAR, region_id VARCHAR, "
    "resource_id VARCHAR, resource_name VARCHAR, resource_type VARCHAR, sku_id VARCHAR, "
    "charge_category VARCHAR, "
    "charge_frequency VARCHAR, pricing_category VARCHAR, commitment_discount_id VARCHAR, "
    "pricing_unit VARCHAR, "
    "consumed_unit VARCHAR, pricing_quantity DOUBLE, consumed_quantity DOUBLE, gpu_hours DOUBLE, "
    "tagset INTEGER, "
    "line BIGINT);"
    "CREATE TABLE tagset_tags (tagset INTEGER, key VARCHAR, value VARCHAR);";

// A DuckDB file and one connection to it, closed when it goes.
class Duck {
 public:
  Duck(const fs::path& file, const char* threads) {
    duckdb_config config = nullptr;
    duckdb_create_config(&config);
    duckdb_set_config(config, "threads", threads);
    ok_ = duckdb_open_ext(file.string().c_str(), &db_, config, nullptr) == DuckDBSuccess &&
          duckdb_connect(db_, &con_) == DuckDBSuccess;
    duckdb_destroy_config(&config);
  }
  ~Duck() {
    if (con_) duckdb_disconnect(&con_);
    if (db_) duckdb_close(&db_);
  }
  bool ok() const { return ok_; }
  duckdb_connection con() const { return con_; }
  // Runs `sql`; the number of result rows, or -1 on error.
  std::int64_t run(const std::string& sql) {
    duckdb_result r;
    const bool good = duckdb_query(con_, sql.c_str(), &r) == DuckDBSuccess;
    const auto rows = good ? static_cast<std::int64_t>(duckdb_row_count(&r)) : -1;
    duckdb_destroy_result(&r);
    return rows;
  }

 private:
  duckdb_database db_ = nullptr;
  duckdb_connection con_ = nullptr;
  bool ok_ = false;
};

// Appends charges to `charges`, tag sets to `tagset_tags` (each distinct set once).
class ChargeAppender {
 public:
  explicit ChargeAppender(Duck& duck) {
    duckdb_appender_create(duck.con(), nullptr, "charges", &charges_);
    duckdb_appender_create(duck.con(), nullptr, "tagset_tags", &tags_);
  }
  ~ChargeAppender() { close(); }
  bool close() {
    bool ok = true;
    if (charges_) ok = duckdb_appender_destroy(&charges_) == DuckDBSuccess && ok;
    if (tags_) ok = duckdb_appender_destroy(&tags_) == DuckDBSuccess && ok;
    return ok;
  }
  bool add(const ledger::Charge& c) {
    auto text = [&](const std::string& s) {
      duckdb_append_varchar_length(charges_, s.data(), s.size());
    };
    duckdb_append_timestamp(charges_, duckdb_timestamp{c.period_start * 1'000'000});
    duckdb_append_timestamp(charges_, duckdb_timestamp{c.period_end * 1'000'000});
    text(c.currency);
    duckdb_append_int64(charges_, c.billed);
    duckdb_append_int64(charges_, c.effective);
    duckdb_append_int64(charges_, c.list);
    if (c.contracted)
      duckdb_append_int64(charges_, *c.contracted);
    else
      duckdb_append_null(charges_);
    for (const std::string* s :
         {&c.provider, &c.billing_account_id, &c.sub_account_id, &c.service_name,
          &c.service_category, &c.region_id, &c.resource_id, &c.resource_name, &c.resource_type,
          &c.sku_id, &c.charge_category, &c.charge_frequency, &c.pricing_category,
          &c.commitment_discount_id, &c.pricing_unit, &c.consumed_unit})
      text(*s);
    for (const auto& q : {c.pricing_quantity, c.consumed_quantity}) {
      if (q)
        duckdb_append_double(charges_, *q);
      else
        duckdb_append_null(charges_);
    }
    duckdb_append_double(charges_, c.gpu_hours);
    duckdb_append_int32(charges_, tagset(c.tags));
    duckdb_append_int64(charges_, c.line);
    return duckdb_appender_end_row(charges_) == DuckDBSuccess;
  }

 private:
  std::int32_t tagset(const std::vector<ledger::Tag>& tags) {
    key_ = ledger::tagset_text(tags);
    auto [it, fresh] = tagsets_.try_emplace(key_, static_cast<std::int32_t>(tagsets_.size()));
    if (fresh)
      for (const auto& t : tags) {
        const auto k = ledger::canonical_tag_key(t.key);
        duckdb_append_int32(tags_, it->second);
        duckdb_append_varchar_length(tags_, k.data(), k.size());
        duckdb_append_varchar_length(tags_, t.value.data(), t.value.size());
        duckdb_appender_end_row(tags_);
      }
    return it->second;
  }

  duckdb_appender charges_ = nullptr, tags_ = nullptr;
  std::unordered_map<std::string, std::int32_t> tagsets_;
  std::string key_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void remove_duck(const fs::path& file) {
  fs::remove(file);
  fs::remove(file.string() + ".wal");
}

// The FOCUS CSV through the same reader into DuckDB: hash, read, append, commit.
void BM_LedgerFocusIngestDuckdb(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto csv = bench::generate_focus(rows, 42);
  double seconds = 0;
  for (auto _ : state) {
    const auto file = bench::kWork / "ingest.duckdb";
    remove_duck(file);
    Duck duck(file, "1");
    if (!duck.ok() || duck.run(kSchema) < 0) {
      state.SkipWithError("cannot make the DuckDB file");
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto hash = billing::sha256_file(csv.string());
    std::int64_t added = 0;
    bool ok = static_cast<bool>(hash) && duck.run("BEGIN") >= 0;
    {
      ChargeAppender app(duck);
      billing::Sink sink;
      sink.charge = [&](ledger::Charge&& c) {
        ok = app.add(c) && ok;
        ++added;
        return core::Status{};
      };
      ok = static_cast<bool>(billing::read_file(csv.string(), billing::Format::kFocus, sink)) && ok;
      ok = app.close() && ok;
    }
    ok = ok && duck.run("COMMIT") >= 0;
    seconds = seconds_since(t0);
    if (!ok || added != static_cast<std::int64_t>(rows)) {
      state.SkipWithError("the DuckDB ingest failed");
      return;
    }
    state.SetIterationTime(seconds);
    state.counters["duckdb_MB"] = static_cast<double>(fs::file_size(file)) / 1e6;
  }
  state.counters["rows/s"] = static_cast<double>(rows) / seconds;
}
BENCHMARK(BM_LedgerFocusIngestDuckdb)
    ->Arg(1'000'000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

// The same hash and read with no engine behind: what either engine adds is its time less this.
void BM_LedgerFocusReadOnly(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto csv = bench::generate_focus(rows, 42);
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    std::int64_t read = 0;
    billing::Sink sink;
    sink.charge = [&](ledger::Charge&& c) {
      benchmark::DoNotOptimize(c);
      ++read;
      return core::Status{};
    };
    const bool ok = billing::sha256_file(csv.string()) &&
                    billing::read_file(csv.string(), billing::Format::kFocus, sink);
    seconds = seconds_since(t0);
    if (!ok || read != static_cast<std::int64_t>(rows)) {
      state.SkipWithError("the read failed");
      return;
    }
    state.SetIterationTime(seconds);
  }
  state.counters["rows/s"] = static_cast<double>(rows) / seconds;
}
BENCHMARK(BM_LedgerFocusReadOnly)
    ->Arg(1'000'000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

// The 10M charges of bench::ledger_with in DuckDB (kept once made).
fs::path duck_ledger_with(std::size_t rows) {
  const auto file = bench::kWork / ("report-v4-" + std::to_string(rows) + ".duckdb");
  if (fs::exists(file)) {
    Duck duck(file, "2");
    if (duck.ok() && duck.run("SELECT 1 FROM charges OFFSET " + std::to_string(rows - 1)) == 1)
      return file;
  }
  remove_duck(file);
  Duck duck(file, "2");
  if (!duck.ok() || duck.run(kSchema) < 0) return {};
  ChargeAppender app(duck);
  const bool ok = bench::generate_charges(
      rows, [](std::size_t n) { return n / 50; }, 7,
      [&](const std::vector<ledger::Charge>& batch) {
        for (const auto& c : batch)
          if (!app.add(c)) return false;
        return true;
      });
  return ok && app.close() ? file : fs::path();
}

// By team and day, as `aicost ledger report --by tag:team --granularity day` sums them.
constexpr const char* kByTagByDay =
    "SELECT CAST(c.period_start AS DATE) AS day, t.value AS team, c.currency, "
    "SUM(c.billed::HUGEINT), "
    "SUM(c.effective::HUGEINT), SUM(c.list::HUGEINT), SUM(c.contracted::HUGEINT), "
    "SUM(c.gpu_hours), COUNT(*) "
    "FROM charges c LEFT JOIN tagset_tags t ON t.tagset = c.tagset AND t.key = 'team' GROUP BY ALL";
constexpr const char* kByResourceTop20 =
    "SELECT resource_id, currency, SUM(billed::HUGEINT), SUM(effective::HUGEINT) AS e, "
    "SUM(list::HUGEINT), "
    "SUM(gpu_hours), COUNT(*) FROM charges GROUP BY ALL ORDER BY e DESC LIMIT 20";

void report(benchmark::State& state, const char* sql) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto file = duck_ledger_with(rows);
  Duck duck(file, std::to_string(state.range(1)).c_str());
  if (file.empty() || !duck.ok()) {
    state.SkipWithError("could not build the DuckDB ledger");
    return;
  }
  std::int64_t lines = 0;
  for (auto _ : state) {
    lines = duck.run(sql);
    if (lines < 0) {
      state.SkipWithError("the query failed");
      return;
    }
  }
  state.counters["report_lines"] = static_cast<double>(lines);
  state.counters["ledger_rows/s"] = benchmark::Counter(
      static_cast<double>(rows) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_LedgerReportByTagByDayDuckdb(benchmark::State& state) { report(state, kByTagByDay); }
BENCHMARK(BM_LedgerReportByTagByDayDuckdb)
    ->Args({10'000'000, 1})
    ->Args({10'000'000, 2})
    ->Unit(benchmark::kMillisecond);

void BM_LedgerReportByResourceDuckdb(benchmark::State& state) { report(state, kByResourceTop20); }
BENCHMARK(BM_LedgerReportByResourceDuckdb)
    ->Args({10'000'000, 1})
    ->Args({10'000'000, 2})
    ->Unit(benchmark::kMillisecond);

}  // namespace
