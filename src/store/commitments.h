// The FOCUS 1.3 Contract Commitment rows of the ledger (table contract_commitments, schema 4):
// written in an ingest's transaction, read back whole (a contract has few terms). The SQL is the
// same on both backends; each has its own bulk path.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/commitment.h"
#include "pg_conn.h"

namespace aicost::store {

// "SELECT <columns> FROM contract_commitments ORDER BY ...": the read both backends run.
extern const char* const kSelectCommitments;

core::Status sqlite_insert_commitments(sqlite3* db, const std::string& path, std::int64_t source_id,
                                       std::span<const ledger::ContractCommitment> rows);
core::Result<std::vector<ledger::ContractCommitment>> sqlite_read_commitments(sqlite3* db, const std::string& path);

core::Status pg_insert_commitments(PgConn& conn, std::int64_t source_id,
                                   std::span<const ledger::ContractCommitment> rows);
core::Result<std::vector<ledger::ContractCommitment>> pg_read_commitments(PgConn& conn);

}  // namespace aicost::store
