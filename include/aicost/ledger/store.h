// The ledger's storage, behind one interface with two backends (SQLite, PostgreSQL) and one schema.
// Domain code sees only this; the SQL lives in src/store.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/change.h"
#include "aicost/ledger/charge.h"
#include "aicost/ledger/commitment.h"
#include "aicost/ledger/query.h"
#include "aicost/ledger/telemetry.h"

namespace aicost::ledger {

struct SourceFile {
  std::string path;  // as given on the command line, made absolute; "(stdin)", shared by every load
                     // of standard input
  std::string sha256;  // of the bytes; the identity of a load
  std::int64_t bytes = 0;
  std::string format;  // "focus-1.0", "aws-cur", "azure-ea", "dcgm-prometheus", ...
};

struct CurrencyTotal {
  std::string currency;
  core::WideNanos billed = 0, effective = 0;
};

struct SourceRecord {
  std::int64_t id = 0;
  SourceFile file;
  std::string loaded_at;      // ISO 8601 UTC
  std::int64_t rows = 0;      // charges or telemetry samples loaded
  std::int64_t rejected = 0;  // rows not loaded (their issues say why)
  std::int64_t warnings = 0;
  std::vector<CurrencyTotal> totals;
};

// Mean activity of one host's GPUs on one day, by metric (fractions 0..1).
struct HostActivity {
  std::string host;
  Day day = 0;
  GpuMetric metric = GpuMetric::kGpuUtil;
  double mean = 0;
  std::int64_t samples = 0;
};

// An alert or anomaly notice that went out (governance), by its key, so it goes out once.
struct SentAlert {
  std::string key;
  std::string sent_at;  // ISO 8601 UTC
  std::string payload;  // what was sent (JSON)
};

// A claim on alerts about to be sent (Store::claim_alerts), so that of several checks running at
// once exactly one sends each alert.
struct AlertClaim {
  std::string owner;  // who claims: one check run, never reused (host, pid and start time)
  std::chrono::system_clock::time_point now;  // the claimant's clock (tests pass their own)
  std::chrono::seconds lease{600};  // the claim lapses at now + lease unless recorded or released
};

// What Store::compact did: the ledger's size before and after (SQLite: its file; PostgreSQL: its
// database), and how, in words.
struct CompactResult {
  std::int64_t bytes_before = 0, bytes_after = 0;
  std::string how;
};

// One ingest is one transaction: begin_source, any number of add_* calls, then commit_source.
// Nothing is visible to readers before the commit; a crash before it leaves the ledger as it was.
class Store {
 public:
  virtual ~Store() = default;
  virtual std::string backend() const = 0;  // "sqlite" or "postgresql"
  virtual int schema_version() const = 0;

  // The source already loaded with these bytes, if any (a re-ingest is a no-op).
  virtual core::Result<std::optional<SourceRecord>> find_source(const std::string& sha256) = 0;
  // Sources loaded from `path` (with other bytes: a re-export of the same file).
  virtual core::Result<std::vector<SourceRecord>> sources_at(const std::string& path) = 0;

  // Opens the transaction, holding the ledger's write lock (waiting for another writer as the
  // store's options say). `replace` lists sources to delete within it (a re-export swapped in).
  // Under the lock it looks again: when another process loaded these bytes meanwhile, it opens
  // nothing and returns that source (the file is already loaded); when another loaded this path
  // (a source there that `replace` does not list), it fails. Else nullopt: the transaction is open.
  virtual core::Result<std::optional<SourceRecord>> begin_source(
      const SourceFile& file, const std::vector<std::int64_t>& replace) = 0;
  virtual core::Status add_charges(std::span<const Charge> rows) = 0;
  virtual core::Status add_samples(std::span<const GpuSample> samples) = 0;
  // FOCUS 1.3 Contract Commitment rows (table contract_commitments, schema 4); they count as the
  // source's rows.
  virtual core::Status add_commitments(std::span<const ContractCommitment> rows) = 0;
  virtual core::Status add_issues(std::span<const RowIssue> issues) = 0;
  // `format` is what the reader found ("focus-1.2", ...); `rejected` the rows it could not load.
  virtual core::Result<SourceRecord> commit_source(const std::string& format,
                                                   std::int64_t rejected) = 0;
  // Inside an open ingest begun with a provisional sha256 (a stream read once, such as standard
  // input, whose identity and size are known only at its end): sets them. When another source
  // holds that identity already, changes nothing and returns that source (the caller rolls back:
  // these bytes are loaded); else nullopt.
  virtual core::Result<std::optional<SourceRecord>> settle_identity(const std::string& sha256,
                                                                    std::int64_t bytes) = 0;
  // Inside an open ingest: records the source as a delivery of `export_key` (an export of one
  // provider and billing account) covering the billing `periods` (BillingPeriodStart days as
  // YYYY-MM-DD), and deletes, in the same transaction, every earlier delivery of that key whose
  // periods all lie among these: a re-delivered period replaces its earlier delivery (a
  // restatement). Returns the ids deleted. An earlier delivery of the key that shares a period but
  // also covers one that this does not is an error (deleting it would lose that period; nothing is
  // changed, the transaction stays open for the caller to roll back).
  // An OpenShift export (key "ocp|..."), whose uploads hold days, not months, and send a day again
  // as it grows: `periods` are slices "YYYY-MM-DD|<resource type>" (a day of one report: "Pod",
  // "PersistentVolumeClaim", "Pod GPU"); the rows earlier deliveries of the key hold in those
  // slices are deleted, the rest of those deliveries stays, and one left with no rows is deleted
  // whole. The source records the slices' days. Returns the ids of the earlier deliveries changed.
  virtual core::Result<std::vector<std::int64_t>> restate(
      const std::string& export_key, const std::vector<std::string>& periods) = 0;
  virtual void rollback() noexcept = 0;

