// Ledger speed: FOCUS ingest into SQLite against sqlite3's own .import of the same CSV, and a
// by-tag, by-day report over 10M rows. Inputs are generated from the FOCUS sample's own rows
// (../shared/data/billing-samples/focus-sample-data), so value shapes and tag mixes are real.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "aicost/ledger/report.h"
#include "aicost/store/open.h"
#include "ledger_fixtures.h"

namespace {

namespace fs = std::filesystem;
using namespace aicost;
using aicost::bench::kWork;
using aicost::bench::ledger_with;

using aicost::bench::kSample;

// The sample split into header and records (RFC 4180; the sample has quoted JSON tags).
std::vector<std::vector<std::string>> sample_records() {
  std::ifstream in(kSample, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"')
      quoted = true;
    else if (c == ',')
      rows.back().push_back(std::move(field)), field.clear();
    else if (c == '\n')
      rows.back().push_back(std::move(field)), field.clear(), rows.emplace_back();
    else if (c != '\r')
      field += c;
  }
  if (!field.empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

void write_field(std::FILE* f, const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) {
    std::fwrite(v.data(), 1, v.size(), f);
    return;
  }
  std::fputc('"', f);
  for (char c : v) {
    if (c == '"') std::fputc('"', f);
    std::fputc(c, f);
  }
  std::fputc('"', f);
}

}  // namespace

fs::path aicost::bench::generate_focus(std::size_t rows, std::uint64_t seed) {
  fs::create_directories(kWork);
  const fs::path out = kWork / ("focus-" + std::to_string(rows) + ".csv");
  if (fs::exists(out)) return out;
  const auto sample = sample_records();
  const auto& header = sample[0];
  auto col = [&](const char* n) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == n) return i;
    return header.size();
  };
  const std::size_t start = col("ChargePeriodStart"), end = col("ChargePeriodEnd"),
                    resource = col("ResourceId"), tags = col("Tags"), billed = col("BilledCost"),
                    effective = col("EffectiveCost"), list = col("ListCost");
  static const char* kTeams[] = {"search", "ads",  "llm-train", "llm-serve", "vision", "speech",
                                 "infra",  "data", "research",  "safety",    "growth", "platform"};
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> scale(0.0, 1.0);
  std::FILE* f = std::fopen(out.string().c_str(), "wb");
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (i) std::fputc(',', f);
    write_field(f, header[i]);
  }
  std::fputc('\n', f);
  std::vector<std::string> r;
  char buf[64];
  for (std::size_t n = 0; n < rows; ++n) {
    r = sample[1 + rng() % (sample.size() - 1)];
    const int day = static_cast<int>(rng() % 30) + 1, hour = static_cast<int>(rng() % 24);
    std::snprintf(buf, sizeof buf, "2024-09-%02d %02d:00:00", day, hour);
    r[start] = buf;
    std::snprintf(buf, sizeof buf, "2024-09-%02d %02d:59:59", day, hour);
    r[end] = buf;
    r[resource] += "-" + std::to_string(n / 50);
    const double s = scale(rng);
    for (std::size_t c : {billed, effective, list}) {
      if (r[c] == "NULL") continue;
      std::snprintf(buf, sizeof buf, "%.11f", std::strtod(r[c].c_str(), nullptr) * s);
      r[c] = buf;
    }
    if (r[tags] != "NULL" && rng() % 10 < 7)
      r[tags] =
          r[tags].substr(0, r[tags].size() - 1) + ", \"team\": \"" + kTeams[rng() % 12] + "\"}";
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i) std::fputc(',', f);
      write_field(f, r[i]);
    }
    std::fputc('\n', f);
  }
  std::fclose(f);
  return out;
}

