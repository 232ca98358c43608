// What the ledger's shared code (ledger_base.h) and a backend pass each other: values bound to a
// statement, the rows it returns, and the rows of a bulk load.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "aicost/core/amount.h"

namespace aicost::store {

// A value bound to a statement's $1, $2, ... (SQLite binds them as ?1, ?2, ...).
using SqlParam = std::variant<std::nullptr_t, std::int64_t, double, std::string_view>;

// A statement's answer. SQLite gives each cell its type; PostgreSQL gives text, which the reads
// parse (exactly: doubles come in their shortest exact text). A cell that does not parse as asked
// reads as 0 / "" and makes ok() false.
class SqlRows {
 public:
  using Cell = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
  std::vector<std::vector<Cell>> rows;

  std::size_t size() const { return rows.size(); }
  bool null(std::size_t r, int c) const {
    return std::holds_alternative<std::nullptr_t>(rows[r][c]);
  }
  std::int64_t i64(std::size_t r, int c) const;
  double real(std::size_t r, int c) const;
  std::string text(std::size_t r, int c) const;
  // A text cell's bytes, without a copy (valid while the cell is); "" for NULL.
  std::string_view view(std::size_t r, int c) const;
  core::WideNanos wide(std::size_t r, int c) const;  // a SUM: NUMERIC text from PostgreSQL
  bool ok() const { return ok_; }

 private:
  mutable bool ok_ = true;
};

// Where a bulk load writes one row's values, in the table's column order.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void i64(std::int64_t v) = 0;
  virtual void real(double v) = 0;
  virtual void text(std::string_view v) = 0;
  virtual void null() = 0;
  virtual void end_row() = 0;
};
using RowWriter = std::function<void(std::size_t k, RowSink& out)>;

// Exact parse of an integer NUMERIC ("-123456789012345678901") into 128 bits; false on anything
// else.
bool parse_wide(std::string_view s, core::WideNanos& out);

}  // namespace aicost::store
