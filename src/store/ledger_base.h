// What both ledger backends share, written once: the bookkeeping of an ingest (the source row, the
// recheck under the write lock, replaced and restated sources, the dictionary of strings and tag
// sets, the daily and hourly rollups, the committed record), contract commitments, alert claims and
// the migrations loop. A backend (sqlite_store.cc, pg_store.cc) supplies only what differs: its SQL
// dialect (statements with $1, $2 ... parameters), its transactions and write lock, and its
// bulk-load path (SQLite's virtual-table feed and prepared INSERTs, PostgreSQL's COPY).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aicost/ledger/store.h"
#include "aicost/store/open.h"
#include "id_rollup.h"
#include "raw_tagsets.h"
#include "resource_rollup.h"
#include "sample_rollup.h"
#include "schema.h"
#include "sql_rows.h"
#include "string_ids.h"

namespace aicost::store {

// Which sources select_sources returns.
enum class SourceKey { kAll, kSha256, kPath };

// Who takes the write lock (a backend may name it to other writers waiting).
enum class Writer { kIngest, kMigration, kCheck };

class LedgerBase : public ledger::Store {
 public:
  int schema_version() const override { return version_; }

  core::Result<std::optional<ledger::SourceRecord>> find_source(const std::string& sha256) override;
  core::Result<std::vector<ledger::SourceRecord>> sources_at(const std::string& path) override;
  core::Result<std::vector<ledger::SourceRecord>> sources() override;
  core::Result<std::optional<ledger::SourceRecord>> begin_source(
      const ledger::SourceFile& file, const std::vector<std::int64_t>& replace) override;
  core::Status add_charges(std::span<const ledger::Charge> rows) override;
  core::Status add_samples(std::span<const ledger::GpuSample> samples) override;
  core::Status add_commitments(std::span<const ledger::ContractCommitment> rows) override;
  core::Status add_issues(std::span<const ledger::RowIssue> issues) override;
  core::Result<ledger::SourceRecord> commit_source(const std::string& format,
                                                   std::int64_t rejected) override;
  core::Result<std::optional<ledger::SourceRecord>> settle_identity(const std::string& sha256,
                                                                    std::int64_t bytes) override;
  core::Result<std::vector<std::int64_t>> restate(const std::string& export_key,
                                                  const std::vector<std::string>& periods) override;
  void rollback() noexcept override;

  core::Result<std::vector<ledger::ContractCommitment>> commitments() override;
  core::Result<std::vector<ledger::SentAlert>> sent_alerts() override;
  core::Status record_sent(std::span<const ledger::SentAlert> alerts) override;
  core::Result<std::vector<std::string>> claim_alerts(std::span<const std::string> keys,
                                                      const ledger::AlertClaim& claim) override;
  core::Status release_alerts(std::span<const std::string> keys, const std::string& owner) override;
  core::Result<std::int64_t> add_change(const ledger::Change& change) override;
  core::Result<std::vector<ledger::Change>> changes() override;
  core::Result<std::vector<ledger::RowIssue>> issues(std::int64_t source_id,
                                                     std::int64_t limit) override;
  core::Result<std::vector<ledger::HostActivity>> gpu_activity(
      std::optional<ledger::Day> from, std::optional<ledger::Day> to) override;
  core::Result<std::vector<ledger::GpuHour>> gpu_hours(std::optional<ledger::Day> from,
                                                       std::optional<ledger::Day> to,
                                                       bool with_memory = false) override;
  core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>> tagsets() override;

 protected:
  explicit LedgerBase(const StoreOptions& options) : options_(options) {}

  // Brings the ledger to the newest schema (the migrations the backend's applied_version lacks, in
  // one write transaction), or fails on one newer than this aicost knows; sets schema_version().
  // `where` names the ledger in errors and in StoreOptions::on_create.
  core::Status open_schema(const std::string& where);
  bool in_ingest() const { return in_tx_; }

  // ---- The backend: its dialect ----
  virtual Dialect dialect() const = 0;
  // One statement, $1.. parameters; the rows it returns. Errors name `what` ("recording the
  // source").
  virtual core::Result<SqlRows> query(const char* what, const std::string& sql,
                                      const std::vector<SqlParam>& params = {}) = 0;
  // The same statement's rows handed to `visit` one at a time (`rows` may hold only the row being
  // read), for a read that keeps less than all of them (hourly telemetry: 0.7M rows for 28 days of
  // 1,024 GPUs, about 300 bytes each as SqlRows). By default query()'s rows, one after another.
  // `visit` must not use the store (SQLite: the statement is still stepping).
  using RowVisit = std::function<void(const SqlRows& rows, std::size_t r)>;
  virtual core::Status query_each(const char* what, const std::string& sql,
                                  const std::vector<SqlParam>& params, const RowVisit& visit);
  // Several statements without parameters (a migration).
  virtual core::Status script(const char* what, const std::string& sql) = 0;
  // The schema version applied: 0 for an empty ledger; an error for a database that is not one.
  virtual core::Result<int> applied_version() = 0;
  // The error for opening (OpenMode::kExisting) a ledger that has no tables.
  virtual core::Error no_ledger() const = 0;