namespace {

using aicost::bench::generate_focus;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// FOCUS ingest of 1M generated rows into a fresh SQLite ledger (target >= 150k rows/s on one core),
// and sqlite3's own `.import` of the same file into an untyped table, timed in the same run.
void BM_LedgerFocusIngestSqlite(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto csv = generate_focus(rows, 42);
  double ours = 0, theirs = 0;
  for (auto _ : state) {
    const auto db = kWork / "ingest.db";
    fs::remove(db), fs::remove(kWork / "ingest.db-wal"), fs::remove(kWork / "ingest.db-shm");
    auto store = store::open_store(db.string(), {.mode = store::OpenMode::kCreate});
    if (!store) {
      state.SkipWithError(store.error().what().c_str());
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto r = billing::ingest_file(**store, csv.string(), {});
    ours = seconds_since(t0);
    if (!r || r->record.rows != static_cast<std::int64_t>(rows)) {
      state.SkipWithError(r ? "row count differs" : r.error().what().c_str());
      return;
    }
    state.SetIterationTime(ours);
  }
  const auto plain = kWork / "import.db";
  fs::remove(plain);
  const std::string cmd =
      "sqlite3 '" + plain.string() + "' '.import --csv " + csv.string() + " t' 2>/dev/null";
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  theirs = seconds_since(t0);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["rows/s"] = static_cast<double>(rows) / ours;
  if (rc == 0) {
    state.counters["sqlite3_import_rows/s"] = static_cast<double>(rows) / theirs;
    state.counters["ours_vs_import"] = theirs / ours;  // > 1: faster than .import
  }
  state.counters["MB"] = static_cast<double>(fs::file_size(csv)) / 1e6;
}
BENCHMARK(BM_LedgerFocusIngestSqlite)
    ->Arg(1'000'000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

// By tag and day over 10M rows (target < 2 s on SQLite).
void BM_LedgerReportByTagByDay(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto db = ledger_with(rows);
  auto store = store::open_store(db.string());
  if (db.empty() || !store) {
    state.SkipWithError("could not build the ledger");
    return;
  }
  ledger::ReportRequest req;
  req.by = {{ledger::Dimension::kTag, "team"}};
  req.granularity = ledger::Granularity::kDay;
  std::size_t lines = 0;
  for (auto _ : state) {
    auto r = ledger::run_report(**store, req);
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    lines = r->lines.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["ledger_rows"] = static_cast<double>(rows);
  state.counters["report_lines"] = static_cast<double>(lines);
  state.counters["ledger_rows/s"] = benchmark::Counter(
      static_cast<double>(rows) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LedgerReportByTagByDay)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

// The same ledger grouped by resource: no rollup can answer it, so this is the raw-scan cost.
void BM_LedgerReportByResourceRawScan(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0));
  const auto db = ledger_with(rows);
  auto store = store::open_store(db.string());
  if (db.empty() || !store) {
    state.SkipWithError("could not build the ledger");
    return;
  }
  ledger::ReportRequest req;
  req.by = {{ledger::Dimension::kResource, {}}};
  req.top = 20;
  for (auto _ : state) {
    auto r = ledger::run_report(**store, req);
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    benchmark::DoNotOptimize(r);
  }
  state.counters["ledger_rows/s"] = benchmark::Counter(
      static_cast<double>(rows) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LedgerReportByResourceRawScan)
    ->Arg(10'000'000)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace

namespace aicost::bench {

namespace {

// Charges for the generated ledgers: the FOCUS sample's rows as the reader reads them.
std::vector<ledger::Charge> sample_charges() {
  std::vector<ledger::Charge> base;
  billing::Sink sink;
  sink.charge = [&](ledger::Charge&& c) {
    base.push_back(std::move(c));
    return core::Status{};
  };
  (void)billing::read_file(kSample, billing::Format::kFocus, sink);
  return base;
}

// A ledger at `db` of `rows` charges (kept when one was generated there before): row n bills
// resource `resource_of(n)`, which is one sample row's resource (its service, type, region, SKU,
// tags) with the number appended to its id, at a random hour of 2024-06..09 (from `seed`); 70 %
// of the resources have one of 12 team tags. `mark` fills the source's made-up SHA-256.
std::filesystem::path generate(const std::filesystem::path& db, std::size_t rows,
                               const std::function<std::size_t(std::size_t)>& resource_of,
                               std::uint64_t seed, char mark) {
  namespace fs = std::filesystem;
  fs::create_directories(kWork);
  if (fs::exists(db)) {
    auto s = store::open_store(db.string());
    if (s) {
      auto src = (*s)->sources();
      if (src && src->size() == 1 && src->front().rows == static_cast<std::int64_t>(rows))
        return db;
    }
    fs::remove(db);
  }
  auto store = store::open_store(db.string(), {.mode = store::OpenMode::kCreate});
  if (!store) return {};
  if (!(*store)->begin_source({db.string() + ".generated", std::string(64, mark), 0, "generated"},
                              {}))
    return {};
  const bool added =
      generate_charges(rows, resource_of, seed, [&](const std::vector<ledger::Charge>& batch) {
        return static_cast<bool>((*store)->add_charges(batch));
      });
  if (!added || !(*store)->commit_source("generated", 0)) return {};
  return db;
}

}  // namespace

bool generate_charges(std::size_t rows, const std::function<std::size_t(std::size_t)>& resource_of,
                      std::uint64_t seed,
                      const std::function<bool(const std::vector<ledger::Charge>&)>& add) {
  const auto base = sample_charges();
  if (base.empty()) return false;
  static const char* kTeams[] = {"search", "ads",  "llm-train", "llm-serve", "vision", "speech",
                                 "infra",  "data", "research",  "safety",    "growth", "platform"};
  std::mt19937_64 rng(seed);
  std::vector<ledger::Charge> batch;
  const ledger::UnixSeconds june =
      static_cast<ledger::UnixSeconds>(ledger::days_from_civil(2024, 6, 1)) * 86400;
  for (std::size_t n = 0; n < rows; ++n) {
    const std::size_t resource = resource_of(n);
    ledger::Charge c = base[resource * 7919 % base.size()];
    c.line = static_cast<std::int64_t>(n + 2);
    c.period_start = june + static_cast<ledger::UnixSeconds>(rng() % (122 * 24)) * 3600;
    c.period_end = c.period_start + 3600;
    c.resource_id += "-" + std::to_string(resource);
    if (resource * 2654435761u % 10 < 7) c.tags.push_back({"team", kTeams[resource % 12]});
    batch.push_back(std::move(c));
    if (batch.size() == 8192) {
      if (!add(batch)) return false;
      batch.clear();
    }
  }
  return add(batch);
}

bool generate_hourly_charges(std::size_t rows, std::size_t first_resource, std::uint64_t seed,
                             const std::function<bool(const std::vector<ledger::Charge>&)>& add) {
  const auto base = sample_charges();
  if (base.empty()) return false;
  static const char* kTeams[] = {"search", "ads",  "llm-train", "llm-serve", "vision", "speech",
                                 "infra",  "data", "research",  "safety",    "growth", "platform"};
  constexpr std::size_t kDays = 122;  // 2024-06-01 .. 2024-09-30
  std::mt19937_64 rng(seed);
  std::vector<ledger::Charge> batch;
  const ledger::UnixSeconds june =
      static_cast<ledger::UnixSeconds>(ledger::days_from_civil(2024, 6, 1)) * 86400;
  std::size_t resource = first_resource, hour = 0, hours = 0;
  ledger::UnixSeconds start = 0;
  for (std::size_t n = 0; n < rows; ++n, ++hour) {
    if (hour == hours) {  // the next resource: 3 to 21 days, from a random day that fits
      if (n > 0) ++resource;
      const std::size_t days = 3 + rng() % 19;
      hours = days * 24;
      hour = 0;
      start = june + static_cast<ledger::UnixSeconds>(rng() % (kDays - days + 1)) * 86400;
    }
    ledger::Charge c = base[resource * 7919 % base.size()];
    c.line = static_cast<std::int64_t>(n + 2);
    c.period_start = start + static_cast<ledger::UnixSeconds>(hour) * 3600;
    c.period_end = c.period_start + 3600;
    c.resource_id += "-" + std::to_string(resource);
    if (resource * 2654435761u % 10 < 7) c.tags.push_back({"team", kTeams[resource % 12]});
    batch.push_back(std::move(c));
    if (batch.size() == 8192) {
      if (!add(batch)) return false;
      batch.clear();
    }
  }
  return add(batch);
}

// rows / 50 resources, each billed 50 times in a row.
std::filesystem::path ledger_with(std::size_t rows) {
  return generate(
      kWork / ("report-v4-" + std::to_string(rows) + ".db"), rows,
      [](std::size_t n) { return n / 50; }, 7, '0');
}

// Row n bills resource n % resources: each block of `resources` rows is one export of every
// resource, so a resource's rows lie across the whole table, as in a ledger of daily exports.
std::filesystem::path wide_ledger_with(std::size_t rows, std::size_t resources) {
  if (resources == 0) return {};
  return generate(
      kWork / ("wide-v1-" + std::to_string(rows) + "-" + std::to_string(resources) + ".db"), rows,
      [resources](std::size_t n) { return n % resources; }, 13, '2');
}

}  // namespace aicost::bench
