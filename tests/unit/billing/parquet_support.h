// What the Parquet reader tests (parquet_test.cc, parquet_cur_test.cc) share: DuckDB to write the
// Parquet copies, the readers' results, and row-by-row comparison with the CSV.
#pragma once

#include <duckdb.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "collected.h"
#include "compress_support.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost::billing::parquet_testing {

inline const std::string kSample =
    aicost::testing::samples_dir() + "focus-sample-data/focus_sample.csv";

// Runs SQL statements on an in-memory DuckDB; the test fails on an error.
inline void duck(const std::string& sql) {
  duckdb_database db = nullptr;
  duckdb_connection con = nullptr;
  ASSERT_EQ(duckdb_open(nullptr, &db), DuckDBSuccess);
  ASSERT_EQ(duckdb_connect(db, &con), DuckDBSuccess);
  duckdb_result r;
  const bool ok = duckdb_query(con, sql.c_str(), &r) == DuckDBSuccess;
  const std::string error = ok ? "" : duckdb_result_error(&r);
  duckdb_destroy_result(&r);
  duckdb_disconnect(&con);
  duckdb_close(&db);
  ASSERT_TRUE(ok) << sql << ": " << error;
}

// COPY (query) TO `path` as Parquet.
inline std::string to_parquet(const std::string& query, const std::string& path) {
  duck("COPY (" + query + ") TO '" + path + "' (FORMAT parquet)");
  return path;
}

// Sets an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

inline Collected read(const std::string& path, Format format = Format::kAuto) {
  Collected c;
  auto r = read_file(path, format, c.sink());
  EXPECT_TRUE(r) << (r ? "" : r.error().what());
  if (r) c.summary = *r;
  return c;
}

inline std::string file_refusal(const std::string& path, Format format = Format::kAuto) {
  Collected c;
  auto r = read_file(path, format, c.sink());
  return r ? std::string() : r.error().what();
}

// Every field a reader fills, but the line (a CSV line is the Parquet row + 1).
inline void expect_same(const ledger::Charge& a, const ledger::Charge& b, std::size_t row) {
  SCOPED_TRACE("row " + std::to_string(row + 1));
  EXPECT_EQ(a.period_start, b.period_start);
  EXPECT_EQ(a.period_end, b.period_end);
  EXPECT_EQ(a.billing_period_start, b.billing_period_start);
  EXPECT_EQ(a.currency, b.currency);
  EXPECT_EQ(a.billed, b.billed);
  EXPECT_EQ(a.effective, b.effective);
  EXPECT_EQ(a.list, b.list);
  EXPECT_EQ(a.contracted, b.contracted);
  for (auto field : {&ledger::Charge::provider,
                     &ledger::Charge::billing_account_id,
                     &ledger::Charge::billing_account_name,
                     &ledger::Charge::sub_account_id,
                     &ledger::Charge::sub_account_name,
                     &ledger::Charge::service_name,
                     &ledger::Charge::service_category,
                     &ledger::Charge::region_id,
                     &ledger::Charge::resource_id,
                     &ledger::Charge::resource_name,
                     &ledger::Charge::resource_type,
                     &ledger::Charge::sku_id,
                     &ledger::Charge::charge_category,
                     &ledger::Charge::charge_class,
                     &ledger::Charge::charge_frequency,
                     &ledger::Charge::pricing_category,
                     &ledger::Charge::commitment_discount_id,
                     &ledger::Charge::commitment_discount_status,
                     &ledger::Charge::pricing_unit,
                     &ledger::Charge::consumed_unit,
                     &ledger::Charge::charge_description})
    EXPECT_EQ(a.*field, b.*field);
  EXPECT_EQ(a.pricing_quantity, b.pricing_quantity);
  EXPECT_EQ(a.consumed_quantity, b.consumed_quantity);
  EXPECT_EQ(a.gpu_hours, b.gpu_hours);
  EXPECT_EQ(ledger::tagset_text(a.tags), ledger::tagset_text(b.tags));
}

inline void expect_same_rows(const Collected& csv, const Collected& parquet) {
  ASSERT_EQ(parquet.charges.size(), csv.charges.size());
  EXPECT_EQ(parquet.summary.records, csv.summary.records);
  EXPECT_EQ(parquet.summary.rejected, csv.summary.rejected);
  EXPECT_EQ(parquet.summary.rounded, csv.summary.rounded);
  EXPECT_EQ(parquet.summary.version, csv.summary.version);
  EXPECT_TRUE(parquet.summary.rows_numbered);
  for (std::size_t i = 0; i < csv.charges.size(); ++i) {
    EXPECT_EQ(parquet.charges[i].line, static_cast<std::int64_t>(i + 1));
    expect_same(csv.charges[i], parquet.charges[i], i);
  }
}

}  // namespace aicost::billing::parquet_testing
