// The PostgreSQL store's read side: every query of the Store interface that an ingest does not
// need (reports, telemetry, tag sets, sources). PgStore delegates to it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"
#include "group_fold.h"
#include "pg_conn.h"

namespace aicost::store {

class PgReads {
 public:
  // `tagsets` reads every tag set (Store::tagsets).
  using Tagsets = std::function<core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>>()>;
  PgReads(PgConn& pg, Tagsets tagsets) : pg_(pg), tagsets_(std::move(tagsets)) {}

  core::Result<std::vector<ledger::AggregateRow>> aggregate(const ledger::AggregateQuery& q);
  // Store::aggregate_into: each query's groups read from a cursor in batches (the client never
  // holds the server's whole answer) and folded (group_fold.h); one query at a time unless they
  // are interleaved.
  core::Status aggregate_into(std::span<const ledger::AggregateQuery> queries,
                              const ledger::Store::AggregateSink& sink, std::size_t interleave,
                              std::size_t interleave_from);

 private:
  core::Result<PgResult> run(const char* what, const std::string& sql,
                             const std::vector<std::string>& params = {}) {
    return pg_.run(what, sql, params);
  }
  core::Error unexpected(const std::string& what) const { return pg_.unexpected(what); }
  // `q`'s groups into `fold`, read from a cursor in batches.
  core::Status fold(const ledger::AggregateQuery& q, GroupFold& fold);

  PgConn& pg_;  // the store's session, which outlives this
  Tagsets tagsets_;
};

}  // namespace aicost::store
