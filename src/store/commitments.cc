#include "commitments.h"

#include "sqlite_stmt.h"

namespace aicost::store {

const char* const kSelectCommitments =
    "SELECT line, contract_id, commitment_id, category, type, description, currency, cost, quantity, unit, "
    "commitment_start, commitment_end, contract_start, contract_end FROM contract_commitments "
    "ORDER BY contract_id, commitment_id, commitment_start, source_id, line";

core::Status sqlite_insert_commitments(sqlite3* db, const std::string& path, std::int64_t source_id,
                                       std::span<const ledger::ContractCommitment> rows) {
  core::Status st;
  Stmt s(db, "INSERT INTO contract_commitments VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", st);
  if (!st) return st;
  for (const auto& c : rows) {
    int i = 0;
    s.i64(++i, source_id);
    s.i64(++i, c.line);
    for (const std::string* v : {&c.contract_id, &c.commitment_id, &c.category, &c.type, &c.description, &c.currency})
      s.text(++i, *v);
    if (c.cost) s.i64(++i, *c.cost);
    else s.null(++i);
    if (c.quantity) s.real(++i, *c.quantity);
    else s.null(++i);
    s.text(++i, c.unit);
    for (auto t : {c.commitment_start, c.commitment_end, c.contract_start, c.contract_end}) s.i64(++i, t);
    if (sqlite3_step(s.get()) != SQLITE_DONE) return sqlite_error(db, path, "inserting a contract commitment");
    sqlite3_reset(s.get());
  }
  return {};
}

core::Result<std::vector<ledger::ContractCommitment>> sqlite_read_commitments(sqlite3* db, const std::string& path) {
  core::Status st;
  Stmt q(db, kSelectCommitments, st);
  if (!st) return st.error();
  std::vector<ledger::ContractCommitment> out;
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
    auto* s = q.get();
    ledger::ContractCommitment c;
    c.line = sqlite3_column_int64(s, 0);
    int i = 1;
    for (std::string* v : {&c.contract_id, &c.commitment_id, &c.category, &c.type, &c.description, &c.currency})
      *v = column_text(s, i++);
    if (sqlite3_column_type(s, 7) != SQLITE_NULL) c.cost = sqlite3_column_int64(s, 7);
    if (sqlite3_column_type(s, 8) != SQLITE_NULL) c.quantity = sqlite3_column_double(s, 8);
    c.unit = column_text(s, 9);
    c.commitment_start = sqlite3_column_int64(s, 10);
    c.commitment_end = sqlite3_column_int64(s, 11);
    c.contract_start = sqlite3_column_int64(s, 12);
    c.contract_end = sqlite3_column_int64(s, 13);
    out.push_back(std::move(c));
  }
  if (rc != SQLITE_DONE) return sqlite_error(db, path, "reading contract commitments");
  return out;
}

core::Status pg_insert_commitments(PgConn& conn, std::int64_t source_id,
                                   std::span<const ledger::ContractCommitment> rows) {
  return conn.copy_in("inserting contract commitments", "contract_commitments", rows.size(),
                      [&](std::size_t k, CopyRows& out) {
                        const auto& c = rows[k];
                        out.i64(source_id);
                        out.i64(c.line);
                        for (const std::string* v : {&c.contract_id, &c.commitment_id, &c.category, &c.type,
                                                     &c.description, &c.currency})
                          out.text(*v);
                        if (c.cost) out.i64(*c.cost);
                        else out.null();
                        if (c.quantity) out.real(*c.quantity);
                        else out.null();
                        out.text(c.unit);
                        for (auto t : {c.commitment_start, c.commitment_end, c.contract_start, c.contract_end})
                          out.i64(t);
                        out.end_row();
                      });
}

core::Result<std::vector<ledger::ContractCommitment>> pg_read_commitments(PgConn& conn) {
  auto r = conn.run("reading contract commitments", kSelectCommitments);
  if (!r) return r.error();
  const PGresult* res = r->get();
  std::vector<ledger::ContractCommitment> out;
  bool ok = true;
  for (int row = 0; row < PQntuples(res); ++row) {
    ledger::ContractCommitment c;
    ok = ok && cell(res, row, 0, c.line);
    int i = 1;
    for (std::string* v : {&c.contract_id, &c.commitment_id, &c.category, &c.type, &c.description, &c.currency})
      ok = ok && cell(res, row, i++, *v);
    if (!PQgetisnull(res, row, 7)) {
      std::int64_t cost = 0;
      ok = ok && cell(res, row, 7, cost);
      c.cost = cost;
    }
    if (!PQgetisnull(res, row, 8)) {
      double q = 0;
      ok = ok && cell(res, row, 8, q);
      c.quantity = q;
    }
    ok = ok && cell(res, row, 9, c.unit) && cell(res, row, 10, c.commitment_start) &&
         cell(res, row, 11, c.commitment_end) && cell(res, row, 12, c.contract_start) &&
         cell(res, row, 13, c.contract_end);
    if (!ok) return core::make_error(core::ErrorCode::kInternal, "an unexpected value in contract_commitments");
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace aicost::store