  // ---- Transactions and the write lock ----
  // Opens a write transaction holding the ledger's write lock, for `who`.
  virtual core::Status begin_write(Writer who) = 0;
  virtual core::Status commit_write() = 0;
  virtual void rollback_write() noexcept = 0;
  // Whether the last failure was a lock conflict worth trying again (record_sent, claims).
  virtual bool transient_failure() const = 0;

  // ---- The bulk-load path ----
  // `n` rows into `table` (all its columns, `columns` of them, in order), each written by `write`.
  virtual core::Status load(const char* what, const char* table, int columns, std::size_t n,
                            const RowWriter& write) = 0;
  virtual core::Status load_charges(std::int64_t source, std::span<const ledger::Charge> rows,
                                    const std::int64_t* tagsets, const ChargeTextIds* ids) = 0;
  virtual core::Status load_daily(std::int64_t source, std::span<const IdRollupRow> rows) = 0;
  // Stores strings new to the ledger (each once, none in the cache) and returns their ids in order.
  // `max_id` is the highest id stored so far (the store holds the write lock).
  virtual core::Result<std::vector<std::int64_t>> store_strings(
      std::span<const std::string_view> values, std::int64_t max_id) = 0;
  // Stores tag sets new to the ledger (canonical text and the tags of a row that has it) and
  // returns their ids in order.
  struct NewTagset {
    std::string_view canonical;
    const std::vector<ledger::Tag>* tags;
  };
  virtual core::Result<std::vector<std::int64_t>> store_tagsets(
      std::span<const NewTagset> sets) = 0;

  StoreOptions options_;

 private:
  // Sources with their per-currency totals (sorted by currency, byte order), by id; one
  // statement, hence one snapshot.
  core::Result<std::vector<ledger::SourceRecord>> select_sources(SourceKey key,
                                                                 const std::string& value);
  core::Status drop_source(std::int64_t id);
  // charge_daily_merged (ledger_merge.cc), inside the open write transaction: adds the source's
  // charge_daily rows; the days the source has in charge_daily; sums `days` again from
  // charge_daily (after rows of them left it).
  core::Status merge_source(std::int64_t source);
  core::Result<std::vector<std::int64_t>> daily_days(std::int64_t source);
  core::Status remerge_days(std::vector<std::int64_t> days);
  // source_totals (ledger_merge.cc), inside the open write transaction: one source's total in one
  // currency; a source's totals summed again from its charge_daily rows (after a restatement took
  // some away).
  core::Status write_source_totals(std::int64_t source, std::int64_t currency_sid,
                                   const ledger::CurrencyTotal& t);
  core::Status resum_source_totals(std::int64_t source);
  // charge_resource_daily (ledger_merge.cc): the open ingest's resource-day rollup, and the
  // source marked as having it, when its charges fold; else nothing.
  core::Status write_resource_rollup();
  // restate() of an OpenShift export: `slices` are "YYYY-MM-DD|<resource type>".
  core::Result<std::vector<std::int64_t>> restate_days(const std::string& export_key,
                                                       const std::vector<std::string>& slices);
  core::Status load_caches();
  core::Status intern(std::span<const ledger::Charge> rows);
  core::Status write_alerts(const std::function<core::Status()>& body);
  core::Error fail(const core::Error& e) {
    rollback();
    return e;
  }
  core::Error fail(const core::Status& s) { return fail(s.error()); }

  std::string ledger_;  // names the ledger in errors
  int version_ = 0;
  bool in_tx_ = false;
  std::int64_t source_id_ = 0, rows_ = 0, warnings_ = 0;
  ledger::SourceRecord record_;                               // of the open ingest
  std::unordered_map<std::string, std::int64_t> tagset_ids_;  // canonical text -> id
  RawTagsets raw_ids_;                                        // as written -> id
  std::int64_t max_tagset_ = 0;  // the highest tag set id in tagset_ids_
  StringIds strings_;
  IdRollup rollup_;
  ResourceRollup resources_;           // written when the source's charges fold (schema 11)
  SampleRollup hours_;                 // this ingest's telemetry by GPU and hour
  std::vector<std::int64_t> tagsets_;  // add_charges' scratch: each row's tag set and string ids
  std::vector<ChargeTextIds> ids_;
};

}  // namespace aicost::store
