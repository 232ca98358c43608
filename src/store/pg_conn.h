// The PostgreSQL store's session and libpq's text format, shared by its write side (pg_store.cc)
// and read side (pg_reads.cc): statements with text parameters, COPY, typed cells, and errors that
// never show the password.
#pragma once

#include <libpq-fe.h>

#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "aicost/core/amount.h"
#include "aicost/core/result.h"
#include "aicost/store/open.h"  // scrub: messages never show the password
#include "sql_rows.h"

namespace aicost::store {

struct ClearResult {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ClearResult>;

inline constexpr std::size_t kCopyFlushBytes = 1 << 20;

// libpq messages span lines ("...failed: ...\n\tIs the server running...?"); one line reads better.
std::string one_line(const char* msg);

// Typed reads of one cell of a text-format result; false when the text does not parse. NULL reads
// as 0 / "" (SUM over no rows).
bool cell(const PGresult* r, int row, int col, std::string& out);
template <class Int>
bool cell(const PGresult* r, int row, int col, Int& out) {
  if (PQgetisnull(r, row, col)) return (out = 0, true);
  const char* p = PQgetvalue(r, row, col);
  const char* end = p + PQgetlength(r, row, col);
  const auto [ptr, ec] = std::from_chars(p, end, out);
  return ec == std::errc() && ptr == end;
}
bool cell(const PGresult* r, int row, int col, double& out);
bool wide_cell(const PGresult* r, int row, int col, core::WideNanos& out);

// Rows of a COPY ... FROM STDIN in text format: tab between fields, newline after a row, \N for
// NULL.
class CopyRows {
 public:
  void i64(std::int64_t v) {
    char b[24];
    s_.append(b, std::to_chars(b, b + sizeof b, v).ptr);
    s_ += '\t';
  }
  void real(double v) {
    char b[32];  // shortest text that reads back to the same double
    s_.append(b, std::to_chars(b, b + sizeof b, v).ptr);
    s_ += '\t';
  }
  void text(std::string_view v) {
    std::size_t from = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const char c = v[i];
      const char* esc = c == '\\'   ? "\\\\"
                        : c == '\t' ? "\\t"
                        : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r"
                                    : nullptr;
      if (!esc) continue;
      s_.append(v.data() + from, i - from);
      s_ += esc;
      from = i + 1;
    }
    s_.append(v.data() + from, v.size() - from);
    s_ += '\t';
  }
  void null() { s_ += "\\N\t"; }
  void end_row() { s_.back() = '\n'; }
  std::string& data() { return s_; }

 private:
  std::string s_;
};

// Appends `v` to the elements of a text[] literal ("{...}" without the braces): quoted, with " and
// \ escaped, so any text (commas, braces, "NULL") stays one value.
void array_add(std::string& out, std::string_view v);

// One session: the connection, its URL (for scrubbing the password out of messages) and where
// errors say they happened (the URL with the password hidden).
class PgConn {
 public:
  PgConn(PGconn* conn, std::string url, std::string where)
      : conn_(conn), url_(std::move(url)), where_(std::move(where)) {}

  // One statement; every value a text parameter. Ok only for a command or a row set.
  core::Result<PgResult> run(const char* what, const std::string& sql,
                             const std::vector<std::string>& params = {});

  // COPY `table` FROM STDIN, `n` rows written by `write(k, rows)`, sent in ~1 MiB pieces.
  template <class Write>
  core::Status copy_in(const char* what, const std::string& table, std::size_t n, Write&& write) {
    if (n == 0) return {};
    PgResult start(PQexec(conn_, ("COPY " + table + " FROM STDIN").c_str()));
    if (!start || PQresultStatus(start.get()) != PGRES_COPY_IN) return error(what, start.get());
    CopyRows rows;
    for (std::size_t k = 0; k < n; ++k) {
      write(k, rows);
      if (rows.data().size() >= kCopyFlushBytes || k + 1 == n) {
        if (PQputCopyData(conn_, rows.data().data(), static_cast<int>(rows.data().size())) != 1)
          return error(what, nullptr);  // rollback() ends the COPY
        rows.data().clear();
      }
    }
    if (PQputCopyEnd(conn_, nullptr) != 1) return error(what, nullptr);
    core::Status status;
    while (PGresult* raw = PQgetResult(conn_)) {
      PgResult r(raw);
      if (status && PQresultStatus(raw) != PGRES_COMMAND_OK) status = error(what, raw);
    }
    return status;
  }

  // The server's error for `what` (r may be null): kIo when the connection or the server failed,
  // kInvalidInput for a value PostgreSQL cannot store, else kInternal; never shows the password.
  core::Error error(const std::string& what, const PGresult* r) const;
  core::Error unexpected(const std::string& what) const;
  // The SQLSTATE of the last error() ("40P01"); empty when it had none.
  const std::string& last_sqlstate() const { return sqlstate_; }

 protected:
  PGconn* conn_;
  std::string url_;
  std::string where_;
  mutable std::string sqlstate_;
};

}  // namespace aicost::store
