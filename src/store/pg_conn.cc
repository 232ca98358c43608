#include "pg_conn.h"

namespace aicost::store {

using core::ErrorCode;
using core::make_error;

// libpq messages span lines ("...failed: ...\n\tIs the server running...?"); one line reads better.
std::string one_line(const char* msg) {
  std::string out;
  for (const char* p = msg ? msg : ""; *p; ++p) {
    const bool space = *p == '\n' || *p == '\t' || *p == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : *p;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Typed reads of one cell of a text-format result; false when the text does not parse. NULL reads
// as 0 / "" (SUM over no rows).
bool cell(const PGresult* r, int row, int col, std::string& out) {
  out.assign(PQgetvalue(r, row, col), static_cast<std::size_t>(PQgetlength(r, row, col)));
  return true;
}
bool cell(const PGresult* r, int row, int col, double& out) {
  if (PQgetisnull(r, row, col)) return (out = 0, true);
  const char* p = PQgetvalue(r, row, col);
  const char* end = p + PQgetlength(r, row, col);
  const auto [ptr, ec] = std::from_chars(p, end, out);
  return ec == std::errc() && ptr == end;
}
bool wide_cell(const PGresult* r, int row, int col, core::WideNanos& out) {
  if (PQgetisnull(r, row, col)) return (out = 0, true);
  return parse_wide({PQgetvalue(r, row, col), static_cast<std::size_t>(PQgetlength(r, row, col))},
                    out);
}

// Rows of a COPY ... FROM STDIN in text format: tab between fields, newline after a row, \N for
// NULL.

// Appends `v` to the elements of a text[] literal ("{...}" without the braces): quoted, with " and
// \ escaped, so any text (commas, braces, "NULL") stays one value.
void array_add(std::string& out, std::string_view v) {
  if (!out.empty()) out += ',';
  out += '"';
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

// One statement; every value a text parameter. Ok only for a command or a row set.
core::Result<PgResult> PgConn::run(const char* what, const std::string& sql,
                                   const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const auto& p : params) {
    if (p.find('\0') != std::string::npos)
      return make_error(
          ErrorCode::kInvalidInput,
          std::string("a value contains a NUL byte, which PostgreSQL text cannot hold, while ") +
              what,
          where_);
    values.push_back(p.c_str());
  }
  PgResult r(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0));
  const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return error(what, r.get());
  return r;
}

core::Error PgConn::error(const std::string& what, const PGresult* r) const {
  const bool lost = PQstatus(conn_) != CONNECTION_OK;
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string sqlstate = state ? state : "";
  sqlstate_ = sqlstate;
  const char* primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  std::string msg = one_line(primary ? primary : PQerrorMessage(conn_));
  if (msg.empty()) msg = "no answer from the server";
  // Connection (08), resources (53), operator intervention (57), system (58): the server's side.
  const std::string cls = sqlstate.substr(0, 2);
  ErrorCode code = ErrorCode::kInternal;
  if (lost || cls == "08" || cls == "53" || cls == "57" || cls == "58")
    code = ErrorCode::kIo;
  else if (cls == "22")
    code = ErrorCode::kInvalidInput;  // data exception: a value PostgreSQL cannot store
  std::string text = "PostgreSQL failed " + what + ": " + msg;
  if (!sqlstate.empty()) text += " (SQLSTATE " + sqlstate + ")";
  if (code == ErrorCode::kIo) text += "; check that the server is running and reachable";
  return make_error(code, scrub(text, url_), where_);
}

core::Error PgConn::unexpected(const std::string& what) const {
  return make_error(ErrorCode::kInternal,
                    "PostgreSQL returned a value of an unexpected form while " + what, where_);
}

}  // namespace aicost::store