  virtual core::Result<std::vector<SourceRecord>> sources() = 0;
  virtual core::Result<std::vector<RowIssue>> issues(std::int64_t source_id,
                                                     std::int64_t limit) = 0;
  virtual core::Result<std::vector<AggregateRow>> aggregate(const AggregateQuery& q) = 0;
  // Several aggregates, each answer as aggregate() gives it. A store that can answer them from
  // one read of the charges does (SQLite: one scan for queries over the raw rows); by default
  // each is asked in turn.
  virtual core::Result<std::vector<std::vector<AggregateRow>>> aggregate_each(
      std::span<const AggregateQuery> queries) {
    std::vector<std::vector<AggregateRow>> out;
    for (const auto& q : queries) {
      auto rows = aggregate(q);
      if (!rows) return rows.error();
      out.push_back(std::move(*rows));
    }
    return out;
  }
  // The rows of aggregate_each(queries) one at a time, for a reader that keeps less than all of
  // them: every row of queries[0] in its order, then those of queries[1], and so on. Or, with
  // `interleave` > 0, for queries in text order whose first `interleave` dims are the same: for
  // each value of those dims in text order, its rows of queries[0], then of queries[1], ... (two
  // answers joined on a resource without either held aside). `sink` gets the query's position and
  // the row, which it may move from; an error from it stops the read and is returned. A query
  // equal to an earlier one is answered again from the same groups (a reader that measures its
  // rows before it writes them asks twice). The store holds only its groups meanwhile
  // (src/store/group_fold.h), never the rows as well. With `interleave` > 0 and `interleave_from`
  // > 0, only queries[interleave_from..] are interleaved, after the rows of those before it in
  // turn: readers of other queries share the read (one scan of the charges where the store can).
  using AggregateSink = std::function<core::Status(std::size_t query, AggregateRow& row)>;
  virtual core::Status aggregate_into(std::span<const AggregateQuery> queries,
                                      const AggregateSink& sink, std::size_t interleave = 0,
                                      std::size_t interleave_from = 0) = 0;
  // Per host and day: mean SM_ACTIVE, GR_ENGINE_ACTIVE and GPU_UTIL over the samples loaded.
  virtual core::Result<std::vector<HostActivity>> gpu_activity(std::optional<Day> from,
                                                               std::optional<Day> to) = 0;
  // Per host, GPU and hour: SM_ACTIVE, GR_ENGINE_ACTIVE and GPU_UTIL sums (and FB_USED's when
  // `with_memory`), sorted by host, GPU, hour and metric; samples of several sources in one hour
  // are summed.
  virtual core::Result<std::vector<GpuHour>> gpu_hours(std::optional<Day> from,
                                                       std::optional<Day> to,
                                                       bool with_memory = false) = 0;
  // Every contract commitment loaded, by contract, commitment id and period start.
  virtual core::Result<std::vector<ContractCommitment>> commitments() = 0;
  // Every tag set's tags, by id.
  virtual core::Result<std::map<std::int64_t, std::vector<Tag>>> tagsets() = 0;

  // Alerts sent so far (not those only claimed).
  virtual core::Result<std::vector<SentAlert>> sent_alerts() = 0;
  // Records alerts as sent, in one transaction: a key sent before keeps its first record; a key
  // claimed (by any owner) becomes sent, its claim settled. Waits for a writer that holds the
  // ledger (an ingest) and tries again on a transient lock failure (SQLite busy past its timeout,
  // a PostgreSQL deadlock or serialization failure), 3 tries in all.
  virtual core::Status record_sent(std::span<const SentAlert> alerts) = 0;
  // Claims `keys` for claim.owner before they are sent, in one transaction (waiting and trying
  // again as record_sent does), and returns those won: keys neither sent nor claimed, keys this
  // owner claimed before (its lease renewed), and keys whose claim lapsed (claim.now at or past
  // the end of its lease: its owner died between claiming and recording, or took too long).
  // Of several stores claiming one key at once, exactly one wins it.
  virtual core::Result<std::vector<std::string>> claim_alerts(std::span<const std::string> keys,
                                                              const AlertClaim& claim) = 0;
  // Gives `owner`'s claims on `keys` back (the delivery failed; the next check sends them). Keys
  // sent, or claimed by another owner, stay as they are.
  virtual core::Status release_alerts(std::span<const std::string> keys,
                                      const std::string& owner) = 0;

  // The change journal (table `changes`, schema 7). add_change records one in its own write
  // transaction (waiting for a writer as record_sent does) and returns its id; changes() lists
  // them by day, then id.
  virtual core::Result<std::int64_t> add_change(const Change& change) = 0;
  virtual core::Result<std::vector<Change>> changes() = 0;

  // Rewrites the ledger for reading, outside an ingest. SQLite: VACUUM into 64 KiB pages (a ledger
  // made before they were the default keeps 4 KiB ones, in which a scan runs about half as fast),
  // which also returns the space of replaced sources. PostgreSQL: VACUUM ANALYZE of its tables.
  virtual core::Result<CompactResult> compact() = 0;
};

}  // namespace aicost::ledger
